"""Fix of the debugging exercise on attention scores (P4): the scores were not divided by sqrt(d_k).
With the division the same check passes."""
import math

import numpy as np

from esm import check_close, check_less, softmax

d_k, N = 64, 4000
rng = np.random.default_rng(25)
Q, K = rng.normal(0.0, 1.0, (N, d_k)), rng.normal(0.0, 1.0, (N, d_k))   # N (query, key) pairs


def check_unit_variance(scores):
    """Var(x) = 1 for x = q.k / sqrt(d_k); the sample variance of N scores has standard error
    sqrt((2 + 6/d_k) / N), so 4 standard errors is the tolerance."""
    se = math.sqrt((2 + 6 / d_k) / N)
    return check_close(f"scores of unit-variance q, k (d_k = {d_k}) have variance 1", float(np.var(scores)), 1.0,
                       atol=4 * se)


def scores_fixed(Q, K):
    return np.sum(Q * K, axis=1) / math.sqrt(Q.shape[1])


def run_fixed():
    return check_unit_variance(scores_fixed(Q, K))


print(run_fixed())
# What the bug does downstream: one query over 16 keys; the unscaled weights pile onto one key.
w_bug, w_fix = softmax(K[:16] @ Q[0]), softmax(K[:16] @ Q[0] / math.sqrt(d_k))
print(check_less("the largest weight of 16 keys is smaller with the scale than without it", float(w_fix.max()),
                 float(w_bug.max()), names=("scaled", "unscaled")))
