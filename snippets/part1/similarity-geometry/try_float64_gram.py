"""Try this: run the Gram route on the two near-duplicate rows in float64 instead of float32. The rows and their
tiny distance are the same, but the error scale eps (||u||^2 + ||v||^2) is hundreds of millions of times smaller, so the
squared distance comes out right to many digits instead of wrong by any factor."""
import math

import numpy as np

from esm import check_less, check_true

rng = np.random.default_rng(33)
rng.normal(0.0, 1.0, (6, 5)), rng.uniform(0.3, 3.0, (6, 1))     # the draws of the demo's first table, not used here
d_dup = 384
u_dup = rng.normal(0.0, 1.0, d_dup)
pair32 = np.stack([u_dup, u_dup + rng.normal(0.0, 1.0, d_dup) * 1e-3 / np.sqrt(d_dup)]).astype(np.float32)
DTYPE = np.float64                                  # changed: was np.float32
pair = pair32.astype(DTYPE)                         # the same two rows, held in the new precision


def dot_in_order(a, b):
    """a . b in DTYPE, summed left to right."""
    total = DTYPE(0.0)
    for x, y in zip(a, b):
        total = DTYPE(total + x * y)
    return total


p, r = pair
gram = float(dot_in_order(p, p) + dot_in_order(r, r) - DTYPE(2.0) * dot_in_order(p, r))
exact = math.fsum((float(x) - float(y)) ** 2 for x, y in zip(pair32[0], pair32[1]))  # exact differences, fsum
scale = float(np.finfo(DTYPE).eps * (p @ p + r @ r))
scale32 = float(np.finfo(np.float32).eps * (p @ p + r @ r))
print(f"float32's error scale is {scale32 / scale:.1e} times float64's; the squared distance is "
      f"{exact / scale:.1e} times float64's error scale")
print(check_true("in float64 the Gram route gets the squared distance of the near-duplicate rows within a thousandth",
                 abs(gram - exact) < 1e-3 * exact, "|Gram route - exact| < 1e-3 x exact"))
print(check_less("because the squared distance is more than 1,000 times float64's error scale",
                 1000.0, exact / scale, names=("1,000", "squared distance / (eps64 (||u||^2 + ||v||^2))")))
