"""Exercise 10.3: cosine similarities of a query to five rows, and its two nearest rows."""
import numpy as np

from esm import check_close, check_equal, cosine_matrix, shape_table, table, top_k

E = np.array([[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 2.0], [3.0, 3.0, 0.5], [-1.0, 0.0, 0.0]])
q = np.array([2.0, 1.0, 0.0])
cos = cosine_matrix(q[None], E)[0]
print(shape_table({"V": 5, "d": 3}, [
    ("table", "E", E, "V d", "five rows"), ("query", r"\mathbf q", q, "d", ""),
    ("cosines", "", cos, "V", r"$\cos(\mathbf q,E_{i,:})$"),
]))
# Independent: by hand, cos = q.e / (|q| |e|) with |q| = sqrt(5).
hand = np.array([2 / np.sqrt(5), 3 / (np.sqrt(5) * np.sqrt(2)), 0.0,
                 9 / (np.sqrt(5) * np.sqrt(18.25)), -2 / np.sqrt(5)])
print(check_close("(b) cosines match the hand computation", cos, hand, atol=1e-12))
print(table(("row", "cosine", "dot"), [(i, f"{cos[i]:.4f}", f"{E[i] @ q:.2f}") for i in range(5)]))
print(check_equal("(b) top-2 by cosine: rows 1 and 3 (0.9487, 0.9422)", [int(i) for i in top_k(cos, 2)], [1, 3]))
print(check_equal("(c) top-1 by dot product is row 3 (dot 9.0), the longest row", int(top_k(E @ q, 1)[0]), 3))
