"""Try this: in exercise 4, measure from the mean row of the table instead of from zero: subtract it from every
row and from the query. Distances do not depend on where the origin is, so the distance ranking stays, but the
angles do: by cosine, row 3 now comes first instead of row 1."""
import numpy as np

from esm import check_equal, check_true, cosine_matrix

E0 = np.array([[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 2.0], [3.0, 3.0, 0.5], [-1.0, 0.0, 0.0]])
q0 = np.array([2.0, 1.0, 0.0])
origin = E0.mean(axis=0)                 # changed: was the zero vector, the origin of exercise 4
E, q = E0 - origin, q0 - origin


def rankings(E, q):
    """Rows ordered by cosine with q (largest first) and by distance to q (smallest first)."""
    cos = cosine_matrix(q[None], E)[0]
    dist = np.linalg.norm(E - q, axis=1)
    return np.argsort(-cos, kind="stable").tolist(), np.argsort(dist, kind="stable").tolist(), cos


by_cos0, by_dist0, cos0 = rankings(E0, q0)
by_cos, by_dist, cos = rankings(E, q)
print(f"origin {np.round(origin, 2).tolist()};  by cosine {by_cos0} -> {by_cos};  by distance {by_dist0} -> {by_dist}")
print(check_equal("the distance ranking of the five rows is unchanged", by_dist, by_dist0))
print(check_equal("while by cosine the first row changes, from row 1 (measured from zero) to row 3", [by_cos0[0], by_cos[0]],
                  [1, 3]))
print(check_true("row 3 now beats row 1 by cosine, where it lost before",
                 cos[3] > cos[1] and cos0[3] < cos0[1],
                 f"from zero: cos_1 {cos0[1]:.4f}, cos_3 {cos0[3]:.4f}; from the mean row: cos_1 {cos[1]:.4f}, "
                 f"cos_3 {cos[3]:.4f}"))
