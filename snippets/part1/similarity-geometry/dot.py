"""3.1 Dot product: u^T v = sum_k u_k v_k = ||u|| ||v|| cos(theta); it grows with the lengths."""
import math

import numpy as np

from esm import check_close, check_less, glue, shape_table

u = np.array([3.0, 4.0])
v = np.array([4.0, 3.0])
theta = math.atan2(u[1], u[0]) - math.atan2(v[1], v[0])      # angle between them, from their own angles
print(check_close("u = (3, 4), v = (4, 3): u^T v = 3 x 4 + 4 x 3 = 24 (by hand)", u @ v, 24.0, atol=1e-12))
print(check_close(f"u^T v = ||u|| ||v|| cos(theta), lengths 5 by Pythagoras, theta from atan2 ({theta:.4f} rad)",
                  u @ v, 5.0 * 5.0 * math.cos(theta), atol=1e-12, eq="dot-product"))
print(glue("dot_u", u, "g"))
print(glue("dot_v", v, "g"))
print(glue("dot_uv", u @ v, "g"))
print(glue("dot_len", float(np.linalg.norm(u)), "g"))
print(glue("dot_theta_deg", math.degrees(theta), ".2f"))

rng = np.random.default_rng(31)
d, n = 64, 5
Q = rng.normal(0.0, 1.0, (n, d))          # five query vectors
K = rng.normal(0.0, 1.0, (n, d))          # five key vectors
S = Q @ K.T                               # all 25 dot products at once
print(shape_table({"N": n, "d": d}, [
    ("queries", "Q", Q, "N d", r"one vector $\mathbf u$ per row"),
    ("keys", "K", K, "N d", r"one vector $\mathbf v$ per row"),
    ("scores", r"QK^\top", S, "N N", r"entry $(j,k)$ is $Q_{j,:}\,K_{k,:}^\top$"),
]))
loop = np.array([[sum(Q[a, k] * K[b, k] for k in range(d)) for b in range(n)] for a in range(n)])
print(check_close("Q K^T equals the sum over coordinates (loop)", S, loop, atol=1e-12, eq="dot-product"))
# The polar form in d = 64: the angle from the law of cosines, arccos((|u|^2+|v|^2-|u-v|^2)/(2|u||v|)).
a, b = Q[0], K[0]
na, nb, nab = np.sqrt(np.sum(a * a)), np.sqrt(np.sum(b * b)), np.sqrt(np.sum((a - b) ** 2))
ang = math.acos((na**2 + nb**2 - nab**2) / (2 * na * nb))
print(check_close("in d = 64 too: u^T v = ||u|| ||v|| cos(theta), theta from the triangle's sides",
                  a @ b, na * nb * math.cos(ang), atol=1e-9, eq="dot-product"))
print(check_close("doubling u doubles every score (magnitude-sensitive)", (2 * Q) @ K.T, 2 * S, atol=1e-12))
w120 = 5.0 * np.array([math.cos(math.atan2(4, 3) + 2 * math.pi / 3), math.sin(math.atan2(4, 3) + 2 * math.pi / 3)])
print(check_less("a vector 120 degrees from u has a negative dot product with it (25 cos 120 = -12.5)",
                 u @ w120, 0.0, names=("u^T w", "0")))
print(check_close("... equal to ||u|| ||w|| cos 120 degrees = -12.5, written by hand", u @ w120, -12.5, atol=1e-12))
