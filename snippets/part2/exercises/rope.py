"""Exercise: RoPE scores against offsets. A query scored against itself peaks at offset 0, a query
against another key need not; and rotating the values too keeps the layer relative up to one rotation."""
import numpy as np

from esm import attention, causal_mask, check_close, check_equal, check_less, check_true, glue, rope_rotate, shape_table

rng = np.random.default_rng(108)
d_k = 8                                          # RoPE acts on the head width; omega_j = 10^(-j) here
q, k = rng.normal(0.0, 1.0, d_k), rng.normal(0.0, 1.0, d_k)
offsets = np.arange(-64, 65)
print(shape_table({"d_k": d_k}, [("query", r"\mathbf q", q, "d_k", "seed 108"), ("key", r"\mathbf k", k, "d_k", "")]))


def pair_norms(x):
    return np.hypot(x[0::2], x[1::2])


omega = 10000.0 ** (-np.arange(0, d_k, 2) / d_k)
# (a) q against itself: score(D) = (R_0 q)^T (R_D q) = sum_j |q_(j)|^2 cos(D w_j) <= |q|^2 = score(0)
self_scores = np.array([rope_rotate(q, 0) @ rope_rotate(q, int(D)) for D in offsets])
print(check_close("(a) q against itself: score(D) = sum_j |q_(j)|^2 cos(D w_j) (rotations vs closed form)", self_scores,
                  [float(pair_norms(q) ** 2 @ np.cos(D * omega)) for D in offsets], atol=1e-12))
print(check_equal("(a) ... largest at offset 0", int(offsets[np.argmax(self_scores)]), 0))
# (b) q against k: the best offset, by a scan, and the bound sum_j |q_(j)| |k_(j)| <= |q| |k|
scores = np.array([q @ rope_rotate(k, int(D)) for D in offsets])            # q^T R_D k, offset D = s - t
shifted = np.array([rope_rotate(q, 11) @ rope_rotate(k, 11 + int(D)) for D in offsets])
print(check_close("the scan by q^T R_D k equals rotating both at positions 11 and 11 + D", scores, shifted, atol=1e-12))
best = int(offsets[np.argmax(scores)])
bound = float(pair_norms(q) @ pair_norms(k))
print(check_less("(b) every score in the scan stays below sum_j |q_(j)| |k_(j)|", float(scores.max()), bound,
                 names=("best score", "bound")))
print(check_less("(b) ... which is at most |q| |k| (Cauchy-Schwarz over the pairs)", bound,
                 float(np.linalg.norm(q) * np.linalg.norm(k)) + 1e-12, names=("bound", "|q| |k|")))
# (c) rotate the values too: o_t = sum_s a_ts R_s v_s. Then R_t^T o_t = sum_s a_ts R_(s-t) v_s: shift-invariant.
T = 6
X = rng.normal(0.0, 1.0, (3, T, d_k))                                      # queries, keys, values


def layer(shift):
    pos = np.arange(T) + shift
    Qr, Kr, Vr = (rope_rotate(M, pos) for M in X)
    out = attention(Qr, Kr, Vr, mask=causal_mask(T))[0]
    return out, np.stack([rope_rotate(out[t], -int(pos[t])) for t in range(T)])


(o0, u0), (o7, u7) = layer(0), layer(7)
print(check_close("(c) R_t^T o_t is unchanged when every position moves by 7", u7, u0, atol=1e-12))
gap = float(np.abs(o7 - o0).max())
print(check_true("(c) ... while o_t itself changes", gap > 1e-6, f"max |difference| {gap:.3g}"))
print(glue("e8_d", d_k), glue("e8_best", best), glue("e8_best_score", float(scores.max()), ".3f"),
      glue("e8_zero_score", float(scores[offsets == 0][0]), "+.3f"), glue("e8_bound", bound, ".3f"),
      glue("e8_qk", float(np.linalg.norm(q) * np.linalg.norm(k)), ".3f"), sep="")
