"""9.6 Neighbours on a PCA plot are mostly not neighbours in the full space."""
import numpy as np

from esm import check_less, glue

rng = np.random.default_rng(96)
n, d, k = 300, 50, 10
X = rng.normal(0.0, 1.0, (n, d)) * np.r_[3.0, 2.5, np.ones(d - 2)]   # two loud axes, 48 quiet ones
Xc = X - X.mean(0)
_, sig, Vt = np.linalg.svd(Xc, full_matrices=False)
Z = Xc @ Vt[:2].T                                                     # the 2-D PCA plot
share = float(np.sum(sig[:2] ** 2) / np.sum(sig ** 2))

def knn(P):
    D = np.linalg.norm(P[:, None] - P[None], axis=-1)
    np.fill_diagonal(D, np.inf)
    return np.argsort(D, axis=1, kind="stable")[:, :k]

plot_nn, full_nn = knn(Z), knn(X)
overlap = np.array([len(set(plot_nn[i]) & set(full_nn[i])) / k for i in range(n)])
chance = k / (n - 1)
print(f"The plot keeps {share:.0%} of the variance. Of each row's {k} nearest rows on the plot, "
      f"on average {overlap.mean():.1%} are among its {k} nearest rows in all {d} dimensions "
      f"(chance: {chance:.1%}).")
print(check_less("wrong: taking plot neighbours for real neighbours is wrong for most of them",
                 overlap.mean(), 0.5, names=("mean overlap", "one half")))
print(check_less("right: the plot is still a diagnostic, better than chance at finding neighbours",
                 chance, overlap.mean(), names=("chance", "mean overlap")))
print(glue("m6_k", k), glue("m6_share", share, ".0%"),
      glue("m6_overlap", overlap.mean(), ".1%"), glue("m6_chance", chance, ".1%"), sep="")
