"""3.1 Dot product: u^T v = sum_k u_k v_k = ||u|| ||v|| cos(theta); it grows with the lengths."""
import math

import numpy as np

from esm import PALETTE, check_close, check_equal, check_less, figure, glue, shape_table, svg

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

# The figure: the dot product as a shadow. v's shadow on the line of u has signed length
# u^T v / ||u||, and ||u|| times that length is u^T v; w, 120 degrees from u, casts its shadow
# behind the origin. Each foot is also found by least squares (the point t u nearest the vector).
from matplotlib.lines import Line2D

nu = float(np.linalg.norm(u))
foot_v, foot_w = (u @ v) / (u @ u) * u, (u @ w120) / (u @ u) * u
shadow_v, shadow_w = (u @ v) / nu, (u @ w120) / nu
fig, ax = figure(size=(4.2, 3.0))
ax.plot([-0.75 * 3, 1.05 * 3], [-0.75 * 4, 1.05 * 4], ":", color="#010101", lw=0.8)     # the line of u
for vec, colour in ((u, "#010101"), (v, PALETTE[0]), (w120, PALETTE[1])):
    ax.annotate("", xy=tuple(vec), xytext=(0, 0), arrowprops=dict(arrowstyle="-|>", color=colour, lw=1.4,
                                                                   shrinkA=0, shrinkB=0, mutation_scale=10))
side = 0.4 * np.array([-4.0, 3.0]) / 5.0        # the shadows drawn beside the line of u, not on it
offsets = {"v": side, "w": -side}
for name, vec, foot, colour in (("v", v, foot_v, PALETTE[0]), ("w", w120, foot_w, PALETTE[1])):
    ax.plot([vec[0], foot[0]], [vec[1], foot[1]], "--", color=colour, lw=1.0, gid=f"drop-{name}")
    ax.plot(*foot, "o", ms=4, color=colour)
    o = offsets[name]
    ax.plot([o[0], foot[0] + o[0]], [o[1], foot[1] + o[1]], "-", color=colour, lw=3.0, solid_capstyle="butt",
            gid=f"shadow-{name}")
    ax.plot([0, o[0]], [0, o[1]], [foot[0], foot[0] + o[0]], [foot[1], foot[1] + o[1]], ":", color=colour, lw=0.8)
ax.text(u[0] + 0.25, u[1] + 0.05, "u (3, 4)", ha="left", va="bottom", fontsize=9)
ax.text(v[0] + 0.15, v[1], "v (4, 3)", ha="left", va="center", fontsize=9, color=PALETTE[0])
ax.text(w120[0] - 0.15, w120[1], "w", ha="right", va="center", fontsize=9, color=PALETTE[1])
ax.text(foot_v[0] / 2 + side[0] - 0.2, foot_v[1] / 2 + side[1], f"shadow {shadow_v:g}", ha="right", va="center",
        fontsize=8, color=PALETTE[0])
ax.text(foot_w[0] / 2 - side[0] + 0.2, foot_w[1] / 2 - side[1], f"shadow {shadow_w:g}", ha="left", va="center",
        fontsize=8, color=PALETTE[1])
ax.text(0.3, -0.1, "0", ha="left", va="top", fontsize=8)
ax.set_xlim(-5.4, 5.6)
ax.set_ylim(-3.3, 5.2)
ax.set_aspect("equal")
ax.axis("off")
drawn = {ln.get_gid(): np.column_stack(ln.get_data()) for ln in ax.findobj(Line2D) if ln.get_gid()}
for name in ("v", "w"):                       # each shadow moved back from beside the line onto it
    drawn[f"shadow-{name}"] = drawn[f"shadow-{name}"] - offsets[name]
lstsq = {n: np.linalg.lstsq(u[:, None], x, rcond=None)[0][0] * u for n, x in (("v", v), ("w", w120))}
got = np.concatenate([drawn["shadow-v"].ravel(), drawn["shadow-w"].ravel(), drawn["drop-v"][1], drawn["drop-w"][1],
                      [u @ (v - drawn["drop-v"][1]), u @ (w120 - drawn["drop-w"][1])]])
print(check_close("the figure's shadows, read back and moved onto the line of u: each runs from 0 to the point "
                  "of that line nearest its vector (least squares), and each dashed drop is perpendicular to u",
                  got, np.concatenate([[0.0, 0.0], lstsq["v"], [0.0, 0.0], lstsq["w"], lstsq["v"], lstsq["w"],
                                       [0.0, 0.0]]), atol=1e-12))
print(check_close("||u|| times the signed length of each drawn shadow equals the dot product, summed "
                  "coordinate by coordinate",
                  [nu * np.sign(drawn["shadow-v"][1] @ u) * np.linalg.norm(drawn["shadow-v"][1]),
                   nu * np.sign(drawn["shadow-w"][1] @ u) * np.linalg.norm(drawn["shadow-w"][1])],
                  [sum(a * b for a, b in zip(u, v)), sum(a * b for a, b in zip(u, w120))], atol=1e-12,
                  eq="dot-product"))
print(glue("dot_shadow", shadow_v, "g"))
print(svg(fig, alt=f"Arrows from the origin to u (3, 4), v (4, 3) and w, 120 degrees from u. A dashed drop from "
                   f"v meets the line of u at ({foot_v[0]:g}, {foot_v[1]:g}): v's shadow on u has length "
                   f"{shadow_v:g}, and {nu:g} times {shadow_v:g} is the dot product {u @ v:g}. w's drop meets the "
                   f"line behind the origin, at ({foot_w[0]:g}, {foot_w[1]:g}): a shadow of {shadow_w:g} and a "
                   f"dot product of {u @ w120:g}.",
          caption=f"The dot product as a shadow: $\\mathbf v$ casts a shadow of {shadow_v:g} on the line of "
                  f"$\\mathbf u$, and $\\lVert\\mathbf u\\rVert\\times{shadow_v:g}={u @ v:g}$; $\\mathbf w$, "
                  f"{120}° from $\\mathbf u$, casts {shadow_w:g} behind the origin, and "
                  f"$\\mathbf u^\\top\\mathbf w={u @ w120:g}$."))
