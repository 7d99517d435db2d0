"""Exercise: cosine similarities of a query to five rows, and its two nearest rows."""
import numpy as np

from esm import check_close, check_equal, cosine_matrix, glue, shape_table, table, top_k

E = np.array([[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 2.0], [3.0, 3.0, 0.5], [-1.0, 0.0, 0.0]])
q = np.array([2.0, 1.0, 0.0])
cos = cosine_matrix(q[None], E)[0]
print(shape_table({"V": 5, "d": 3}, [
    ("table", "E", E, "V d", "five rows"), ("query", r"\mathbf q", q, "d", ""),
    ("cosines", "", cos, "V", r"$\cos(\mathbf q,E_{i,:})$"),
]))
# Independent: by hand, cos = q.e / (|q| |e|) with |q| = sqrt(5) and |E_3| = sqrt(9 + 9 + 1/4).
hand = np.array([2 / np.sqrt(5), 3 / (np.sqrt(5) * np.sqrt(2)), 0.0,
                 9 / (np.sqrt(5) * np.sqrt(73 / 4)), -2 / np.sqrt(5)])
print(check_close("(b) cosines match the hand computation", cos, hand, atol=1e-12))
print(table(("row", "cosine", "dot"), [(i, f"{cos[i]:.4f}", f"{E[i] @ q:.2f}") for i in range(5)]))
top2 = [int(i) for i in top_k(cos, 2)]
print(check_equal("(b) top-2 by cosine, against a sort of the hand-computed cosines", top2,
                  [int(i) for i in np.argsort(-hand)[:2]]))
dots = [sum(a * b for a, b in zip(row, q)) for row in E]                # by a loop
print(check_equal("(a) top-1 by dot product (vectorised vs a loop) is row 3", [int(top_k(E @ q, 1)[0]), int(np.argmax(dots))],
                  [3, 3]))
print(check_equal("(a) row 3 is also the longest row (norms by a loop)", int(np.argmax([sum(x * x for x in row) for row in E])), 3))
print(glue("e3_cos", cos, ".4f"), glue("e3_top2", top2), glue("e3_dot_best", float(max(dots)), ".1f"),
      glue("e3_dot_row1", float(dots[1]), ".1f"), glue("e3_norm3", float(np.linalg.norm(E[3])), ".2f"),
      glue("e3_dot_winner", int(np.argmax(dots))), glue("e3_cos_winner", top2[0]), glue("e3_cos3", float(cos[3]), ".2f"), sep="")
