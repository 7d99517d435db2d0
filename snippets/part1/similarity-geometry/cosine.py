"""3.2 Cosine similarity: the dot product of the unit vectors; blind to length."""
import math

import numpy as np

from esm import PALETTE, check_close, check_less, cosine, cosine_matrix, figure, glue, normalize_rows, shape_table, svg

u = np.array([3.0, 4.0])
v = np.array([4.0, 3.0])
print(check_close("cos(u, v) = 24 / (5 x 5) equals the cosine of the angle from atan2",
                  cosine(u, v), math.cos(math.atan2(4, 3) - math.atan2(3, 4)), atol=1e-12, eq="cosine"))

cs = np.linspace(0.25, 4.0, 16)           # scale u by lambda
dots = np.array([(c * u) @ v for c in cs])
coss = np.array([cosine(c * u, v) for c in cs])
print(check_close(f"dot product of (lambda u, v) is lambda times 24 for all {len(cs)} values of lambda", dots, 24.0 * cs, atol=1e-12))
print(check_close(f"cosine of (lambda u, v) stays 24/25 for all {len(cs)} values of lambda > 0", coss, np.full_like(cs, 24 / 25),
                  atol=1e-12, eq="cosine"))
neg = cosine(-2 * u, v)
print(check_close("a negative scale flips the sign: cos(-2u, v) = -24/25", neg, -24 / 25, atol=1e-12))

rng = np.random.default_rng(32)
n, d = 6, 16
A = rng.normal(0.0, 1.0, (n, d)) * rng.uniform(0.2, 5.0, (n, 1))   # rows of very different lengths
C = cosine_matrix(A)
An = normalize_rows(A)
print(shape_table({"N": n, "d": d}, [
    ("vectors", "A", A, "N d", "rows of very different lengths"),
    ("unit vectors", r"\hat A", An, "N d", r"row $j$ is $A_{j,:}/\lVert A_{j,:}\rVert$"),
    ("cosine matrix", "", C, "N N", r"entry $(j,k)$ is $\cos(A_{j,:},A_{k,:})$"),
]))
loop = np.array([[A[a] @ A[b] / (math.sqrt(A[a] @ A[a]) * math.sqrt(A[b] @ A[b])) for b in range(n)]
                 for a in range(n)])
print(check_close("cosine matrix = dot products of unit rows, vs a loop", C, loop, atol=1e-12, eq="cosine"))
print(check_less("every cosine lies in [-1, 1] (max |cos| off the diagonal)",
                 np.abs(C[~np.eye(n, dtype=bool)]).max(), 1.0, names=("max |cos|", "1")))
print(check_close("rescaling every row by a random positive factor leaves the matrix unchanged",
                  cosine_matrix(A * rng.uniform(0.1, 10.0, (n, 1))), C, atol=1e-12))

fig, axes = figure(1, 2, size=(6.6, 2.6))
axes[0].plot(cs, dots, "o-", color=PALETTE[0], markersize=3.5)
axes[0].set_title("dot product  (λu)·v")
axes[1].plot(cs, coss, "o-", color=PALETTE[1], markersize=3.5)
axes[1].set_ylim(0.0, 1.05)
axes[1].set_title("cosine  cos(λu, v)")
for ax in axes:
    ax.set_xlabel("scale λ of u")
fig.subplots_adjust(wspace=0.35)
c0 = cosine(u, v)
print(svg(fig, alt=f"Two line charts against the scale λ from {cs[0]:g} to {cs[-1]:g}. Left: the dot product "
                   f"(λu)·v rises linearly from {dots[0]:g} to {dots[-1]:g}. Right: the cosine stays at {c0:.2f}.",
          caption=f"Scaling $\\mathbf u=(3,4)$ by $\\lambda$: the dot product with $\\mathbf v=(4,3)$ is $24\\lambda$, "
                  f"the cosine stays ${c0:.2f}$."))
print(glue("cos_uv", c0, ".2f"))
print(glue("cos_dot_min", dots[0], "g"))
print(glue("cos_dot_max", dots[-1], "g"))
print(glue("cos_neg", neg, ".2f"))
