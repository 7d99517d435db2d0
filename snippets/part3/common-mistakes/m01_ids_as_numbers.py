"""9.1 Token ids fed as numbers impose an order; a lookup does not."""
import numpy as np

from esm import check_close, glue, table

ids = np.array([0, 1, 2, 3])
target = np.array([1.0, -1.0, 1.0, -1.0])      # any per-token value the model should produce

# Wrong: the id as a one-number input, y = beta * id + b. Best least-squares fit of the targets.
A = np.stack([ids, np.ones(len(ids))], axis=1).astype(float)
coef, *_ = np.linalg.lstsq(A, target, rcond=None)
wrong = A @ coef
# Right: a lookup table of one trainable number per id (d = 1). A lookup is a linear layer whose
# input is one-hot (2.2), so its best table is the least-squares fit over the one-hot codes, found
# by the same solver as the line's.
onehot = (ids[:, None] == np.arange(ids.max() + 1)[None, :]).astype(float)
E, *_ = np.linalg.lstsq(onehot, target, rcond=None)
E = E[:, None]
right = E[ids, 0]

print(table(("model", "fitted values for ids 0, 1, 2, 3", "squared error"),
            [("wrong: $\\beta\\,i+b$", ", ".join(f"{v:.1f}" for v in wrong), f"{np.sum((wrong - target) ** 2):.3f}"),
             ("right: $E_{i,0}$", ", ".join(f"{v:.1f}" for v in right), f"{np.sum((right - target) ** 2):.3f}")]))
# Independent: the least-squares residual of a line in closed form, SS_yy - SS_iy^2 / SS_ii, by loops.
xm, ym = sum(ids) / len(ids), sum(target) / len(target)
Sxx = sum((x - xm) ** 2 for x in ids)
Sxy = sum((x - xm) * (y - ym) for x, y in zip(ids, target))
Syy = sum((y - ym) ** 2 for y in target)
print(check_close(f"wrong: the best line through (id, target) misses by SS_yy - SS_iy^2/SS_ii of SS_yy = {Syy:g}",
                  float(np.sum((wrong - target) ** 2)), Syy - Sxy ** 2 / Sxx, atol=1e-12))
print(check_close("right: the least-squares lookup table fits every token's value (residual at rounding level)",
                  right, target, atol=1e-12))
print(glue("m1_err", float(np.sum((wrong - target) ** 2)), ".1f"), glue("m1_total", float(Syy), ".0f"),
      glue("m1_ids", ids), sep="")
