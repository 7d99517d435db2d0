"""Try this: number the same four tokens in another order, so that the wanted outputs read 1, 1, -1, -1 by id
instead of 1, -1, 1, -1. The best line's error drops to a quarter, though nothing about the tokens changed; the
lookup table fits both numberings exactly."""
import numpy as np

from esm import check_close

ids = np.array([0, 1, 2, 3])
A = np.stack([ids, np.ones(len(ids))], axis=1).astype(float)      # the id as a number, y = beta * id + b
onehot = np.eye(len(ids))                                         # a lookup: one trainable number per id


def squared_errors(target):
    """(best line, best lookup table): each one's squared error after its least-squares fit."""
    line = A @ np.linalg.lstsq(A, target, rcond=None)[0]
    lookup = onehot @ np.linalg.lstsq(onehot, target, rcond=None)[0]
    return float(np.sum((line - target) ** 2)), float(np.sum((lookup - target) ** 2))


before = squared_errors(np.array([1.0, -1.0, 1.0, -1.0]))
after = squared_errors(np.array([1.0, 1.0, -1.0, -1.0]))     # changed: was [1, -1, 1, -1] (the ids reassigned)
print(f"    squared error of the best line: {before[0]:.1f} before, {after[0]:.1f} after (of SS_yy = 4)")
print(check_close("the line's error depends on the numbering: SS_yy - SS_iy^2/SS_ii = 4 - 4/5 before, 4 - 16/5 after",
                  [before[0], after[0]], [4 - 4 / 5, 4 - 16 / 5], atol=1e-12))
print(check_close("the lookup table fits both numberings exactly", [before[1], after[1]], [0.0, 0.0], atol=1e-12))
