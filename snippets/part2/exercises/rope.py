"""Exercise: RoPE keeps norms and makes scores depend on the offset only."""
import numpy as np

from esm import check_close, glue, rope_rotate, shape_table

rng = np.random.default_rng(108)
d_k = 8                                          # RoPE acts on the head width
q, k = rng.normal(0.0, 1.0, d_k), rng.normal(0.0, 1.0, d_k)
qr, kr = rope_rotate(q, 5), rope_rotate(k, 2)
print(shape_table({"d_k": d_k}, [("query", r"\mathbf q", q, "d_k", ""), ("rotated query", r"R_5\mathbf q", qr, "d_k", "position 5"),
                             ("rotated key", r"R_2\mathbf k", kr, "d_k", "position 2")]))
print(check_close("(a) |R_5 q| = |q|", np.linalg.norm(qr), np.linalg.norm(q), atol=1e-12))
score = float(qr @ kr)
shifted = float(rope_rotate(q, 5 + 7) @ rope_rotate(k, 2 + 7))
print(check_close("(b) shifting both positions by 7 leaves the score unchanged", shifted, score, atol=1e-12))
print(check_close("(b) the score equals q^T R_{2-5} k (relative offset only)", score,
                  float(q @ rope_rotate(k, 2 - 5)), atol=1e-12))
print(f"\nscore (R_5 q)^T (R_2 k) = {score:.4f}; |q| = {np.linalg.norm(q):.4f}")
print(glue("e8_d", d_k), glue("e8_norm", float(np.linalg.norm(q)), ".4f"), glue("e8_score", score, "+.4f"), sep="")
