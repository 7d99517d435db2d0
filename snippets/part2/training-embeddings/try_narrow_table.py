"""Try this: fit 5.3's GloVe demo with tables of width d = 1 instead of 3 (the width of the hidden
vectors that drew the counts), and J ends higher: one coordinate per word, with the biases, cannot
reproduce log-counts made from dot products in three dimensions."""
import numpy as np

from esm import check_less, table

x_max, alpha = 100.0, 0.75
V = 12


def f(x):
    x = np.asarray(x, dtype=float)
    return np.where(x < x_max, (x / x_max) ** alpha, 1.0)


def fit(d, lr=0.01, steps=1000):
    """The demo from its seed: the same counts (drawn from hidden vectors in 3 dimensions) whatever d is,
    then full-batch gradient descent on J from small random tables of width d. Returns J at the end."""
    rng = np.random.default_rng(53)
    A = rng.normal(0, 0.7, (V, 3))
    counts = rng.poisson(np.exp(A @ A.T + 1.5)).astype(float)
    counts = np.triu(counts) + np.triu(counts, 1).T
    nz = counts > 0
    log_counts, weight = np.log(np.where(nz, counts, 1.0)), f(counts)
    C, Ct = rng.normal(0, 0.1, (V, d)), rng.normal(0, 0.1, (V, d))
    b, bt = np.zeros(V), np.zeros(V)
    for _ in range(steps):
        G = 2 * weight * np.where(nz, C @ Ct.T + b[:, None] + bt[None, :] - log_counts, 0.0)
        C, Ct, b, bt = C - lr * G @ Ct, Ct - lr * G.T @ C, b - lr * G.sum(axis=1), bt - lr * G.sum(axis=0)
    r = np.where(nz, C @ Ct.T + b[:, None] + bt[None, :] - log_counts, 0.0)
    return float(np.sum(weight * r ** 2))


d = 1                                             # changed: was d = 3
J_page, J_narrow = fit(3), fit(d)
print(table(("width d of the tables", "J after 1000 steps"), [(3, f"{J_page:.2f}"), (d, f"{J_narrow:.2f}")]))
print(check_less(f"tables of width {d} end with a higher J than tables of width 3 on the same counts", J_page, J_narrow,
                 names=("J at d = 3", f"J at d = {d}")))
