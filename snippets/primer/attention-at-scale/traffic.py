"""P14 Memory traffic of attention: the numbers that naive attention and tiled attention move between
slow memory and the processor, counted element by element while they run (every array in slow
memory wrapped in a counter), against the formulas 4T d_k + 4T^2 and 2T d_k + 2T d_k T/B_q; the
bytes moved at d_k = 128, drawn against T."""
import math

import numpy as np

from esm import PALETTE, attention, check_close, check_equal, check_true, figure, glue, softmax, svg


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


def tiled(Q, K, V, B, counts):
    """One block of B queries at a time is read into fast memory, where its running m, l, o stay; every
    block of B keys and values is read for it; the B x B score tiles never leave fast memory."""
    T, d = Q.shape
    Q, K, V = (Slow(x, counts) for x in (Q, K, V))
    O = Slow(np.empty((T, d)), counts)
    for i in range(0, T, B):
        q = Q[i:i + B]
        m, l, o = np.full(len(q), -np.inf), np.zeros(len(q)), np.zeros((len(q), d))
        for j in range(0, T, B):
            k, v = K[j:j + B], V[j:j + B]
            S = q @ k.T / math.sqrt(d)
            m_new = np.maximum(m, S.max(axis=1))
            scale, E = np.exp(m - m_new), np.exp(S - m_new[:, None])
            l, o, m = scale * l + E.sum(axis=1), scale[:, None] * o + E @ v, m_new
        O[i:i + B] = o / l[:, None]
    return O.a


def n_naive(T, d):
    return 4 * T * d + 4 * T * T


def n_tiled(T, d, B):
    return 2 * T * d + 2 * T * d * (T // B)


rng = np.random.default_rng(14)
d, n_bytes = 128, 2                                          # the figure's head width; 16-bit numbers
blocks = (64, 256)
runs = [(8, 2, 4), (64, 8, 16), (96, 16, 32)] + [(T, d, B) for T in (256, 512, 1024) for B in blocks]
sim = {}
for T, d_run, B in runs:
    Q, K, V = (rng.normal(size=(T, d_run)) for _ in "QKV")
    c_n, c_t = {"read": 0, "write": 0}, {"read": 0, "write": 0}
    want, _ = attention(Q, K, V)
    print(check_close(f"T = {T}, d_k = {d_run}: naive and tiled (B_q = {B}) attention both compute P4's attention",
                      np.stack([naive(Q, K, V, c_n), tiled(Q, K, V, B, c_t)]), np.stack([want, want]), atol=1e-12))
    print(check_equal(f"T = {T}, d_k = {d_run}: naive attention's reads and writes, counted while it ran = 4T d_k + 4T^2",
                      c_n["read"] + c_n["write"], n_naive(T, d_run), eq="traffic-naive"))
    print(check_equal(f"T = {T}, d_k = {d_run}, B_q = {B}: tiled attention's reads and writes, counted while it ran = "
                      "2T d_k + 2T d_k T/B_q", c_t["read"] + c_t["write"], n_tiled(T, d_run, B), eq="traffic-tiled"))
    if d_run == d:
        sim[(T, B)] = (c_n["read"] + c_n["write"], c_t["read"] + c_t["write"])
    if T == 8:                                               # the pencil example
        print(glue("tr_small_naive", c_n["read"] + c_n["write"]), glue("tr_small_tiled", c_t["read"] + c_t["write"]))

# At d = 128: the bytes moved per head, for T from 256 to 131,072.
Ts = 2 ** np.arange(8, 18)
T_show = 8192
ratio = {B: n_naive(T_show, d) / n_tiled(T_show, d, B) for B in blocks}
print(glue("tr_d", d), glue("tr_T", T_show, ","), glue("tr_B1", blocks[0]), glue("tr_B2", blocks[1]),
      glue("tr_ratio1", ratio[blocks[0]], ".2f"), glue("tr_ratio2", ratio[blocks[1]], ".1f"),
      glue("tr_lim2", 2 * blocks[1] // d))
print(glue("tr_scores_mb", T_show * T_show * n_bytes / 1e6, ",.0f"), glue("tr_scores_n", T_show * T_show, ","),
      glue("tr_layer_gb", 32 * T_show * T_show * n_bytes / 1e9, ".1f"))

fig, ax = figure(size=(5.6, 3.0))
ax.plot(Ts, [n_naive(T, d) * n_bytes for T in Ts], color=PALETTE[1], label="naive: $4Td_k+4T^2$")
for k, B in enumerate(blocks):
    ax.plot(Ts, [n_tiled(T, d, B) * n_bytes for T in Ts], color=PALETTE[0], ls=["--", ":"][k],
            label=f"tiled, $B_q={B}$: $2Td_k+2T^2d_k/B_q$")
for (T, B), (a, b) in sim.items():
    ax.plot([T], [a * n_bytes], "o", color=PALETTE[1], ms=3.5)
    ax.plot([T], [b * n_bytes], "o", color=PALETTE[0], ms=3.5)
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xlabel("sequence length $T$")
ax.set_ylabel("bytes moved, one head")
ax.legend(fontsize=8, frameon=False)
print(svg(fig, alt=f"Log-log plot of the bytes one head of attention moves to and from slow memory against the "
          f"sequence length, at d_k = {d} in 16-bit numbers. Naive attention's line and tiled attention's lines for "
          f"blocks of {blocks[0]} and {blocks[1]} queries all rise with slope 2 at long sequences. Blocks of "
          f"{blocks[0]} move about as much as naive attention; blocks of {blocks[1]} about {2 * blocks[1] // d} times "
          f"less. Dots mark counts made while running the algorithms at T up to {max(T for T, _ in sim):,}.",
          caption=f"Bytes moved by one head at $d_k={d}$ in 16-bit numbers. Both grow like $T^2$: tiled attention "
                  f"reads the keys and values again for every block of $B_q$ queries. Dots: counted while running."))
