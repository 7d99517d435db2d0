"""Debugging exercise: attention scores. The broken code runs; the check it fails (scores of
unit-variance queries and keys have variance about 1) is printed as the expected failure."""
import math

import numpy as np

from esm import check_close, check_equal, expect_failure

d_k, N = 64, 4000
rng = np.random.default_rng(25)
Q, K = rng.normal(0.0, 1.0, (N, d_k)), rng.normal(0.0, 1.0, (N, d_k))   # N (query, key) pairs


def check_unit_variance(scores):
    """Var(x) = 1 for x = q.k / sqrt(d_k); the sample variance of N scores has standard error
    sqrt((2 + 6/d_k) / N), so 4 standard errors is the tolerance."""
    se = math.sqrt((2 + 6 / d_k) / N)
    return check_close(f"scores of unit-variance q, k (d_k = {d_k}) have variance 1", float(np.var(scores)), 1.0,
                       atol=4 * se)


def scores_broken(Q, K):
    return np.sum(Q * K, axis=1)                       # q . k for each pair


def run_broken():
    return check_unit_variance(scores_broken(Q, K))


print(check_equal("the broken scores run, one per (query, key) pair (the bug is silent)", scores_broken(Q, K).shape, (N,)))
print(expect_failure(run_broken))
