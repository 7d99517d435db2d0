"""6.2 Sinusoidal encodings: a fixed table whose shift by k is one linear map, the same at every p."""
import math

import numpy as np

from esm import PALETTE, check_close, figure, glue, shape_table, shift_map, sinusoidal_positions, svg

# By hand first: one pair turning a quarter turn per position (a toy frequency omega = pi/2, not the
# transformer's), so every entry is 0, 1 or -1.
def tex(M):
    """A small integer matrix or vector as LaTeX, for the prose."""
    M = np.atleast_2d(M)
    return r"\begin{bmatrix}" + r"\\".join("&".join(str(int(v)) for v in row) for row in M) + r"\end{bmatrix}"


w_toy = math.pi / 2
pe_toy = np.array([[math.sin(w_toy * t), math.cos(w_toy * t)] for t in range(5)])
by_hand = np.array([[0, 1], [1, 0], [0, -1], [-1, 0], [0, 1]])      # (sin, cos) of 0, 90, 180, 270, 360 degrees
print(check_close("by hand: PE_t for t = 0..4 at a quarter turn per position vs math.sin / math.cos",
                  pe_toy, by_hand, atol=1e-12))
M1_toy = np.array([[0, 1], [-1, 0]])                                 # the block of M_k at k omega = pi/2, by hand
M1_formula = np.array([[math.cos(w_toy), math.sin(w_toy)], [-math.sin(w_toy), math.cos(w_toy)]])
print(check_close("by hand: M_1 = [[0, 1], [-1, 0]] vs the block of the formula at k omega = pi/2",
                  M1_toy, M1_formula, atol=1e-12))
print(check_close("by hand: M_1 PE_t = PE_(t+1) for t = 0..3 (integer arithmetic)", by_hand[:-1] @ M1_toy.T,
                  by_hand[1:], atol=0, eq="pe-shift"))
dots_toy = [int(by_hand[0] @ by_hand[kk]) for kk in range(4)]
print(check_close("by hand: PE_0 . PE_k = cos(k pi/2) for k = 0..3", dots_toy,
                  [math.cos(kk * w_toy) for kk in range(4)], atol=1e-12, eq="pe-dot"))
print(glue("pe_toy", ", ".join(f"$({a},{b})$" for a, b in by_hand[:3]) + " and $({},{})$".format(*by_hand[3])),
      glue("M1_toy", f"$M_1={tex(M1_toy)}$"), glue("dots_toy", dots_toy))

T, d, k, t_far = 64, 32, 5, 5000
PE = sinusoidal_positions(T, d)
omega = 10000.0 ** (-np.arange(0, d, 2) / d)     # one frequency per pair (2j, 2j+1)




M = shift_map(k, d)

print(shape_table({"T": T, "d": d, "d/2": d // 2}, [
    ("position table", r"\mathrm{PE}", PE, "T d", r"row $t$ encodes position $t$"),
    ("frequencies", r"\omega_j", omega, "d/2", rf"$10000^{{-2j/d}}$, from 1 down to {omega[-1]:.1e}"),
    ("shift map", "M_k", M, "d d", f"k = {k}; independent of t"),
]))

loop = np.array([[math.sin(t / 10000 ** (2 * (i // 2) / d)) if i % 2 == 0 else
                  math.cos(t / 10000 ** (2 * (i // 2) / d)) for i in range(d)] for t in range(T)])
print(check_close("esm.sinusoidal_positions vs math.sin / math.cos entry by entry", PE, loop,
                  atol=1e-12, eq="sinusoidal"))
print(check_close(f"PE_(t+{k}) = M_{k} PE_t for every t = 0..{T - k - 1} (one matrix for all t)",
                  PE[:-k] @ M.T, PE[k:], atol=1e-12, eq="pe-shift"))
far = sinusoidal_positions(t_far + k + 1, d)
print(check_close(f"the same M_{k} works far outside the table: PE_({t_far}+{k}) = M_{k} PE_{t_far}",
                  M @ far[t_far], far[t_far + k], atol=1e-9))
print(check_close("M_k is orthogonal: the shift preserves norms", M @ M.T, np.eye(d), atol=1e-12))
# Why M_k looks like the transpose of RoPE's R(alpha) = [[cos, -sin], [sin, cos]]: the pair is stored (sin, cos).
# Reorder every pair of the table to (cos, sin) and apply R(k omega_j), built from its own formula, pair by pair.
cos_sin = np.stack([PE[:, 1::2], PE[:, 0::2]], axis=-1)              # (T, d/2, 2): (cos, sin) per pair
R = np.array([[[math.cos(k * w), -math.sin(k * w)], [math.sin(k * w), math.cos(k * w)]] for w in omega])
print(check_close(f"in (cos, sin) order the shift by {k} is R(k omega_j) of 6.4 for every pair and every t",
                  np.einsum("jab,tjb->tja", R, cos_sin[:-k]), cos_sin[k:], atol=1e-12, eq="pe-shift"))

offsets = np.arange(T)
closed = np.array([np.sum(np.cos(o * omega)) for o in offsets])      # sum_j cos(k omega_j) for offset k = o
pairs = [(t, o) for o in range(12) for t in range(T - o)]            # every t, offsets 0..11
dots = np.array([PE[t] @ PE[t + o] for t, o in pairs])
print(check_close(f"PE_t . PE_(t+k) = sum_j cos(k omega_j) for all {len(pairs)} pairs (t, k), k < 12",
                  dots, np.array([closed[o] for _, o in pairs]), atol=1e-12, eq="pe-dot"))
sq = (PE ** 2).sum(axis=1)
print(check_close("every PE_t has squared norm d/2 (sin^2 + cos^2 = 1 per pair)", sq, np.full(T, d / 2), atol=1e-12))
print(glue("d_pe", d), glue("period0", 2 * math.pi / omega[0], ".1f"),
      glue("period_last", 2 * math.pi / omega[-1], ",.0f"), glue("sq_norm", sq.mean(), ".0f"))

fig, (ax, cax) = figure(1, 2, size=(6.4, 3.0), gridspec_kw={"width_ratios": [30, 1]})
im = ax.imshow(PE.T, aspect="auto", cmap="RdBu_r", vmin=-1, vmax=1, origin="lower")
ax.set_xlabel("position t")
ax.set_ylabel("coordinate i")
ax.grid(False)
cb = fig.colorbar(im, cax=cax)                    # a styled axes, so its labels follow the scheme
cb.outline.set_visible(False)                     # the outline alone would be drawn in pure black
print(svg(fig, alt=f"Heatmap of the {T} x {d} sinusoidal position table, positions across, coordinates up: the first "
          f"pair turns with period {2 * math.pi / omega[0]:.1f} positions, the last with period "
          f"{2 * math.pi / omega[-1]:,.0f}, so the top rows look constant over {T} positions", caption=f"$\\mathrm{{PE}}$ for $T={T}$, $d={d}$: low coordinates turn fast, high "
          "ones slowly."))

fig, ax = figure(size=(6.4, 2.5))
ax.plot(offsets, closed, color=PALETTE[0])
ax.set_xlabel("offset k")
ax.set_ylabel(r"$PE_t \cdot PE_{t+k}$")
print(svg(fig, alt=f"Line plot of the dot product of two position vectors against their offset k = 0 to {T - 1}: "
          f"{closed[0]:.0f} at k = 0, falling to {closed[1:].min():.1f} at k = {int(np.argmin(closed[1:])) + 1}",
          caption="The dot product of two encodings depends on their offset only; it is largest at $k=0$."))
