"""Fix of the debugging exercise on a position table (6.3): wrapping the index with % gave positions
4 and 5 the rows of positions 0 and 1. The fix refuses positions past the table, and the caller keeps
a window of the last T_MAX tokens; the same check now passes."""
import numpy as np

from esm import check_equal, check_true

T_MAX, d = 4, 3
P = np.arange(T_MAX * d, dtype=float).reshape(T_MAX, d)     # a learned table: one row per position 0..3


def check_positions(rows):
    """The property the model relies on: every position of the input gets its own row."""
    distinct = len({tuple(r) for r in rows})
    return check_equal(f"each of the {len(rows)} positions gets its own position row (distinct rows)", distinct, len(rows))


def positions(T):
    if T > T_MAX:
        raise ValueError(f"an input of {T} tokens is longer than the {T_MAX} positions the table was trained on")
    return P[np.arange(T)]


def embed_positions(ids):
    """The caller keeps the last T_MAX tokens (a sliding window) instead of inventing positions."""
    ids = ids[-T_MAX:]
    return ids, positions(len(ids))


def run_fixed():
    return check_positions(embed_positions(np.array([7, 3, 9, 1, 4, 2]))[1])


print(run_fixed())
ids = embed_positions(np.array([7, 3, 9, 1, 4, 2]))[0]
print(check_equal("the window keeps the last 4 tokens", ids.tolist(), [9, 1, 4, 2]))
try:
    positions(6)
    refused = False
except ValueError:
    refused = True
print(check_true("the fixed lookup refuses positions past the table instead of reusing rows", refused,
                 "positions(6) raised ValueError"))
