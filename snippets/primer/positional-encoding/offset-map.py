"""P2 Why sin and cos: PE_(t+k) is a fixed linear map M_k of PE_t (a rotation per pair), and
PE_t . PE_(t+k) depends on the offset k only."""
import math

import numpy as np

from esm import check_close, figure, glue, shape_table, shift_map, sinusoidal_positions, svg

d, k, n_pos = 16, 5, 300
PE = sinusoidal_positions(n_pos, d)
omega = 10000.0 ** (-np.arange(0, d, 2) / d)




Mk = shift_map(k, d)
shifted = (Mk @ PE[:-k].T).T                      # column t is M_k PE_t
n = n_pos - k
print(glue("d_off", d), glue("k", k), glue("n_pairs", n), glue("t_last", n - 1), glue("t_last_k", n_pos - 1))
print(shape_table({"d": d, "n": n}, [
    ("offset map", "M_k", Mk, "d d", "block diagonal: one rotation by $k\\omega_j$ per pair"),
    ("positions", "\\mathrm{PE}_{0:n}", PE[:-k], "n d", "rows $\\mathrm{PE}_0,\\dots,\\mathrm{PE}_{n-1}$"),
]))
err_map = float(np.abs(shifted - PE[k:]).max())
print(check_close(f"M_k PE_t equals PE_(t+k) for all t = 0..{n - 1} (k = {k})", shifted, PE[k:], eq="offset-map", atol=1e-12))
print(glue("err_map", err_map, ".0e"))
# Independent: each pair by the angle-addition formulas, with math.sin of the summed angle.
pair = [(math.sin((47 + k) * w), math.cos((47 + k) * w)) for w in omega]
print(check_close("pair j of M_k PE_47 = (sin((47 + k) w_j), cos((47 + k) w_j)) by math.sin/math.cos",
                  (Mk @ PE[47]).reshape(-1, 2), np.array(pair), atol=1e-12))
# Independent: fit the best linear map from PE_t to PE_(t+k) by least squares; it is M_k. (The slowest
# pair turns by only (n_pos - 1) omega_last, about 0.09 rad, over all the positions, so the data pin its
# block down loosely: the fit is M_k to about 1e-5, not to rounding.)
fit, *_ = np.linalg.lstsq(PE[:-k], PE[k:], rcond=None)
print(check_close("least squares on the data recovers the same matrix (no t in it)", fit.T, Mk, atol=1e-4))
print(check_close("M_2 M_3 = M_5 (shifts compose) and M_k^T M_k = I (a rotation)", np.stack([shift_map(2, d) @ shift_map(3, d), Mk.T @ Mk]),
                  np.stack([shift_map(5, d), np.eye(d)]), atol=1e-12))

starts = (0, 47, 203)
dots = np.array([float(PE[t] @ PE[t + 2]) for t in starts])
closed = float(sum(math.cos(2 * w) for w in omega))
print(glue("dot2", closed, ".3f"))
print(check_close("PE_t . PE_(t+2) at t = 0, 47, 203 equals sum_j cos(2 omega_j)", dots, np.full(3, closed),
                  eq="offset-dot", atol=1e-12))

offsets = np.arange(0, 200)
fig, ax = figure(size=(6.0, 2.8))
for t0, lw, ls in ((0, 2.6, "-"), (47, 1.6, "--"), (90, 1.0, ":")):
    ax.plot(offsets, PE[t0 + offsets] @ PE[t0], lw=lw, ls=ls, label=f"from position {t0}")
ax.set_xlabel("offset $k$")
ax.set_ylabel("$\\mathrm{PE}_t^\\top\\mathrm{PE}_{t+k}$")
ax.legend(frameon=False, ncol=3, loc="lower center", bbox_to_anchor=(0.5, 1.0), fontsize=8)
print(svg(fig, alt=f"Dot product of position vectors against their offset, for three starting positions: the "
          f"three curves coincide, falling from {d // 2} at offset 0 and oscillating lower",
          caption=f"The similarity of two positions depends only on how far apart they are ($d={d}$): the "
                  "curves from positions 0, 47 and 90 lie on top of each other."))
