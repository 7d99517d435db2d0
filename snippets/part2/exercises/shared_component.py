"""Exercise: the cosine of two rows that share a component m, as a function of its norm c."""
import numpy as np

from esm import check_close, check_true, cosine, glue

# (a) and (c): u and v of length r = 3, orthogonal; m = c e_3 orthogonal to both.
u = np.array([1.0, 2.0, 2.0, 0.0])
v = np.array([2.0, 1.0, -2.0, 0.0])
e3 = np.array([0.0, 0.0, 0.0, 1.0])
r, gamma = 3.0, 0.0
cs = [0.0, 1.5, 3.0, 6.0]
direct = [cosine(u + c * e3, v + c * e3) for c in cs]                  # from the vectors themselves
closed = [(gamma * r**2 + c**2) / (r**2 + c**2) for c in cs]             # the formula of (a)
print(check_close("(a) premises: |u| = |v| = 3, u and v orthogonal, m orthogonal to both (loops)",
                  [sum(x * x for x in u) ** 0.5, sum(x * x for x in v) ** 0.5, sum(a * b for a, b in zip(u, v)),
                   u @ e3, v @ e3], [3.0, 3.0, 0.0, 0.0, 0.0], atol=1e-12))
print(check_close("(a), (c) cos(u + m, v + m) = (gamma r^2 + c^2) / (r^2 + c^2) at c = 0, 3/2, 3, 6",
                  direct, closed, atol=1e-12))
c90 = np.sqrt(0.9 * r**2 / 0.1)                                         # solve c^2 / (9 + c^2) = 0.9
print(check_close("(c) the norm that lifts the cosine to 0.9, from the vectors", cosine(u + c90 * e3, v + c90 * e3),
                  0.9, atol=1e-12))
# (c) halving the gap to 1: c(eps) = 3 sqrt((1 - eps)/eps); from the vectors, by bisection on c, at eps = 1/10 and 1/20,
# and the ratio c(eps/2)/c(eps) against sqrt(2 (1 - eps/2)/(1 - eps)), tending to sqrt 2.


def c_for(target):
    lo, hi = 0.0, 1e6
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cosine(u + mid * e3, v + mid * e3) < target else (lo, mid)
    return (lo + hi) / 2


c95 = c_for(0.95)
print(check_close("(c) bisection on the vectors: c = 9 at cosine 9/10 and 3 sqrt 19 at 19/20", [c_for(0.9), c95],
                  [9.0, 3 * np.sqrt(19)], atol=1e-9))
eps_s = np.array([0.1, 0.01, 1e-4])
ratios = [c_for(1 - e / 2) / c_for(1 - e) for e in eps_s]
print(check_close("(c) halving eps multiplies c by sqrt(2 (1 - eps/2)/(1 - eps)) (bisection vs formula, eps = 1/10, 1/100, 1/10000)",
                  ratios, np.sqrt(2 * (1 - eps_s / 2) / (1 - eps_s)), atol=1e-6))
print(check_true("(c) ... which falls towards sqrt 2", bool(np.all(np.diff(ratios) < 0) and abs(ratios[-1] - np.sqrt(2)) < 1e-4),
                 f"{ratios[0]:.4f}, {ratios[1]:.4f}, {ratios[2]:.4f}"))
# (c) tilted: m = c (1, 1, 0, 1)/sqrt 3, so m.u = m.v = sqrt 3 c; cosine y / (9 + y), y = c^2 + 2 sqrt 3 c; 0.9 at y = 81.
tilt = np.array([1.0, 1.0, 0.0, 1.0]) / np.sqrt(3)
c90_tilt = np.sqrt(84) - np.sqrt(3)
print(check_close("(c) tilted m: cos = y / (9 + y) with y = c^2 + 2 sqrt 3 c (vectors vs formula, c = 0, 3/2, 3, 6)",
                  [cosine(u + c * tilt, v + c * tilt) for c in cs],
                  [(c**2 + 2 * np.sqrt(3) * c) / (9 + c**2 + 2 * np.sqrt(3) * c) for c in cs], atol=1e-12))
print(check_close("(c) tilted m of norm sqrt 84 - sqrt 3 lifts the cosine to 0.9 (from the vectors)",
                  cosine(u + c90_tilt * tilt, v + c90_tilt * tilt), 0.9, atol=1e-12))
print(check_true("(c) ... which is less than the orthogonal m's norm", c90_tilt < c90, f"{c90_tilt:.3f} < {c90:g}"))
# A second pair, not orthogonal (gamma = 8/9 by hand: u . w = 2 + 4 + 2 = 8, |w| = 3), same law.
w = np.array([2.0, 2.0, 1.0, 0.0])
print(check_close("(a) with cos(u, w) = 8/9 the same law holds: (8/9 * 9 + c^2) / (9 + c^2)",
                  [cosine(u + c * e3, w + c * e3) for c in cs], [(8 + c**2) / (9 + c**2) for c in cs], atol=1e-12))

# (b) parallel rows of lengths a = 1 and b = 4: a shared component lowers their cosine from 1.
a, b = 1.0, 4.0
x, y = a * np.array([1.0, 0.0]), b * np.array([1.0, 0.0])
grid = np.linspace(0.0, 10.0, 10001)                                   # c on a grid, step 0.001
on_grid = np.array([cosine(x + c * np.array([0.0, 1.0]), y + c * np.array([0.0, 1.0])) for c in grid])
c_min, cos_min = np.sqrt(a * b), 2 * np.sqrt(a * b) / (a + b)
print(check_true("(b) every c > 0 on the grid gives a cosine below 1 (Cauchy-Schwarz, a != b)",
                 bool(np.all(on_grid[1:] < 1.0)), "c from 0.001 to 10 in steps of 0.001"))
print(check_close("(b) the grid's lowest cosine and where it falls: c = sqrt(ab), 2 sqrt(ab) / (a + b)",
                  [grid[np.argmin(on_grid)], on_grid.min()], [c_min, cos_min], atol=1e-3))
print(check_true("(b) ... and no grid point lies below the closed-form minimum",
                 bool(on_grid.min() >= cos_min - 1e-12), "every grid cosine >= 2 sqrt(ab) / (a + b), within 1e-12"))
print(glue("sc_ratio", ratios[0], ".3f"), glue("sc_c95", c95, ".2f"), glue("sc_root2", np.sqrt(2), ".3f"), glue("sc_c90", c90, "g"), glue("sc_cmin", c_min, "g"),
      glue("sc_min", cos_min, "g"), glue("sc_c90_tilt", c90_tilt, ".3f"), sep="")
