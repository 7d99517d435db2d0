"""P2 The sinusoidal encoding: the formula against a loop, a heatmap, wavelengths, constant
norm and distinct rows."""
import math

import numpy as np

from esm import check_close, check_true, figure, shape_table, sinusoidal_positions, svg, table

T, d = 64, 128
PE = sinusoidal_positions(T, d)
loop = np.zeros((T, d))
for p in range(T):
    for k in range(d // 2):
        loop[p, 2 * k] = math.sin(p / 10000 ** (2 * k / d))
        loop[p, 2 * k + 1] = math.cos(p / 10000 ** (2 * k / d))
print(shape_table({"T": T, "d": d, "d/2": d // 2}, [
    ("position table", "P_{\\text{pos}}", PE, "T d", "row $p$ is $\\mathbf p_p$"),
    ("frequencies", "\\boldsymbol\\omega", 10000.0 ** (-np.arange(0, d, 2) / d), "d/2", "$\\omega_k=10000^{-2k/d}$"),
]))
print(check_close("esm.sinusoidal_positions equals the formula written with math.sin/math.cos in a loop", PE, loop,
                  eq="sinusoidal", atol=1e-12))

wl = 2 * np.pi * 10000.0 ** (np.arange(0, d, 2) / d)
print(table(("pair $k$", "frequency $\\omega_k$", "wavelength $2\\pi/\\omega_k$ (positions)"),
            [(k, f"{1 / (wl[k] / (2 * np.pi)):.3g}", f"{wl[k]:,.1f}") for k in (0, 1, 8, 16, 32, 63)]))
print(check_close("wavelengths run from 2 pi (pair 0) to 2 pi 10000^((d-2)/d) (last pair)",
                  np.array([wl[0], wl[-1]]), np.array([2 * math.pi, 2 * math.pi * 10000 ** ((d - 2) / d)]), atol=1e-6))

norms = np.linalg.norm(sinusoidal_positions(4096, d), axis=1)
print(check_close("every position vector has norm sqrt(d/2) = 8 (positions 0..4095)", norms,
                  np.full(4096, math.sqrt(d / 2)), atol=1e-9))
far = sinusoidal_positions(4096, d)
gaps = np.linalg.norm(far[1:] - far[0], axis=1)        # distance depends only on the offset (see below)
print(check_true("no two of positions 0..4095 share a vector: smallest distance to position 0",
                 gaps.min() > 0.5, f"min over offsets 1..4095 = {gaps.min():.3f} (offset {int(gaps.argmin()) + 1})"))

fig, ax = figure(size=(6.4, 3.0))
im = ax.imshow(PE.T, aspect="auto", cmap="RdBu_r", vmin=-1, vmax=1, origin="lower")
ax.set_xlabel("position $p$")
ax.set_ylabel("dimension")
ax.grid(False)
ink = ax.spines["left"].get_edgecolor()          # the site's ink colour (drawn as currentColor)
cb = fig.colorbar(im, ax=ax, fraction=0.04, pad=0.02)
cb.outline.set_edgecolor(ink)
cb.ax.tick_params(color=ink, labelcolor=ink)
cb.set_label("value", color=ink)
print(svg(fig, alt="Heatmap of sinusoidal encodings for 64 positions and 128 dimensions: low dimensions "
          "oscillate fast along the position axis, high dimensions barely change",
          caption="$\\mathbf p_p$ for $p=0..63$, $d=128$: the first pairs cycle every few positions, "
                  "the last ones hardly move over 64 positions."))
