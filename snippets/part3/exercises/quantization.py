"""Exercise: int8 with one scale per row or one per table: which rows pay, and how much."""
import numpy as np

from esm import check_close, check_equal, check_true, glue, shape_table, share_of_seeds

V, d = 200, 64


def table_of(seed):
    rng = np.random.default_rng(seed)
    norms = np.exp(rng.normal(0.0, 0.7, (V, 1)))             # rows of unequal size
    return rng.normal(0.0, 1.0, (V, d)) * norms / np.sqrt(d)


def cosines(E, per_row):
    s = (np.abs(E).max(axis=1, keepdims=True) if per_row else np.abs(E).max()) / 127.0
    Eh = np.round(E / s) * s
    return np.sum(E * Eh, 1) / (np.linalg.norm(E, axis=1) * np.linalg.norm(Eh, axis=1) + 1e-300)


SEED = 114
E = table_of(SEED)
c_row, c_tab = cosines(E, True), cosines(E, False)
small = int(np.argmin(np.linalg.norm(E, axis=1)))
print(shape_table({"V": V, "d": d}, [("table", "E", E, "V d", "row norms spread by a log-normal factor"),
                                     ("cosines, per-row scale", "", c_row, "V", ""),
                                     ("cosines, per-table scale", "", c_tab, "V", "")]))
# (b) per-table: a row's step is the table's kappa, so its relative error grows as its norm shrinks.
# Independent bound: the kappa/2 bound caps the error vector at sqrt(d) kappa / 2, so
# cos >= sqrt(1 - (sqrt(d) kappa / (2 |x|))^2) wherever that is real.
s_tab = np.abs(E).max() / 127.0
r = np.sqrt(d) * s_tab / 2 / np.linalg.norm(E, axis=1)
ok = np.all(c_tab[r < 1] >= np.sqrt(1 - r[r < 1] ** 2) - 1e-12)
print(check_true("(b) per-table cosines respect the bound from kappa/2 on every row", ok,
                 f"smallest row: cos {c_tab[small]:.4f} >= {np.sqrt(1 - min(r[small], 1) ** 2):.4f}"))
# (a) per-row scale: kappa_i <= |x_i| / 127, so |e| / |x| <= sqrt(d) / 254 and cos >= sqrt(1 - d / 254^2), whatever the row.
floor_row = float(np.sqrt(1 - d / 254 ** 2))
print(check_true("(a) premise: sqrt(d) / 254 < 1, so the bound is real", np.sqrt(d) / 254 < 1, f"sqrt(d)/254 = {np.sqrt(d) / 254:.4f}"))
print(check_true("(a) per-row scales: every row's cosine is at least sqrt(1 - d/254^2), for the seed shown",
                 bool(c_row.min() >= floor_row), f"smallest {c_row.min():.6f} >= {floor_row:.6f}"))
print(check_true("(a) ... and over 50 seeds (a theorem; its check)",
                 all(cosines(table_of(k), True).min() >= floor_row for k in range(SEED, SEED + 50)), f"floor {floor_row:.6f}"))
# (a) the floor is not reached: kappa_i = |x|/127 needs a row with one nonzero entry, which int8 stores exactly.
one_hot_rows = np.eye(d)[:5] * np.array([[0.3], [-2.0], [7.5], [1e-3], [-40.0]])
print(check_true("(a) rows with one nonzero entry have max |x_j| = |x| (the step kappa_i = |x|/127)",
                 bool(np.all(np.abs(one_hot_rows).max(1) == np.linalg.norm(one_hot_rows, axis=1))), "five such rows"))
print(check_close("(a) ... and int8 with one scale per row keeps them: cosine 1 with the dequantised copy, within 1e-12",
                  cosines(one_hot_rows, True), np.ones(5), atol=1e-12))
print(check_true("(a) ... and every row of the seed shown stays strictly above the floor", bool(c_row.min() > floor_row),
                 f"smallest {c_row.min():.6f} > {floor_row:.6f}"))
worst_is_small = share_of_seeds(lambda k: (lambda T: int(np.argmin(cosines(T, False))) ==
                                           int(np.argmin(np.linalg.norm(T, axis=1))))(table_of(k)),
                                range(SEED, SEED + 50))
better = share_of_seeds(lambda k: (lambda T: cosines(T, True).min() > cosines(T, False).min())(table_of(k)),
                        range(SEED, SEED + 50))
print(check_equal("(c) over 50 seeds per-row scales keep a higher worst cosine than one scale per table", better, 1.0))
print(glue("e14_V", V), glue("e14_d", d), glue("e14_small_row", c_row[small], ".5f"),
      glue("e14_small_tab", c_tab[small], ".4f"), glue("e14_worst_small", worst_is_small, ".0%"),
      glue("e14_better", better, ".0%"), glue("e14_floor", floor_row, ".5f"),
      glue("e14_min_row", float(c_row.min()), ".5f"), glue("e14_span", float(np.ptp(np.log(np.linalg.norm(E, axis=1)))), ".1f"),
      sep="")
