"""6.5 ALiBi: no position vectors at all, a fixed per-head penalty proportional to distance."""
import math

import matplotlib
import numpy as np

from esm import alibi_bias, alibi_slopes, attention, causal_mask, check_close, check_equal, check_true, figure, shape_table, svg

rng = np.random.default_rng(65)
H, T, d_k = 8, 10, 4
m = alibi_slopes(H)                              # m_h = 2^(-8h/H), h = 1..H
Q = rng.normal(0, 1, (H, T, d_k))
K = rng.normal(0, 1, (H, T, d_k))
Vv = rng.normal(0, 1, (H, T, d_k))
B = np.stack([alibi_bias(T, mh) for mh in m])   # (H, T, T), -inf above the diagonal
_, A = attention(Q, K, Vv, bias=B)

print(shape_table({"H": H, "T": T, "d_k": d_k}, [
    ("slopes", r"m_h", m, "H", "one fixed number per head, never trained"),
    ("queries", "Q", Q, "H T d_k", "per head; keys and values alike"),
    ("bias", r"-m_h(i-j)", B, "H T T", r"$-\infty$ for $j>i$"),
    ("attention weights", "A", A, "H T T", "rows sum to 1 over keys j <= i"),
]))

published = [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256]   # Press et al. (2022), 8 heads
print(check_close("8 heads: slopes 1/2, 1/4, ..., 1/256 as in the paper", m, published, atol=0.0,
                  eq="alibi-slopes"))
m16 = alibi_slopes(16)
print(check_close("16 heads: a geometric sequence starting at and stepping by 2^(-1/2)", m16,
                  [2 ** -0.5 * (2 ** -0.5) ** h for h in range(16)], atol=1e-15))

h = 2                                            # head 3, slope 1/8: scores by a plain double loop
S = np.full((T, T), -np.inf)
for i in range(T):
    for j in range(i + 1):
        S[i, j] = float(Q[h, i] @ K[h, j]) / math.sqrt(d_k) - m[h] * (i - j)
weights = np.exp(S - S.max(axis=1, keepdims=True))
weights /= weights.sum(axis=1, keepdims=True)
print(check_close("s_ij = q_i.k_j / sqrt(d_k) - m_h (i - j), j <= i: loop vs esm.attention with bias (head 3)",
                  A[h], weights, atol=1e-12, eq="alibi"))
print(check_equal("future keys (j > i) get weight exactly 0 in every head", A[:, ~causal_mask(T)],
                  np.zeros((H, T * (T - 1) // 2))))
far = A[:, T - 1, 0]                              # how much the last query still reads the first key
print(check_true("steep heads forget distant keys; gentle heads still see them",
                 far[0] < far[-1], f"weight of key 0 for query {T - 1}: head 1 (m = 1/2) {far[0]:.4f}, "
                 f"head 8 (m = 1/256) {far[-1]:.4f}"))
shift = alibi_bias(T + 5, m[0])[5:, 5:]
print(check_equal("the bias depends on i - j only: the same block sits further down a longer sequence",
                  shift, alibi_bias(T, m[0])))

fig, axes = figure(1, 3, size=(8.0, 2.9), gridspec_kw={"width_ratios": [10, 0.6, 13], "wspace": 0.55})
shown = np.where(np.isfinite(B[0]), B[0], np.nan)             # head 1; future keys left blank
im = axes[0].imshow(shown, cmap="viridis", vmin=-m[0] * (T - 1), vmax=0)
axes[0].set_title("head 1 (m = 1/2): bias")
axes[0].set_xlabel("key j")
axes[0].set_ylabel("query i")
axes[0].set_xticks(range(0, T, 3))
axes[0].set_yticks(range(0, T, 3))
axes[0].grid(False)
cb = fig.colorbar(im, cax=axes[1])
cb.outline.set_visible(False)
dist = np.arange(0, 513)
for hh in range(H):
    axes[2].plot(dist, -m[hh] * dist, color=matplotlib.colormaps["viridis"](0.2 + 0.65 * hh / (H - 1)),
                 label=f"h = {hh + 1}")
axes[2].set_ylim(-10, 0.3)
axes[2].set_xlabel("distance i - j")
axes[2].set_title("all 8 heads: bias vs distance")
axes[2].legend(fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
print(svg(fig, alt="Left, a heatmap of the ALiBi bias of head 1, darkening away from the diagonal with the upper "
          "triangle blank; right, the bias of all eight heads against distance, from steep to almost flat",
          caption="The bias $-m_h(i-j)$: head 1 on a $10\\times10$ block (blank cells are future keys, "
          "$-\\infty$), and all 8 heads over 512 positions: head 1 reaches $-10$ at distance 20, "
          "head 8 only $-2$ at 512."))
