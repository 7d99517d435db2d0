"""6.4 RoPE: rotating q and k by their positions leaves a score that depends on the offset only."""
import math

import numpy as np

from esm import PALETTE, check_close, check_true, figure, glue, rope_angles, rope_rotate, shape_table, svg, table

# By hand first: d_k = 2 and a toy angle of a quarter turn per position (not LLaMA's frequency),
# so that R_t only swaps and negates integer coordinates: R(pi/2) (x, y) = (-y, x).
def quarter(v, n):
    """Rotate the integer pair v by n quarter turns, by swapping and negating (no cos, no sin)."""
    x, y = v
    for _ in range(n % 4):
        x, y = -y, x
    return np.array([x, y])


def R_toy(t):
    a = t * math.pi / 2
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


q_h, k_h, t_h, s_h = np.array([1, 2]), np.array([3, 1]), 1, 3
Rq_h, Rk_h = quarter(q_h, t_h), quarter(k_h, s_h)
print(check_close(f"by hand: R_t q and R_s k (t = {t_h}, s = {s_h}) by swapping and negating vs R(t pi/2) from cos/sin",
                  np.concatenate([Rq_h, Rk_h]), np.concatenate([R_toy(t_h) @ q_h, R_toy(s_h) @ k_h]), atol=1e-12,
                  eq="rope-rotation"))
score_h = int(Rq_h @ Rk_h)
rel_h = int(q_h @ quarter(k_h, s_h - t_h))
print(check_close("by hand: (R_t q)^T (R_s k) = q^T R_(s-t) k", score_h, rel_h, atol=0, eq="rope"))
score_h1 = int(quarter(q_h, t_h + 1) @ quarter(k_h, s_h + 1))
print(check_close("by hand: moving both positions on by one leaves the score unchanged", score_h1, score_h, atol=0))
print(glue("q_h", q_h.tolist()), glue("k_h", k_h.tolist()), glue("t_h", t_h), glue("s_h", s_h),
      glue("score_h", score_h), glue("plain_h", int(q_h @ k_h)))
num = lambda x: str(int(x)).replace("-", "−")   # noqa: E731
pair = lambda v: "(" + ", ".join(str(int(x)) for x in v).replace("-", "−") + ")"   # noqa: E731
print(table(["by hand", "vector", "score with the other"], [
    (f"the query at $t={t_h}$: $R_{{{t_h}}}\\mathbf q$", pair(Rq_h), num(score_h)),
    (f"the key at $s={s_h}$: $R_{{{s_h}}}\\mathbf k$", pair(Rk_h), num(score_h)),
    (f"the key turned by the offset alone, $R_{{{s_h - t_h}}}\\mathbf k$, against $\\mathbf q$",
     pair(quarter(k_h, s_h - t_h)), num(rel_h)),
    (f"both moved on by one: $R_{{{t_h + 1}}}\\mathbf q$ against $R_{{{s_h + 1}}}\\mathbf k$",
     pair(quarter(q_h, t_h + 1)) + ", " + pair(quarter(k_h, s_h + 1)), num(score_h1)),
]))

rng = np.random.default_rng(64)
d, T, t_max = 16, 8, 4096
omega = rope_angles(d)                           # omega_j = 10000^(-2j/d_k), j = 0..d_k/2-1 (d is one head's d_k here)


def R(t):
    """The d x d block-diagonal rotation R_t, built pair by pair with math.cos / math.sin."""
    M = np.zeros((d, d))
    for j in range(d // 2):
        a = t * 10000.0 ** (-2 * j / d)
        M[2 * j:2 * j + 2, 2 * j:2 * j + 2] = [[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]
    return M


Q = rng.normal(0, 1, (T, d))                     # random queries and keys
K = rng.normal(0, 1, (T, d))
pos_q = rng.integers(0, t_max, T)                # random positions t of the queries
pos_k = rng.integers(0, t_max, T)                # and s of the keys
Qr = rope_rotate(Q, pos_q)
Kr = rope_rotate(K, pos_k)

print(shape_table({"T": T, "d_k": d, "d_k/2": d // 2}, [
    ("queries", "Q", Q, "T d_k", "random, one per row"),
    ("keys", "K", K, "T d_k", "random, one per row"),
    ("frequencies", r"\omega_j", omega, "d_k/2", r"$10000^{-2j/d_k}$"),
    ("rotated queries", r"R_{t}\mathbf q", Qr, "T d_k", "each row rotated by its own position"),
    ("rotation", "R_t", R(int(pos_q[0])), "d_k d_k", "block diagonal, 2 x 2 blocks"),
]))

print(check_close(f"rope_rotate(q, t) = R_t q with R_t built block by block, all {T} rows", Qr,
                  np.stack([R(int(t)) @ q for t, q in zip(pos_q, Q)]), atol=1e-9, eq="rope-rotation"))
print(check_close("norms are preserved: |R_t q| = |q| for all rows", np.linalg.norm(Qr, axis=1),
                  np.linalg.norm(Q, axis=1), atol=1e-12))
norm_err = np.abs(np.linalg.norm(Qr, axis=1) - np.linalg.norm(Q, axis=1)).max()
scores = np.sum(Qr * Kr, axis=1)
relative = np.array([Q[t] @ R(int(pos_k[t] - pos_q[t])) @ K[t] for t in range(T)])
print(check_close(f"(R_t q)^T (R_s k) = q^T R_(s-t) k for {T} random (q, k, t, s)", scores, relative,
                  atol=1e-9, eq="rope"))
score_err = np.abs(scores - relative).max()
shift = rng.integers(-1000, 1000, T)
shifted = np.sum(rope_rotate(Q, pos_q + shift) * rope_rotate(K, pos_k + shift), axis=1)
print(check_close("shifting both positions by the same random amount leaves every score unchanged",
                  shifted, scores, atol=1e-9))
plain = np.sum(Q * K, axis=1)
print(check_true("the score is not the unrotated q^T k (position does matter)", np.abs(scores - plain).max() > 0.1,
                 f"max |score - q.k| = {np.abs(scores - plain).max():.3f}"))
print(glue("n_rope", T), glue("d_rope", d), glue("t_max_rope", t_max))

q = np.ones(d)
offsets = np.arange(0, 257)
curve = np.array([q @ rope_rotate(q, int(k)) for k in offsets])   # q^T R_k q for the same vector
print(check_close("for q = k = 1: q^T R_k q = 2 sum_j cos(k omega_j)", curve,
                  2 * np.cos(np.outer(offsets, omega)).sum(axis=1), atol=1e-9))
fig, ax = figure(size=(6.4, 2.6))
ax.plot(offsets, curve, color=PALETTE[0])
ax.set_xlabel("offset s - t")
ax.set_ylabel(r"$(R_t q)^\top(R_s k)$")
print(svg(fig, alt=f"Line plot of the RoPE score of the all-ones vector with itself against the offset 0 to "
          f"{offsets[-1]}: {curve[0]:.0f} at offset 0, then oscillating lower, down to {curve.min():.1f} at offset "
          f"{int(np.argmin(curve))}", caption=f"The score of $\\mathbf q=\\mathbf k=\\mathbf 1$ ($d_k={d}$) as a function "
          "of the offset alone."))
