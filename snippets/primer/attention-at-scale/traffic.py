"""P14 Memory traffic: the numbers naive and tiled attention move to and from slow memory, counted while
they run, against 4T d_k + 4T^2 and 2T d_k + 2T d_k T/B_q; the block an A100's SRAM holds."""
import math

import numpy as np

from esm import attention, check_close, check_equal, glue, softmax


class Slow:
    """An array in slow memory. Every element read (a[...]) or written (a[...] = x) is counted; what
    the processor computes on in between is on-chip and free."""

    def __init__(self, array, counts):
        self.a, self.counts = array, counts

    def __getitem__(self, idx):
        x = self.a[idx]
        self.counts["read"] += x.size
        return x.copy()

    def __setitem__(self, idx, x):
        self.a[idx] = x
        self.counts["write"] += self.a[idx].size


def naive(Q, K, V, counts):
    """Scores to slow memory, softmax back to slow memory, then the weighted values (Dao et al.'s
    standard attention): the T x T scores S and weights A are written once and read once each."""
    T, d = Q.shape
    Q, K, V = (Slow(x, counts) for x in (Q, K, V))
    S, A, O = (Slow(np.empty(shape), counts) for shape in ((T, T), (T, T), (T, d)))
    S[:, :] = Q[:, :] @ K[:, :].T / math.sqrt(d)          # reads Q and K, writes S
    A[:, :] = softmax(S[:, :])                            # reads S, writes A
    O[:, :] = A[:, :] @ V[:, :]                           # reads A and V, writes O
    return O.a


def tiled(Q, K, V, B, counts, causal=False):
    """One block of B queries at a time is read into fast memory, where its running m, l, o stay; every
    block of B keys and values is read for it (with the causal mask, only the blocks up to its own);
    the B x B score tiles never leave fast memory."""
    T, d = Q.shape
    Q, K, V = (Slow(x, counts) for x in (Q, K, V))
    O = Slow(np.empty((T, d)), counts)
    for i in range(0, T, B):
        q = Q[i:i + B]
        m, l, o = np.full(len(q), -np.inf), np.zeros(len(q)), np.zeros((len(q), d))
        for j in range(0, min(i + B, T) if causal else T, B):
            k, v = K[j:j + B], V[j:j + B]
            S = q @ k.T / math.sqrt(d)
            if causal:                                     # key j + c is visible to query i + r when j + c <= i + r
                S = np.where(np.arange(i, i + len(q))[:, None] >= np.arange(j, j + len(k))[None, :], S, -np.inf)
            m_new = np.maximum(m, S.max(axis=1))
            scale, E = np.exp(m - m_new), np.exp(S - m_new[:, None])
            l, o, m = scale * l + E.sum(axis=1), scale[:, None] * o + E @ v, m_new
        O[i:i + B] = o / l[:, None]
    return O.a


def n_naive(T, d):
    return 4 * T * d + 4 * T * T


def n_tiled(T, d, B):
    return 2 * T * d + 2 * T * d * -(-T // B)             # T/B blocks of queries, rounded up


rng = np.random.default_rng(14)
d, n_bytes = 128, 2                                          # a real head width; 16-bit numbers
blocks = (64, 256)
runs = [(8, 2, 4), (64, 8, 16), (96, 16, 32), (256, d, blocks[0]), (256, d, blocks[1])]    # (T, d_k, B_q)
worst, counted, formula = 0.0, [], []
for T, d_run, B in runs:
    Q, K, V = (rng.normal(size=(T, d_run)) for _ in "QKV")
    c_n, c_t = {"read": 0, "write": 0}, {"read": 0, "write": 0}
    want, _ = attention(Q, K, V)
    worst = max(worst, float(np.abs(np.stack([naive(Q, K, V, c_n), tiled(Q, K, V, B, c_t)]) - want).max()))
    counted.append((c_n["read"] + c_n["write"], c_t["read"] + c_t["write"]))
    formula.append((n_naive(T, d_run), n_tiled(T, d_run, B)))
print(check_close(f"(T, d_k, B_q) = {', '.join(map(str, runs))}: naive and tiled attention both compute P4's attention "
                  "(largest difference)", worst, 0.0, atol=1e-12))
print(check_equal("... naive attention's reads and writes, counted while it ran = 4T d_k + 4T^2",
                  [c[0] for c in counted], [f[0] for f in formula], eq="traffic-naive"))
print(check_equal("... tiled attention's, counted while it ran = 2T d_k + 2T d_k T/B_q",
                  [c[1] for c in counted], [f[1] for f in formula], eq="traffic-tiled"))
print(glue("tr_small_naive", counted[0][0]), glue("tr_small_tiled", counted[0][1]))      # the pencil example, T = 8

# At d = 128 and T = 8,192: the ratio of the two counts for the two block sizes.
T_show = 8192
ratio = {B: n_naive(T_show, d) / n_tiled(T_show, d, B) for B in blocks}
print(glue("tr_d", d), glue("tr_T", T_show, ","), glue("tr_B1", blocks[0]), glue("tr_B2", blocks[1]),
      glue("tr_ratio1", ratio[blocks[0]], ".2f"), glue("tr_ratio2", ratio[blocks[1]], ".1f"),
      glue("tr_lim2", 2 * blocks[1] // d))
# On an A100: 192 KB of on-chip memory (SRAM) per streaming multiprocessor (Dao et al., 2022, sec. 2.1). The
# largest block B = B_q = B_k whose queries, outputs, keys, values (4 B d_k numbers) and B x B score tile fit
# there in 16-bit numbers, and the traffic saving it gives at T = T_show.
SRAM = 192e3                                                 # bytes: 192 KB
M_fast = SRAM / n_bytes                                      # numbers
B_fit = max(B for B in range(1, 1000) if 4 * B * d + B * B <= M_fast)
print(glue("tr_fit_B", B_fit), glue("tr_fit_ratio", n_naive(T_show, d) / n_tiled(T_show, d, B_fit), ".1f"),
      glue("tr_sram_kb", round(SRAM / 1e3)))
print(glue("tr_scores_mb", T_show * T_show * n_bytes / 1e6, ",.0f"), glue("tr_scores_n", T_show * T_show, ","),
      glue("tr_layer_gb", 32 * T_show * T_show * n_bytes / 1e9, ".1f"))
