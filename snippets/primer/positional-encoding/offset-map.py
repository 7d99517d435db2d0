"""P2 Why sin and cos: p_{p+k} is a fixed linear map of p_p (a rotation per pair), and
p_p . p_{p+k} depends on the offset k only."""
import math

import numpy as np

from esm import check_close, check_equal, figure, shape_table, sinusoidal_positions, svg

d, k = 16, 5
PE = sinusoidal_positions(300, d)
omega = 10000.0 ** (-np.arange(0, d, 2) / d)

# M_k: block diagonal, one 2x2 rotation per pair (sin, cos) -> (sin(a+b), cos(a+b)).
M = np.zeros((d, d))
for j, w in enumerate(omega):
    c, s = math.cos(k * w), math.sin(k * w)
    M[2 * j:2 * j + 2, 2 * j:2 * j + 2] = [[c, s], [-s, c]]
shifted = PE[:-k] @ M.T                           # row p becomes (M_k p_p)^T
print(shape_table({"d": d, "n": 300 - k}, [
    ("offset map", "M_k", M, "d d", "block diagonal: one rotation by $k\\omega_j$ per pair"),
    ("positions", "P_{\\text{pos}}[0{:}n]", PE[:-k], "n d", "rows $\\mathbf p_0\\dots\\mathbf p_{n-1}$"),
]))
print(check_close(f"M_k p_p equals p_(p+k) for all p = 0..{300 - k - 1} (k = {k})", shifted, PE[k:], eq="offset-map",
                  atol=1e-12))
# Independent: fit the best linear map from p_p to p_(p+k) by least squares; it is M_k.
fit, *_ = np.linalg.lstsq(PE[:-k], PE[k:], rcond=None)
print(check_close("least squares on the data recovers the same matrix (no p in it)", fit.T, M, atol=1e-4))
# (the slowest pairs barely move over 300 positions, so the fit is only good to about 1e-5)
print(check_equal("M_k is orthogonal (a rotation): M_k^T M_k = I", bool(np.allclose(M.T @ M, np.eye(d))), True))

dots = {p: float(PE[p] @ PE[p + 2]) for p in (0, 47, 203)}
closed = float(sum(math.cos(2 * w) for w in omega))
print(check_close("p_p . p_(p+2) at p = 0, 47, 203 equals sum_j cos(2 omega_j)", np.array(list(dots.values())),
                  np.full(3, closed), eq="offset-dot", atol=1e-12))

offsets = np.arange(0, 200)
fig, ax = figure(size=(6.0, 2.8))
for p0, lw, ls in ((0, 2.6, "-"), (47, 1.6, "--"), (90, 1.0, ":")):
    ax.plot(offsets, PE[p0 + offsets] @ PE[p0], lw=lw, ls=ls, label=f"from position {p0}")
ax.set_xlabel("offset $k$")
ax.set_ylabel("$\\mathbf{p}_p^\\top\\mathbf{p}_{p+k}$")
ax.legend(frameon=False, ncol=3, loc="lower center", bbox_to_anchor=(0.5, 1.0), fontsize=8)
print(svg(fig, alt="Dot product of position vectors against their offset, for three starting positions: the "
          "three curves coincide, falling from 8 at offset 0 and oscillating lower",
          caption="The similarity of two positions depends only on how far apart they are ($d=16$): the "
                  "curves from positions 0, 47 and 90 lie on top of each other."))
