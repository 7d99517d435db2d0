"""P6 GELU: exact (x times the normal CDF) and GPT-2's tanh approximation, side by side."""
import math
from statistics import NormalDist

import numpy as np

from esm import GELU_C, check_close, check_less, check_true, figure, gelu, gelu_tanh, glue, svg

xs = np.linspace(-6, 6, 120_001)                    # step 1e-4
exact, approx = gelu(xs), gelu_tanh(xs)
diff = np.abs(exact - approx)
i = int(np.argmax(diff))
x_star, gap = float(xs[i]), float(diff[i])
print(glue("gelu_c", GELU_C, ".6f"), glue("gelu_gap", gap, ".1e"), glue("gelu_x", abs(x_star), ".2f"))

# Independent route for the exact form: Phi from the standard library's NormalDist.
grid = np.linspace(-6, 6, 241)
print(check_close("GELU(x) = x Phi(x), Phi from statistics.NormalDist, on 241 points of [-6, 6]", gelu(grid),
                  [x * NormalDist().cdf(x) for x in grid], eq="gelu", atol=1e-15))
tanh_loop = [0.5 * x * (1 + math.tanh(math.sqrt(2 / math.pi) * (x + GELU_C * x ** 3))) for x in grid]
print(check_close("the tanh form with math.tanh, point by point", gelu_tanh(grid), tanh_loop, eq="gelu-tanh", atol=1e-15))
# The largest gap, refined on a grid 100 times finer around it: the coarse grid found it to 1 %.
fine = np.linspace(x_star - 1e-3, x_star + 1e-3, 2001)
fine_gap = float(np.abs(gelu(fine) - gelu_tanh(fine)).max())
print(check_close("largest |GELU - tanh form| on [-6, 6], against a 100x finer grid near it", gap, fine_gap, rtol=0.01, atol=0))
tail = float(np.abs(gelu(np.array([-6.0, 6.0])) - gelu_tanh(np.array([-6.0, 6.0]))).max())
print(check_true("far out the two agree (both tend to ReLU): the gap at |x| = 6 is tiny", tail < gap / 100,
                 f"gap at 6 = {tail:.1e} < largest gap / 100 = {gap / 100:.1e}"))
dip, x_dip = float(exact.min()), float(xs[np.argmin(exact)])
print(glue("gelu_min", dip, ".3f"), glue("gelu_argmin", x_dip, ".2f"))
print(check_less("unlike ReLU, GELU dips below zero for negative inputs", dip, 0.0, names=("min GELU", "0")))

fig, (ax, ax2) = figure(1, 2, size=(7.4, 2.8))
ax.plot(xs, np.maximum(xs, 0), lw=1.0, ls=":", label="ReLU")
ax.plot(xs, exact, lw=2.6, label="GELU, exact")
ax.plot(xs, approx, lw=1.2, ls="--", label="tanh form (GPT-2)")
ax.set_xlim(-4, 3)
ax.set_ylim(-0.5, 3)
ax.set_xlabel("$x$")
ax.legend(fontsize=8, loc="upper left")
ax2.plot(xs, (approx - exact) * 1e4)
ax2.set_xlim(-6, 6)
ax2.set_xlabel("$x$")
ax2.set_ylabel("tanh form $-$ exact ($\\times10^{-4}$)")
print(svg(fig, alt=f"Left: GELU, its tanh approximation and ReLU; the two GELU curves coincide and dip below zero "
          f"near x = {x_dip:.2f}. Right: their difference, largest in size ({gap:.1e}) near |x| = {abs(x_star):.2f}",
          caption=f"GELU and GPT-2's tanh form are indistinguishable at plot scale (left); their difference "
                  f"(right) is largest in size at $\\lvert x\\rvert={abs(x_star):.2f}$, where it is {gap:.1e}."))
