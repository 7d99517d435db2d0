"""6.5 ALiBi: no position vectors at all, a fixed per-head penalty proportional to distance."""
import math
from fractions import Fraction

import matplotlib
import numpy as np

from esm import (alibi_bias, alibi_slopes, attention, causal_mask, check_close, check_equal, check_true, figure, glue,
                 shape_table, svg)

# By hand first: head 0 of 8 has slope 1/2; on 4 positions its bias is -(t - s)/2 for s <= t.
def frac_tex(x):
    """-inf, an integer or a simple fraction as LaTeX."""
    if x == -math.inf:
        return r"-\infty"
    f = Fraction(x).limit_denominator(64)
    sign = "-" if f < 0 else ""
    f = abs(f)
    return f"{sign}{f.numerator}" if f.denominator == 1 else rf"{sign}\tfrac{{{f.numerator}}}{{{f.denominator}}}"


m0, T_h = alibi_slopes(8)[0], 4
bias_h = alibi_bias(T_h, m0)
by_hand = [[0 if s == t else (-Fraction(t - s, 2) if s < t else -math.inf) for s in range(T_h)] for t in range(T_h)]
print(check_close("by hand: head 0's bias on 4 positions, -(t - s)/2 written as fractions, vs esm.alibi_bias",
                  np.where(np.isfinite(bias_h), bias_h, -1e9),
                  np.array([[float(x) if x != -math.inf else -1e9 for x in row] for row in by_hand]), atol=0.0,
                  eq="alibi"))
w_h = attention(np.zeros((T_h, 2)), np.zeros((T_h, 2)), np.eye(T_h), bias=bias_h)[1][T_h - 1]
print(check_close("by hand: with equal q.k, each step back multiplies the last query's weight by e^(-1/2)",
                  w_h[:-1] / w_h[1:], np.full(T_h - 1, math.exp(-0.5)), atol=1e-12))
# formulas are published whole ($...$), to be quoted outside math in the prose
print(glue("bias_h", r"$\begin{bmatrix}" + r"\\".join("&".join(frac_tex(x) for x in row) for row in by_hand)
           + r"\end{bmatrix}$"), glue("T_h_al", T_h), glue("inv_m0_h", round(1 / m0)),
      glue("w_last_h", "$" + ",".join(f"e^{{{frac_tex(x)}}}" if x != 0 else "1" for x in by_hand[-1]) + "$"),
      glue("step_h", f"$e^{{{frac_tex(-m0)}}}$"))

rng = np.random.default_rng(65)
H, T, d_k = 8, 10, 4
m = alibi_slopes(H)                              # m_h = 2^(-8(h+1)/H), h = 0..H-1 (heads counted from 0)
# The same random queries, keys and values in every head, so the heads differ by their slopes alone.
Q, K, Vv = (np.repeat(rng.normal(0, 1, (1, T, d_k)), H, axis=0) for _ in range(3))
B = np.stack([alibi_bias(T, mh) for mh in m])   # (H, T, T), -inf above the diagonal
_, A = attention(Q, K, Vv, bias=B)

print(shape_table({"H": H, "T": T, "d_k": d_k}, [
    ("slopes", r"m_h", m, "H", "one fixed number per head, never trained"),
    ("queries", "Q", Q, "H T d_k", "per head; keys and values alike"),
    ("bias", r"-m_h(t-s)", B, "H T T", r"$-\infty$ for $s>t$"),
    ("attention weights", "A", A, "H T T", r"rows sum to 1 over keys $s\le t$"),
]))

published = [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256]   # Press et al. (2022), 8 heads
print(check_close("8 heads: slopes 1/2, 1/4, ..., 1/256 as in the paper", m, published, atol=0.0,
                  eq="alibi-slopes"))
m16 = alibi_slopes(16)
print(check_close("16 heads: a geometric sequence starting at and stepping by 2^(-1/2)", m16,
                  [2 ** -0.5 * (2 ** -0.5) ** h for h in range(16)], atol=1e-15))

h = 2                                            # head 2, slope 1/8: scores by a plain double loop
S = np.full((T, T), -np.inf)
for t in range(T):
    for s in range(t + 1):
        S[t, s] = float(Q[h, t] @ K[h, s]) / math.sqrt(d_k) - m[h] * (t - s)
weights = np.exp(S - S.max(axis=1, keepdims=True))
weights /= weights.sum(axis=1, keepdims=True)
print(check_close(f"S_ts = q_t.k_s / sqrt(d_k) - m_h (t - s), s <= t: loop vs esm.attention with bias (head {h})",
                  A[h], weights, atol=1e-12, eq="alibi"))
loop_err = np.abs(A[h] - weights).max()
print(check_equal("future keys (s > t) get weight exactly 0 in every head", A[:, ~causal_mask(T)],
                  np.zeros((H, T * (T - 1) // 2))))
far = A[:, T - 1, 0]                              # how much the last query still reads the first key
# With the same scores, d log a_{T-1,0} / d m = -(T - 1) + sum_s a_s (T - 1 - s) < 0: every other key is
# nearer than key 0, so a steeper slope always lowers the first key's weight.
print(check_true("steep heads forget distant keys; gentle heads still see them: with the same q.k, the first "
                 "key's weight grows from the steepest head to the gentlest",
                 np.all(np.diff(far) > 0), f"weight of key 0 for query {T - 1}: head 0 (m = 1/{round(1 / m[0])}) "
                 f"{far[0]:.4f}, head {H - 1} (m = 1/{round(1 / m[-1])}) {far[-1]:.4f}"))
shift = alibi_bias(T + 5, m[0])[5:, 5:]
print(check_equal("the bias depends on t - s only: the same block sits further down a longer sequence",
                  shift, alibi_bias(T, m[0])))

# Where it stops: the penalty grows without bound. At distance L_test a key's weight, relative to a
# key at distance 0 with the same q.k, is exp(-m_h * L_test).
L_test = 2048                                     # the evaluation length of Press et al.'s 1.3B model
gentle, steep = m.min(), m.max()
print(check_close("the gentlest head's penalty at distance 2048 equals 2048 / 256 (slope 2^-8)",
                  gentle * L_test, L_test / 2 ** 8, atol=0.0))
window = 10.0 / m                                 # distance at which each head's penalty reaches 10 nats
print(glue("far_first", far[0], ".4f"), glue("far_last", far[-1], ".3f"),
      glue("inv_m1", round(1 / m[0])), glue("inv_mH", round(1 / m[-1])), glue("pen9", m[0] * (T - 1), ".1f"),
      glue("L_test", L_test), glue("pen_gentle", gentle * L_test, ".0f"),
      glue("factor_gentle", math.exp(-gentle * L_test), ".1e"),
      glue("win_steep", window[0], ".0f"), glue("win_gentle", window[-1], ",.0f"))

fig, axes = figure(1, 3, size=(8.0, 2.9), gridspec_kw={"width_ratios": [10, 0.6, 13], "wspace": 0.55})
shown = np.where(np.isfinite(B[0]), B[0], np.nan)             # head 0; future keys left blank
im = axes[0].imshow(shown, cmap="viridis", vmin=-m[0] * (T - 1), vmax=0)
axes[0].set_title(f"head 0 (m = 1/{round(1 / m[0])}): bias")
axes[0].set_xlabel("key s")
axes[0].set_ylabel("query t")
axes[0].set_xticks(range(0, T, 3))
axes[0].set_yticks(range(0, T, 3))
axes[0].grid(False)
cb = fig.colorbar(im, cax=axes[1])
cb.outline.set_visible(False)
dist = np.arange(0, 513)
for hh in range(H):
    colour = matplotlib.colormaps["viridis"](0.2 + 0.65 * hh / (H - 1))
    axes[2].plot(dist, -m[hh] * dist, color=colour)
    end = min(dist[-1], 10 / m[hh])                           # where the line leaves the panel
    if end < dist[-1]:                                        # at the bottom: the head right of its end
        left = hh == 0                                        # head 1's line runs just right of head 0's end
        axes[2].annotate(str(hh), (end, -10), xytext=(-2 if left else 2, 1), textcoords="offset points",
                         ha="right" if left else "left", va="bottom", fontsize=8, color=colour)
    else:                                                     # at the right edge: the head beside it
        axes[2].annotate(str(hh), (end, -m[hh] * end), xytext=(3, 0), textcoords="offset points",
                         ha="left", va="center", fontsize=8, color=colour)
axes[2].set_ylim(-10, 0.3)
axes[2].set_xlabel("distance t - s")
axes[2].set_title(f"all {H} heads, h at each line's end: bias vs distance", fontsize=9)
print(svg(fig, alt=f"Left, a heatmap of the ALiBi bias of head 0 on a {T} x {T} block, from 0 on the diagonal down to "
          f"{-m[0] * (T - 1):.1f} in the corner, the upper triangle blank; right, the bias of all {H} heads against "
          f"distance up to {dist[-1]}: head 0 reaches -10 at distance {10 / m[0]:.0f}, head {H - 1} only "
          f"{-m[-1] * dist[-1]:.0f} at {dist[-1]}",
          caption=f"The bias $-m_h(t-s)$: head 0 on a ${T}\\times{T}$ block (blank cells are future keys, "
          f"$-\\infty$), and all {H} heads over {dist[-1]} positions: head 0 reaches $-10$ at distance "
          f"{10 / m[0]:.0f}, head {H - 1} only ${-m[-1] * dist[-1]:.0f}$ at {dist[-1]}."))
