"""Try this: draw exercise 6's rows without the shared offset (MU = 1.5 to 0), and centring moves far
fewer nearest neighbours by cosine: the mean row it subtracts is now short, so the origin the cosines
are measured from hardly moves."""
import numpy as np

from esm import check_less, check_true, cosine_matrix, table

N, d = 50, 10
MU = 0.0                                          # changed: was MU = 1.5


def rows(seed, mu):
    X = np.random.default_rng(seed).normal(0.0, 1.0, (N, d)) + mu
    return X, X - X.mean(0)


def nearest_by_cosine(M):
    S = cosine_matrix(M)
    np.fill_diagonal(S, -np.inf)
    return S.argmax(axis=1)


def moved(seed, mu):
    """The share of rows whose nearest other row by cosine changes when the rows are centred, and the
    length of the mean row that centring subtracts."""
    X, Xc = rows(seed, mu)
    return float(np.mean(nearest_by_cosine(X) != nearest_by_cosine(Xc))), float(np.linalg.norm(X.mean(0)))


SEED = 105
(now, mean_now), (before, mean_before) = moved(SEED, MU), moved(SEED, 1.5)
print(table(("MU", "length of the mean row", "rows whose nearest neighbour by cosine changes"),
            [(1.5, f"{mean_before:.2f}", f"{before:.0%}"), (f"{MU:g}", f"{mean_now:.2f}", f"{now:.0%}")]))
print(check_true(f"with MU = {MU:g} the mean row is shorter than 1, against more than 4 with MU = 1.5",
                 mean_now < 1 < 4 < mean_before, f"|mean row| {mean_now:.3f} against {mean_before:.3f}"))
print(check_less(f"seed {SEED}: centring changes the nearest neighbour of fewer rows than with the offset", now, before,
                 names=(f"share at MU = {MU:g}", "share at MU = 1.5")))
