"""Debugging exercise: a causal mask. The broken code runs; the check it fails (changing a later
token must not change an earlier output) is printed as the expected failure."""
import numpy as np

from esm import attention, check_close, check_equal, expect_failure

X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0]])   # T = 4 tokens, d = 2 (Q = K = V = X)
T = len(X)


def check_no_peeking(mask):
    """Change only the last token: the outputs at positions 0..T-2 must not move."""
    later = X.copy()
    later[-1] = [0.0, 5.0]
    before = attention(X, X, X, mask=mask)[0][:-1]
    after = attention(later, later, later, mask=mask)[0][:-1]
    return check_close("changing the last token leaves the outputs at positions 0..T-2 unchanged", after, before, atol=1e-12)


def mask_broken(T):
    return np.tril(np.ones((T, T), dtype=bool), k=1)     # True where query i may read key j


def run_broken():
    return check_no_peeking(mask_broken(T))


print(check_equal("the broken mask has the right shape and lets every position see itself (the bug is silent)",
                  (mask_broken(T).shape, bool(np.all(np.diag(mask_broken(T))))), ((T, T), True)))
print(expect_failure(run_broken))
