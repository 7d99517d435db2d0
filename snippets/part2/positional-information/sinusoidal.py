"""6.2 Sinusoidal encodings: a fixed table whose shift by k is one linear map, the same at every p."""
import math

import numpy as np

from esm import PALETTE, check_close, figure, shape_table, sinusoidal_positions, svg

T, d, k = 64, 32, 5
PE = sinusoidal_positions(T, d)
omega = 10000.0 ** (-np.arange(0, d, 2) / d)     # one frequency per pair (2j, 2j+1)


def shift_map(k):
    """Block-diagonal M_k with PE_{p+k} = M_k PE_p: a 2x2 rotation by k * omega_j per pair."""
    M = np.zeros((d, d))
    for j, w in enumerate(omega):
        c, s = math.cos(k * w), math.sin(k * w)
        M[2 * j:2 * j + 2, 2 * j:2 * j + 2] = [[c, s], [-s, c]]
    return M


M = shift_map(k)

print(shape_table({"T": T, "d": d, "d/2": d // 2}, [
    ("position table", r"\mathrm{PE}", PE, "T d", r"row $p$ encodes position $p$"),
    ("frequencies", r"\omega_j", omega, "d/2", r"$10000^{-2j/d}$, from 1 down to $10^{-3.75}\approx1.8\cdot10^{-4}$"),
    ("shift map", "M_k", M, "d d", f"k = {k}; independent of p"),
]))

loop = np.array([[math.sin(p / 10000 ** (2 * (i // 2) / d)) if i % 2 == 0 else
                  math.cos(p / 10000 ** (2 * (i // 2) / d)) for i in range(d)] for p in range(T)])
print(check_close("esm.sinusoidal_positions vs math.sin / math.cos entry by entry", PE, loop,
                  atol=1e-12, eq="sinusoidal"))
print(check_close(f"PE_(p+{k}) = M_{k} PE_p for every p = 0..{T - k - 1} (one matrix for all p)",
                  PE[:-k] @ M.T, PE[k:], atol=1e-12, eq="pe-shift"))
far = sinusoidal_positions(5000 + k + 1, d)
print(check_close(f"the same M_{k} works far outside the table: PE_(5000+{k}) = M_{k} PE_5000",
                  M @ far[5000], far[5000 + k], atol=1e-9))
print(check_close("M_k is orthogonal: the shift preserves norms", M @ M.T, np.eye(d), atol=1e-12))

offsets = np.arange(T)
closed = np.array([np.sum(np.cos(m * omega)) for m in offsets])      # sum_j cos(m omega_j)
pairs = [(p, m) for m in range(12) for p in range(T - m)]            # every p, offsets m = 0..11
dots = np.array([PE[p] @ PE[p + m] for p, m in pairs])
print(check_close(f"PE_p . PE_(p+m) = sum_j cos(m omega_j) for all {len(pairs)} pairs (p, m), m < 12",
                  dots, np.array([closed[m] for _, m in pairs]), atol=1e-12, eq="pe-dot"))

fig, (ax, cax) = figure(1, 2, size=(6.4, 3.0), gridspec_kw={"width_ratios": [30, 1]})
im = ax.imshow(PE.T, aspect="auto", cmap="RdBu_r", vmin=-1, vmax=1, origin="lower")
ax.set_xlabel("position p")
ax.set_ylabel("coordinate i")
ax.grid(False)
cb = fig.colorbar(im, cax=cax)                    # a styled axes, so its labels follow the scheme
cb.outline.set_visible(False)                     # the outline alone would be drawn in pure black
print(svg(fig, alt="Heatmap of the sinusoidal position table: fast oscillations in the first coordinates, "
          "slow ones in the last", caption=f"$\\mathrm{{PE}}$ for $T={T}$, $d={d}$: low coordinates turn fast, high "
          "ones slowly."))

fig, ax = figure(size=(6.4, 2.5))
ax.plot(offsets, closed, color=PALETTE[0])
ax.set_xlabel("offset m")
ax.set_ylabel(r"$PE_p \cdot PE_{p+m}$")
print(svg(fig, alt="Line plot of the dot product of two position vectors against their offset, falling from 16",
          caption="The dot product of two encodings depends on their offset only; it is largest at $m=0$."))
