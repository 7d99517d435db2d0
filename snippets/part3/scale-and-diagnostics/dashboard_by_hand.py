"""8.3 By hand: the mean pairwise cosine of three rows, over all pairs and by the closed form."""
from fractions import Fraction

import numpy as np

from esm import check_equal, glue

E = np.array([[2, 0], [0, 3], [1, 0]])          # three rows, d = 2, norms 2, 3, 1
N = len(E)
norms = [int(round(float(np.hypot(*row)))) for row in E]     # whole numbers here
unit = [[Fraction(int(x), n) for x in row] for row, n in zip(E, norms)]


def dot(u, v):
    return sum(a * b for a, b in zip(u, v))


pairs = [dot(unit[i], unit[k]) for i in range(N) for k in range(N) if i != k]   # all N(N-1) ordered pairs
by_pairs = sum(pairs, Fraction(0)) / (N * (N - 1))
total = [sum(u[j] for u in unit) for j in range(2)]                               # sum of the unit rows
closed = (dot(total, total) - N) / (N * (N - 1))
print(f"norms {norms}; unit rows {[[str(x) for x in u] for u in unit]}; sum of unit rows {[str(x) for x in total]}")
print(check_equal("mean of the 6 pairwise cosines equals (|sum of unit rows|^2 - N) / (N(N-1)), as fractions",
                  str(by_pairs), str(closed), eq="mean-cos"))
print(glue("dbh_mean", str(closed)), glue("dbh_sumsq", int(dot(total, total))), sep="")
