"""Exercise: the lower bound -1/(N-1) on a mean pairwise cosine, where centred rows land against
it, and which nearest neighbours centring can move (for the seed shown and over 50 seeds)."""
import numpy as np

from esm import (check_close, check_equal, check_less, check_true, cosine, cosine_matrix, glue, mean_pairwise_cosine,
                 shape_table)

N, d, MU = 50, 10, 1.5


def rows(seed):
    X = np.random.default_rng(seed).normal(0.0, 1.0, (N, d)) + MU
    return X, X - X.mean(0)


def mean_cos_loop(M):
    vals = [cosine(M[i], M[j]) for i in range(len(M)) for j in range(len(M)) if i != j]
    return sum(vals) / len(vals)


def nearest(M, by):
    """Each row's nearest other row, by cosine, by dot product or by Euclidean distance."""
    if by == "cosine":
        S = cosine_matrix(M)
    elif by == "dot":
        S = M @ M.T
    else:
        S = -np.linalg.norm(M[:, None, :] - M[None, :, :], axis=2)
    np.fill_diagonal(S, -np.inf)
    return S.argmax(axis=1)


SEED = 105
X, Xc = rows(SEED)
print(shape_table({"N": N, "d": d}, [("rows", "X", X, "N d", f"shared mean ({MU:g}, ..., {MU:g})"),
                                     ("centred", "X_c", Xc, "N d", "column means removed")]))
before, after = mean_pairwise_cosine(X), mean_pairwise_cosine(Xc)
print(check_close("(b) before centring: closed form equals the pair loop", before, mean_cos_loop(X), atol=1e-12))
print(check_close("(b) after centring: closed form equals the pair loop", after, mean_cos_loop(Xc), atol=1e-12))
floor = -1 / (N - 1)
# (a) the bound: |sum of unit vectors|^2 >= 0. Equality case: N unit vectors summing to zero (a regular simplex's
# vertices, built here by centring the standard basis of R^N and normalising).
S = np.eye(N) - 1 / N
S /= np.linalg.norm(S, axis=1, keepdims=True)
print(check_close("(a) equality: N unit vectors that sum to zero have mean cosine -1/(N-1) (pair loop)", mean_cos_loop(S),
                  floor, atol=1e-12))
# (a) equality in d = 2 already: N unit vectors spaced evenly round a circle sum to zero.
ang = 2 * np.pi * np.arange(N) / N
ring = np.column_stack([np.cos(ang), np.sin(ang)])
print(check_close("(a) equality in d = 2: N evenly spaced unit vectors in a plane have mean cosine -1/(N-1) (pair loop)",
                  mean_cos_loop(ring), floor, atol=1e-12))
# (a) in d = 1: unit vectors are +-1; the least mean cosine over all sign patterns is -1/(N-1) for even N, -1/N for odd N.
N1_HI = 9
least = [min(mean_cos_loop(np.array(signs, dtype=float)[:, None])
             for signs in np.array(np.meshgrid(*[[-1, 1]] * n)).T.reshape(-1, n)) for n in range(2, N1_HI + 1)]
print(check_close("(a) d = 1: least mean cosine over every sign pattern is -1/(N-1) for even N, -1/N for odd N (N = 2..9)",
                  least, [-1 / (n - 1) if n % 2 == 0 else -1 / n for n in range(2, N1_HI + 1)], atol=1e-12))
unit_sum = np.linalg.norm((Xc / np.linalg.norm(Xc, axis=1, keepdims=True)).sum(0))
print(check_less("(b) the centred rows stay above the bound (their unit vectors do not sum to zero)", floor, after,
                 names=("-1/(N-1)", "mean cosine")))
print(check_close("(b) gap above the bound = |sum of unit vectors|^2 / (N(N-1))", after - floor,
                  unit_sum ** 2 / (N * (N - 1)), atol=1e-12))
# (c) Euclidean nearest neighbours are the same before and after centring (translation invariance, every draw);
# cosine nearest neighbours move, by an amount that depends on the draw.
print(check_equal("(c) Euclidean nearest neighbours are unchanged by centring (seed shown)", nearest(X, "euclid").tolist(),
                  nearest(Xc, "euclid").tolist()))
moved_cos = float(np.mean(nearest(X, "cosine") != nearest(Xc, "cosine")))
moved_dot = float(np.mean(nearest(X, "dot") != nearest(Xc, "dot")))
xbar = X.mean(0)
shift = [(Xc[i] @ Xc[j]) - (X[i] @ X[j] - xbar @ X[j]) for i in (0, 7) for j in (3, 11, 20)]
print(check_close("(c) centred dot = raw dot - xbar . x_j + a term of i alone (the same for every j)",
                  [shift[0]] * 3 + [shift[3]] * 3, shift, atol=1e-10))
seeds = range(SEED, SEED + 50)
stats = [(mean_pairwise_cosine(A), mean_pairwise_cosine(Ac), float(np.mean(nearest(A, "cosine") != nearest(Ac, "cosine"))))
         for A, Ac in (rows(s) for s in seeds)]
print(check_true("(b) over 50 seeds the centred mean cosine is above -1/(N-1) every time (a theorem; its check)",
                 all(s[1] > floor for s in stats), f"smallest gap {min(s[1] - floor for s in stats):.2e}"))
print(glue("e5_N", N), glue("e5_d", d), glue("e5_mu", MU, "g"), glue("e5_before", before, ".3f"),
      glue("e5_after", after, "+.4f"), glue("e5_ref", floor, ".4f"), glue("e5_gap", after - floor, ".1e"),
      glue("e5_gap_lo", min(s[1] - floor for s in stats), ".1e"), glue("e5_gap_hi", max(s[1] - floor for s in stats), ".1e"),
      glue("e5_moved", moved_cos, ".0%"), glue("e5_moved_lo", min(s[2] for s in stats), ".0%"),
      glue("e5_moved_hi", max(s[2] for s in stats), ".0%"), glue("e5_moved_dot", moved_dot, ".0%"),
      glue("e5_n1_hi", N1_HI), sep="")
