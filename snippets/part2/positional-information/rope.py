"""6.4 RoPE: rotating q and k by their positions leaves a score that depends on the offset only."""
import math

import numpy as np

from esm import PALETTE, check_close, check_true, figure, rope_angles, rope_rotate, shape_table, svg

rng = np.random.default_rng(64)
d, T = 16, 8
theta = rope_angles(d)                           # theta_j = 10000^(-2j/d), j = 0..d/2-1


def R(p):
    """The d x d block-diagonal rotation R_p, built pair by pair with math.cos / math.sin."""
    M = np.zeros((d, d))
    for j in range(d // 2):
        a = p * 10000.0 ** (-2 * j / d)
        M[2 * j:2 * j + 2, 2 * j:2 * j + 2] = [[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]
    return M


Q = rng.normal(0, 1, (T, d))                     # random queries and keys
K = rng.normal(0, 1, (T, d))
pos_q = rng.integers(0, 4096, T)                 # random positions
pos_k = rng.integers(0, 4096, T)
Qr = rope_rotate(Q, pos_q)
Kr = rope_rotate(K, pos_k)

print(shape_table({"T": T, "d": d, "d/2": d // 2}, [
    ("queries", "Q", Q, "T d", "random, one per row"),
    ("keys", "K", K, "T d", "random, one per row"),
    ("angles", r"\theta_j", theta, "d/2", r"$10000^{-2j/d}$"),
    ("rotated queries", r"R_{p}\mathbf q", Qr, "T d", "row t rotated by its own position"),
    ("rotation", "R_p", R(int(pos_q[0])), "d d", "block diagonal, 2 x 2 blocks"),
]))

print(check_close("rope_rotate(q, p) = R_p q with R_p built block by block, all 8 rows", Qr,
                  np.stack([R(int(p)) @ q for p, q in zip(pos_q, Q)]), atol=1e-9, eq="rope-rotation"))
print(check_close("norms are preserved: |R_p q| = |q| for all rows", np.linalg.norm(Qr, axis=1),
                  np.linalg.norm(Q, axis=1), atol=1e-12))
scores = np.sum(Qr * Kr, axis=1)
relative = np.array([Q[t] @ R(int(pos_k[t] - pos_q[t])) @ K[t] for t in range(T)])
print(check_close("(R_p q)^T (R_s k) = q^T R_(s-p) k for 8 random (q, k, p, s)", scores, relative,
                  atol=1e-9, eq="rope"))
shift = rng.integers(-1000, 1000, T)
shifted = np.sum(rope_rotate(Q, pos_q + shift) * rope_rotate(K, pos_k + shift), axis=1)
print(check_close("shifting both positions by the same random amount leaves every score unchanged",
                  shifted, scores, atol=1e-9))
plain = np.sum(Q * K, axis=1)
print(check_true("the score is not the unrotated q^T k (position does matter)", np.abs(scores - plain).max() > 0.1,
                 f"max |score - q.k| = {np.abs(scores - plain).max():.3f}"))

q = np.ones(d)
m = np.arange(0, 257)
curve = np.array([q @ rope_rotate(q, int(s)) for s in m])      # q^T R_m q for the same vector
print(check_close("for q = k = 1: q^T R_m q = 2 sum_j cos(m theta_j)", curve,
                  2 * np.cos(np.outer(m, theta)).sum(axis=1), atol=1e-9))
fig, ax = figure(size=(6.4, 2.6))
ax.plot(m, curve, color=PALETTE[0])
ax.set_xlabel("offset s - p")
ax.set_ylabel(r"$(R_p q)^\top(R_s q)$")
print(svg(fig, alt="Line plot of the RoPE score of a vector with itself against the offset: 16 at offset 0, then "
          "oscillating lower", caption="The score of $\\mathbf q=\\mathbf k=\\mathbf 1$ ($d=16$) as a function "
          "of the offset alone."))
