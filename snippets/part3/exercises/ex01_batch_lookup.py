"""Exercise 10.1: batch lookup, its shapes, one number, and the rows the gradient touches."""
import numpy as np

from esm import check_close, check_equal, shape_table

V, d = 6, 4
E = np.arange(V * d, dtype=float).reshape(V, d) / 10    # row i is (4i, 4i+1, 4i+2, 4i+3) / 10
ids = np.array([[1, 4, 4], [0, 5, 2]])
B, T = ids.shape
X = E[ids]

print(shape_table({"B": B, "T": T, "V": V, "d": d}, [
    ("ids", r"\mathbf i", ids, "B T", "integers in 0..5"),
    ("table", "E", E, "V d", "24 parameters"),
    ("looked-up rows", "X", X, "B T d", r"$X_{b,t,:}=E_{i_{bt},:}$"),
]))
loop = np.array([[E[ids[b, t]] for t in range(T)] for b in range(B)])
print(check_close("X equals a loop over (b, t)", X, loop, atol=0.0))
print(check_close("(b) X[1, 1, :] is row 5 = (2.0, 2.1, 2.2, 2.3); its sum is 8.6",
                  X[1, 1].sum(), (20 + 21 + 22 + 23) / 10, atol=1e-12))
used = np.unique(ids)
print(check_equal("(c) the batch reads 5 distinct rows; row 3 is never touched", [int(i) for i in used], [0, 1, 2, 4, 5]))
print(f"\nX holds B*T*d = {X.size} numbers, the table {E.size}; row 4 is read twice.")
