"""Try this: make the loud row of the by-hand example a hundred times louder, norm 1200 instead of 12. Its plain
z-score barely moves and stays below sqrt(n - 1) = 2, so |zeta| > 3 still misses it; its robust score grows
with the norm, (1200 - 2) / (12 - 2) times."""
import math

import numpy as np

from esm import check_close, check_true, table


def loud_scores(rho):
    """The last row's plain z-score and robust score (median and median absolute deviation)."""
    med = np.median(rho)
    return (rho[-1] - rho.mean()) / rho.std(), (rho[-1] - med) / (1.4826 * np.median(np.abs(rho - med)))


z, zr = loud_scores(np.array([1.0, 2.0, 2.0, 3.0, 12.0]))
z_new, zr_new = loud_scores(np.array([1.0, 2.0, 2.0, 3.0, 1200.0]))    # changed: was 12.0
print(table(["loud norm", "plain z", "robust z"],
            [("12", f"{z:.3f}", f"{zr:.1f}"), ("1200", f"{z_new:.6f}", f"{zr_new:.1f}")]))
print(check_true("norm 1200: the plain z-score is still below sqrt(n - 1) = 2, so |zeta| > 3 misses it",
                 z_new < math.sqrt(5 - 1), f"plain z {z_new:.6f}, up from {z:.3f}"))
print(check_close("the robust score grows (1200 - 2) / (12 - 2) = 119.8 times", zr_new / zr, 119.8, atol=1e-9))
