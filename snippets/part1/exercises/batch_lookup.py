"""Exercise: batch lookup, its shapes, one number, and the rows the gradient touches."""
import numpy as np

from esm import check_close, check_equal, glue, numerical_grad, shape_table

V, d = 6, 4
E = np.arange(V * d, dtype=float).reshape(V, d) / 10    # row i is (4i, 4i+1, 4i+2, 4i+3) / 10
ids = np.array([[1, 4, 4], [0, 5, 2]])
B, T = ids.shape
X = E[ids]

print(shape_table({"B": B, "T": T, "V": V, "d": d}, [
    ("ids", r"\mathbf i", ids, "B T", "integers in 0..5"),
    ("table", "E", E, "V d", f"{E.size} parameters"),
    ("looked-up rows", "X", X, "B T d", r"$X_{n,t,:}=E_{i_{nt},:}$"),
]))
loop = np.array([[E[ids[n, t]] for t in range(T)] for n in range(B)])
print(check_close("X equals a loop over (n, t)", X, loop, atol=0.0))
row = ids[1, 1]
by_hand = [(4 * row + j) / 10 for j in range(d)]                 # the rule that defines the table
print(check_close("(a) X[1, 1, :] is the row the rule gives for id 5", X[1, 1], by_hand, atol=1e-12))
# (b) by finite differences of a loss that reads the batch: which rows get a gradient?
C = np.random.default_rng(101).normal(0.0, 1.0, X.shape)
grad = numerical_grad(lambda table: float(np.sum(C * table[ids])), E.copy())
moved = [int(i) for i in np.flatnonzero(np.abs(grad).max(axis=1) > 1e-9)]
print(check_equal("(b) the rows with a gradient are exactly the ids in the batch", moved,
                  sorted({int(i) for i in ids.ravel()})))
print(check_close("(b) row 4, read twice, gets the sum of its two positions' gradients", grad[4],
                  C[0, 1] + C[0, 2], atol=1e-7))
print(glue("e1_row", by_hand, ".1f"), glue("e1_sum", float(X[1, 1].sum()), ".1f"), glue("e1_moved", moved),
      glue("e1_unused", int(*sorted(set(range(V)) - set(moved)))), glue("e1_acts", X.size), sep="")
