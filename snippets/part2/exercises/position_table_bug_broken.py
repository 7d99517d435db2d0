"""Debugging exercise: a learned position table and an input longer than it. The broken code
runs; the check it fails is printed as the expected failure."""
import numpy as np

from esm import check_equal, expect_failure

T_MAX, d = 4, 3
P = np.arange(T_MAX * d, dtype=float).reshape(T_MAX, d)     # a learned table: one row per position 0..3


def check_positions(rows):
    """The property the model relies on: every position of the input gets its own row."""
    distinct = len({tuple(r) for r in rows})
    return check_equal(f"each of the {len(rows)} positions gets its own position row (distinct rows)", distinct, len(rows))


def positions_broken(T):
    # (the modulo was added after long inputs raised an IndexError)
    return P[np.arange(T) % T_MAX]


def run_broken():
    return check_positions(positions_broken(6))


print(check_equal("the broken lookup runs on 6 tokens and returns one row per position (the bug is silent)",
                  positions_broken(6).shape, (6, d)))
print(expect_failure(run_broken))
