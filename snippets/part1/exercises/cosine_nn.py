"""Exercise: cosine similarities of a query to five rows, its two nearest rows, how far a row must be
stretched to win by dot product, and which pairs of rows the two rankings order differently."""
import numpy as np

from esm import check_close, check_equal, check_true, cosine_matrix, glue, shape_table, table, top_k

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
# (b) can cosine rank row 3 above row 1 while the dot product ranks it below? Only if cos_3 <= 0 (proof in the
# solution); the query -(1, 1, 0) does it, and a random search finds no split query with a positive cosine to row 3.
q_neg = -np.array([1.0, 1.0, 0.0])
c_neg = cosine_matrix(q_neg[None], E)[0]
print(check_true("(b) the query -(1, 1, 0): row 3 above row 1 by cosine, below it by dot product",
                 bool(c_neg[3] > c_neg[1] and E[3] @ q_neg < E[1] @ q_neg),
                 f"cosines {c_neg[3]:.4f} > {c_neg[1]:.4f}, dots {E[3] @ q_neg:g} < {E[1] @ q_neg:g}"))
N_RAND = 100_000
Q = np.random.default_rng(3).normal(size=(N_RAND, 3))
Cq = cosine_matrix(Q, E[[1, 3]])
split = (Cq[:, 1] > Cq[:, 0]) & (Q @ E[3] < Q @ E[1])
print(check_true("(b) random queries that split the rankings of rows 1 and 3: some exist, and all have both cosines <= 0",
                 bool(split.any() and np.all(Cq[split] <= 0)), f"{int(split.sum())} of {N_RAND:,} queries split them"))
# (a) stretch row 1 by s: its dot product becomes s (E_1 . q), its cosine does not change.
stretch = dots[3] / dots[1]
for s_try, wins in ((0.99 * stretch, False), (1.01 * stretch, True)):
    F = E.copy()
    F[1] *= s_try
    print(check_equal(f"(a) stretched by {s_try:.2f}, row 1 {'wins' if wins else 'does not win'} by dot product",
                      int(top_k(F @ q, 1)[0]) == 1, wins))
    print(check_close(f"(a) ... and its cosine is unchanged", cosine_matrix(q[None], F)[0][1], cos[1], atol=1e-12))
# (a) by Euclidean distance: row 1 stretched by s stays nearest while 2 s^2 - 6 s + 3 < 0, s in ((3 - sqrt 3)/2, (3 + sqrt 3)/2).
lo, hi = (3 - np.sqrt(3)) / 2, (3 + np.sqrt(3)) / 2
grid = np.linspace(0.01, 5.0, 4991)


def nearest_by_distance(s_try):
    F = E.copy()
    F[1] *= s_try
    return int(np.argmin(np.linalg.norm(F - q, axis=1)))


scan = np.array([nearest_by_distance(s_) == 1 for s_ in grid])
inside = grid[scan]
print(check_close("(a) a scan of s in steps of 1/1000: row 1 is nearest by distance from (3 - sqrt 3)/2 to (3 + sqrt 3)/2, "
                  "in one stretch", [inside[0], inside[-1], len(inside)],
                  [lo, hi, int(np.sum((grid > lo) & (grid < hi)))], atol=1e-3))
print(check_true("(a) the distance range ends below the dot-product threshold: no stretch wins both", hi < stretch,
                 f"distance up to {hi:.3f}, dot product from {stretch:.3f}"))
# (c) pairs (u, v) that u wins by dot and v by cosine, by comparing the rankings, and by the derived condition
# 1 < cos_v / cos_u < |u| / |v| (rows with positive cosine only).
norms = np.linalg.norm(E, axis=1)
pos = [i for i in range(5) if cos[i] > 0]
by_ranking = [(u, v) for u in pos for v in pos if dots[u] > dots[v] and cos[v] > cos[u]]
by_condition = [(u, v) for u in pos for v in pos if u != v and 1 < cos[v] / cos[u] < norms[u] / norms[v]]
print(check_equal("(c) the disagreeing pairs found by both rankings are those the condition predicts", by_ranking,
                  by_condition))
u, v = by_ranking[0]
print(glue("e3_cos", cos, ".4f"), glue("e3_top2", top2), glue("e3_dot_best", float(max(dots)), ".1f"),
      glue("e3_dot_row1", float(dots[1]), ".1f"), glue("e3_dot_winner", int(np.argmax(dots))),
      glue("e3_stretch", stretch, ".0f"), glue("e3_pairs", " and ".join(f"({a}, {b})" for a, b in by_ranking)),
      glue("e3_cratio", cos[v] / cos[u], ".4f"), glue("e3_nratio", norms[u] / norms[v], ".3f"),
      glue("e3_dist_hi", hi, ".3f"), glue("e3_neg_cos3", c_neg[3], ".4f"), glue("e3_neg_dot3", float(E[3] @ q_neg), "g"),
      glue("e3_neg_dot1", float(E[1] @ q_neg), "g"), glue("e3_n_rand", N_RAND, ","), sep="")
