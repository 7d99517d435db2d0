"""P14 The online softmax (Milakov and Gimelshein, 2018; Dao et al., 2022): the running maximum m, sum l
and output o, block after block, on the pencil example; tiled attention against P4's attention."""
import math

import numpy as np

from esm import attention, causal_mask, check_close, check_equal, glue, softmax


def online_step(state, s, V_block):
    """Fold one block of scores s (for one query) and its values into the running (m, l, o)."""
    m, l, o = state
    m_new = max(m, s.max())                   # the running maximum
    scale = math.exp(m - m_new)               # old terms were taken relative to m: re-reference them to m_new
    p = np.exp(s - m_new)
    return m_new, scale * l + p.sum(), scale * o + p @ V_block


# The pencil example: one query, four keys in two blocks of two, values of width 2.
q = np.array([1.0, 1.0, 1.0, 1.0])
K = np.array([[1, 1, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0], [2, 1, 1, 2]], dtype=float)
V = np.array([[1, 0], [0, 1], [1, 1], [2, 0]], dtype=float)
s = K @ q / math.sqrt(len(q))                 # scores 1, 2, 0, 3
state = (-math.inf, 0.0, np.zeros(2))
states = []
for j in (0, 2):
    state = online_step(state, s[j:j + 2], V[j:j + 2])
    states.append(state)
(m1, l1, o1), (m2, l2, o2) = states
out = o2 / l2
print(check_equal("the scores q.k_j / sqrt(d_k) of the four keys", s, np.array([1.0, 2.0, 0.0, 3.0])))
print(check_equal("after both blocks, m = the largest score", m2, float(s.max()), eq="online-max"))
print(check_close("after both blocks, l = sum_j e^(s_j - m), summed in one pass", l2, math.fsum(math.exp(x - m2) for x in s),
                  atol=1e-12, eq="online-sum"))
print(check_close("o / l = softmax(s) V, the attention output (P4's esm.softmax)", out, softmax(s) @ V, atol=1e-12,
                  eq="online-out"))
print(glue("ex_s", s, ".0f"), glue("ex_m1", m1, ".0f"), glue("ex_l1", l1, ".3f"), glue("ex_o1", o1, ".3f"),
      glue("ex_m2", m2, ".0f"), glue("ex_scale", math.exp(m1 - m2), ".3f"))
print(glue("ex_l2", l2, ".3f"), glue("ex_o2", o2, ".3f"), glue("ex_out", out, ".3f"))

def tiled_attention(Q, K, V, B_q, B_k, causal=False):
    """softmax(Q K^T / sqrt(d_k) + M) V for one head, one block of B_q queries against one block of
    B_k keys at a time: each query row keeps its running m, l and o, and no T x T array is ever made."""
    T, d_k = Q.shape
    O = np.empty((T, V.shape[1]))
    for i in range(0, T, B_q):
        rows = np.arange(i, min(i + B_q, T))
        m = np.full(len(rows), -np.inf)
        l = np.zeros(len(rows))
        o = np.zeros((len(rows), V.shape[1]))
        for j in range(0, T, B_k):
            if causal and j > rows[-1]:
                break                                           # this key block and the rest are all in the future
            cols = np.arange(j, min(j + B_k, T))
            S = Q[rows] @ K[cols].T / math.sqrt(d_k)           # one B_q x B_k tile of scores
            if causal:
                S = np.where(rows[:, None] >= cols[None, :], S, -np.inf)
            m_new = np.maximum(m, S.max(axis=1))
            scale = np.exp(m - m_new)                          # 0 on the first block (m = -inf), where key 0,
                                                               # seen by every row, makes m_new finite
            E = np.exp(S - m_new[:, None])
            l = scale * l + E.sum(axis=1)
            o = scale[:, None] * o + E @ V[cols]
            m = m_new
        O[rows] = o / l[:, None]
    return O


rng = np.random.default_rng(14)
T, d_k = 50, 16
Q, K, V = (rng.normal(size=(T, d_k)) * 2 for _ in "QKV")
blocks = ((8, 8), (16, 5), (50, 7), (1, 50))
worst = max(float(np.abs(tiled_attention(Q, K, V, B_q, B_k, causal)
                         - attention(Q, K, V, mask=causal_mask(T) if causal else None)[0]).max())
            for B_q, B_k in blocks for causal in (False, True))
print(check_close(f"T = {T}, (B_q, B_k) = {', '.join(map(str, blocks))}, causal and not: tiled attention = P4's softmax "
                  "attention, esm.attention (largest difference)", worst, 0.0, atol=1e-12, eq="online-out"))
