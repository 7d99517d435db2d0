"""P2 The sinusoidal encoding: the formula against a loop, a heatmap, wavelengths, constant
norm and distinct rows."""
import math

import numpy as np

from esm import check_close, check_true, figure, glue, shape_table, sinusoidal_positions, svg, table

T, d = 64, 128
PE = sinusoidal_positions(T, d)
loop = np.zeros((T, d))
for t in range(T):
    for j in range(d // 2):
        loop[t, 2 * j] = math.sin(t / 10000 ** (2 * j / d))
        loop[t, 2 * j + 1] = math.cos(t / 10000 ** (2 * j / d))
print(shape_table({"T": T, "d": d, "d/2": d // 2}, [
    ("position table", "\\mathrm{PE}", PE, "T d", "row $t$ is $\\mathrm{PE}_t$"),
    ("frequencies", "\\boldsymbol\\omega", 10000.0 ** (-np.arange(0, d, 2) / d), "d/2", "$\\omega_j=10000^{-2j/d}$"),
]))
print(check_close("esm.sinusoidal_positions equals the formula written with math.sin/math.cos in a loop", PE, loop,
                  eq="sinusoidal", atol=1e-12))

wl = 2 * np.pi * 10000.0 ** (np.arange(0, d, 2) / d)
print(table(("pair $j$", "frequency $\\omega_j$", "wavelength $2\\pi/\\omega_j$ (positions)"),
            [(j, f"{1 / (wl[j] / (2 * np.pi)):.3g}", f"{wl[j]:,.1f}") for j in (0, 1, 8, 16, 32, 63)]))
print(glue("d_pe", d), glue("wl_first", wl[0], ".1f"), glue("wl_last", wl[-1], ",.0f"), glue("last_pair", d // 2 - 1),
      glue("norm", math.sqrt(d / 2), ".0f"))
# Independent route: read each pair's angle step off the table itself (the angle at position 1 is omega_j).
step = np.arctan2(PE[1, 0::2], PE[1, 1::2])
print(check_close("wavelengths 2 pi / omega_j equal 2 pi over the angle each pair turns from position 0 to 1",
                  wl, 2 * math.pi / step, rtol=1e-9, atol=0))

norms = np.linalg.norm(sinusoidal_positions(4096, d), axis=1)
print(check_close(f"every position vector has norm sqrt(d/2) = {math.sqrt(d / 2):g} (positions 0..4095)", norms,
                  np.full(4096, math.sqrt(d / 2)), atol=1e-9))
far = sinusoidal_positions(4096, d)
gaps = np.linalg.norm(far[1:] - far[0], axis=1)        # distance depends only on the offset (see below)
print(glue("far_last", len(far) - 1, ","), glue("min_gap", float(gaps.min()), ".2f"),
      glue("min_gap_at", int(gaps.argmin()) + 1))
print(check_true("no two of positions 0..4095 share a vector: smallest distance to position 0",
                 gaps.min() > 0.5, f"min over offsets 1..4095 = {gaps.min():.3f} (offset {int(gaps.argmin()) + 1})"))

fig, ax = figure(size=(6.4, 3.0))
im = ax.imshow(PE.T, aspect="auto", cmap="RdBu_r", vmin=-1, vmax=1, origin="lower")
ax.set_xlabel("position $t$")
ax.set_ylabel("dimension")
ax.grid(False)
cb = fig.colorbar(im, ax=ax, fraction=0.04, pad=0.02)   # svg() draws its ticks and outline in ink
cb.set_label("value")
print(svg(fig, alt=f"Heatmap of sinusoidal encodings for {T} positions and {d} dimensions: low dimensions "
          "oscillate fast along the position axis, high dimensions barely change",
          caption=f"$\\mathrm{{PE}}_t$ for $t=0,\\dots,{T - 1}$, $d={d}$: the first pairs cycle every few positions, "
                  f"the last ones hardly move over {T} positions."))
