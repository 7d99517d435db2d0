"""8.4 By hand: five row norms, one of them loud. The plain z-score hides it; the median and
the median absolute deviation do not."""
import math
import statistics

import numpy as np

from esm import check_close, check_equal, glue, table

rho = np.array([1.0, 2.0, 2.0, 3.0, 12.0])
n = len(rho)
mean, sd = rho.mean(), rho.std()                  # population sigma, as in the formula
z = (rho - mean) / sd
med = float(np.median(rho))
mad = float(np.median(np.abs(rho - med)))
zr = (rho - med) / (1.4826 * mad)

# Independent: the pencil's numbers. Mean 20/5 = 4, squared deviations 9, 4, 4, 1, 64 -> sigma^2 = 82/5.
print(check_close("z of the loud row is (12 - 4) / sqrt(82/5) (statistics.pstdev and the pencil agree)",
                  [z[-1], sd], [8 / math.sqrt(82 / 5), statistics.pstdev(rho.tolist())], atol=1e-12, eq="zscore"))
# With n rows no z-score can exceed sqrt(n - 1): one row far out inflates the sigma that divides it.
print(check_close("the largest possible z with n = 5 rows is sqrt(n - 1) = 2, approached as the loud norm grows",
                  max(((np.r_[rho[:-1], big] - np.r_[rho[:-1], big].mean()) / np.r_[rho[:-1], big].std())[-1]
                      for big in (1e3, 1e6, 1e9)), math.sqrt(n - 1), atol=1e-6))
print(check_equal("median 2, absolute deviations 1, 0, 0, 1, 10, so MAD = 1", [med, mad], [2.0, 1.0]))
print(table(["norm", *(f"{x:g}" for x in rho)], [["plain z", *(f"{x:+.2f}" for x in z)], ["robust z", *(f"{x:+.2f}" for x in zr)]]))
print(glue("obh_z", z[-1], ".3f"), glue("obh_zr", zr[-1], ".1f"), glue("obh_zmax", math.sqrt(n - 1), "g"), sep="")
