"""Fix of the debugging exercise on the online softmax: the running output is rescaled by
e^(m - m_new) as the running sum is. The same check passes. Then (b): the broken code is right
whenever the first block holds the largest score, wrong otherwise; (c): its output is the weighted
sum with key j's weight multiplied by e^(m_n - m_i(j)) >= 1, m_i(j) the running maximum when j's block
was folded in, checked term by term."""
import math

import numpy as np

from esm import check_close, check_true, glue, share_of_seeds, softmax


def online_attention(s, V, block, rescale=True):
    """softmax(s) V for one query's scores s (n,) and values V (n, d_v), the keys taken `block` at a time.
    rescale=False is the bug: the running output is not re-referenced to the new maximum."""
    m, l, o = -math.inf, 0.0, np.zeros(V.shape[1])
    for j in range(0, len(s), block):
        s_b, V_b = s[j:j + block], V[j:j + block]
        m_new = max(m, s_b.max())
        p = np.exp(s_b - m_new)
        scale = math.exp(m - m_new)
        l = scale * l + p.sum()
        o = (scale if rescale else 1.0) * o + p @ V_b          # the fix: rescale o as l is rescaled
        m = m_new
    return o / l


def check_online(attend):
    """Random scores of spread 3 and values, 40 keys in blocks of 8, against P4's softmax."""
    rng = np.random.default_rng(41)
    s, V = rng.normal(size=40) * 3, rng.normal(size=(40, 4))
    return check_close("one pass over 40 keys in blocks of 8 = softmax(s) V", attend(s, V, 8), softmax(s) @ V, atol=1e-12)


def run_fixed():
    return check_online(online_attention)


print(run_fixed())

# (b) The bug is invisible when the running maximum never rises after the first block: every scale is then 1.
rng = np.random.default_rng(42)
s, V = rng.normal(size=40) * 3, rng.normal(size=(40, 4))
order_down, order_up = np.argsort(-s), np.argsort(s)
err = {name: float(np.abs(online_attention(s[o], V[o], 8, rescale=False) - softmax(s) @ V).max())
       for name, o in (("decreasing", order_down), ("increasing", order_up))}
print(check_close("(b) scores sorted in decreasing order: the broken code gives softmax(s) V", err["decreasing"], 0.0,
                  atol=1e-12))
print(check_true("(b) sorted in increasing order: it is far off", err["increasing"] > 0.1,
                 f"largest error {err['increasing']:.3f}"))


def first_block_holds_max(seed):
    """Over random scores: the broken output is right exactly when the first block holds the largest score."""
    r = np.random.default_rng(seed)
    s_r, V_r = r.normal(size=40) * 3, r.normal(size=(40, 4))
    right = np.allclose(online_attention(s_r, V_r, 8, rescale=False), softmax(s_r) @ V_r, atol=1e-12, rtol=0)
    return right == (int(np.argmax(s_r)) < 8)


share = share_of_seeds(first_block_holds_max, range(200))
print(check_close("(b) over 200 seeds: right if and only if the largest score is in the first block", share, 1.0, atol=0))

# (c) The broken o_n is sum_j e^(s_j - m_i(j)) v_j: key j weighted by e^(m_n - m_i(j)) >= 1 times too much.
rng = np.random.default_rng(43)
s, V = rng.normal(size=40) * 3, rng.normal(size=(40, 4))
m_at = np.maximum.accumulate([s[j:j + 8].max() for j in range(0, 40, 8)])       # running maximum after each block
m_of = np.repeat(m_at, 8)                                                         # ... as key j's block was folded in
l_n = math.fsum(math.exp(x - s.max()) for x in s)
predicted = sum(math.exp(s[j] - m_of[j]) * V[j] for j in range(40)) / l_n
print(check_close("(c) broken output = sum_j e^(s_j - m_i(j)) v_j / l_n, key by key", online_attention(s, V, 8, rescale=False),
                  predicted, atol=1e-12))
over = np.exp(s.max() - m_of)
print(glue("ob_err_up", err["increasing"], ".2f"), glue("ob_share", share, ".0%"), glue("ob_over_max", float(over.max()), ".1f"))
