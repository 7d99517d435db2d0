"""Exercise: what NTK-aware scaling does to the middle pair. Its slowdown in closed form against the
frequencies of the new base, its limit sqrt(lambda), the geometric mean of all the slowdowns, and where
the slowdown crosses sqrt(lambda)."""
import math

import numpy as np

from esm import check_close, check_equal, glue, rope_angles

rows = []
for d_k, lam in ((128, 4), (128, 8), (64, 4)):
    j = np.arange(d_k // 2)
    slow = rope_angles(d_k) / rope_angles(d_k, 10000.0 * lam ** (d_k / (d_k - 2)))     # omega_j / omega'_j
    mid = d_k // 4
    # (a) the middle pair j = d_k/4 is slowed by lambda^(2 (d_k/4) / (d_k - 2)) = lambda^(d_k / (2 (d_k - 2)))
    print(check_close(f"(a) d_k = {d_k}, lambda = {lam}: the middle pair's slowdown = lambda^(d_k / (2 (d_k - 2)))",
                      slow[mid], lam ** (d_k / (2 * (d_k - 2))), atol=1e-12))
    # (b) the geometric mean over the d_k/2 pairs: exponents 2j/(d_k-2) average to 1/2
    print(check_close(f"(b) d_k = {d_k}, lambda = {lam}: the geometric mean of all the slowdowns = sqrt(lambda)",
                      math.exp(np.log(slow).mean()), math.sqrt(lam), atol=1e-12))
    # (c) the slowdown passes sqrt(lambda) between j = (d_k - 2)/4 - 1/2 and + 1/2, i.e. between pairs d_k/4 - 1 and d_k/4
    print(check_equal(f"(c) d_k = {d_k}, lambda = {lam}: the last pair slowed by less than sqrt(lambda) is d_k/4 - 1",
                      int(np.flatnonzero(slow < math.sqrt(lam))[-1]), d_k // 4 - 1))
    rows.append((d_k, lam, slow[mid]))
print(glue("p15n_mid4", rows[0][2], ".3f"), glue("p15n_mid8", rows[1][2], ".3f"), glue("p15n_sqrt8", math.sqrt(8), ".3f"),
      glue("p15n_mid64", rows[2][2], ".3f"))
