"""7.4 Dimensionality-reduction diagnostics: PCA by SVD, explained variance, and a cluster
structure that the two leading components do not show."""
import numpy as np

from esm import PALETTE, check_close, check_less, figure, glue, shape_table, svg, table

rng = np.random.default_rng(74)
n_per, d, k = 90, 16, 3
labels = np.repeat(np.arange(k), n_per)
n = len(labels)
X = rng.normal(0.0, 1.0, (n, d))
loud, shift = (8.0, 7.0), 4.0
X[:, 0] *= loud[0]                              # two loud directions that carry no cluster
X[:, 1] *= loud[1]
X[:, 2] += shift * (labels - 1)                 # the clusters differ along a quiet direction

mu = X.mean(axis=0)
Xc = X - mu
U, sig, Vt = np.linalg.svd(Xc, full_matrices=False)
ratio = sig ** 2 / np.sum(sig ** 2)
Z = Xc @ Vt.T                                   # coordinates on every principal axis

print(shape_table({"N": n, "d": d}, [
    ("rows to inspect", "X", X, "N d", "e.g. embedding rows or hidden states"),
    ("centred rows", "X_c", Xc, "N d", r"$X-\mathbf 1\boldsymbol\mu^\top$"),
    ("left singular vectors", "U_c", U, "N d", "orthonormal columns"),
    ("singular values", r"\boldsymbol\sigma", sig, "d", "sorted, largest first"),
    ("principal axes", r"V_c^\top", Vt, "d d", "rows are the directions"),
]))

# Independent: eigenvalues of the covariance matrix, and the trace as the total variance.
evals = np.sort(np.linalg.eigvalsh(np.cov(X, rowvar=False)))[::-1]
print(check_close("sigma_k^2 / sum sigma^2 equals the covariance eigenvalues over their trace",
                  ratio, evals / np.trace(np.cov(X, rowvar=False)), atol=1e-12, eq="explained"))
print(check_close("U_c D V_c^T rebuilds the centred rows (4.4's SVD)", (U * sig) @ Vt, Xc, atol=1e-10))

def separation(z):
    """Between-cluster variance over within-cluster variance along one coordinate."""
    means = np.array([z[labels == c].mean() for c in range(k)])
    within = np.mean([z[labels == c].var() for c in range(k)])
    return float(means.var() / within)

sep = [separation(Z[:, j]) for j in range(4)]
print(table(("component", "explained variance", "cluster separation (between / within)"),
            [(f"PC{j + 1}", f"{ratio[j]:.1%}", f"{sep[j]:.3f}") for j in range(4)]))
print(check_less("PC1 and PC2 explain most variance", 0.5, ratio[0] + ratio[1],
                 names=("half", "PC1+PC2")))
print(check_less("yet neither separates the clusters", max(sep[0], sep[1]), 0.1,
                 names=("max separation on PC1, PC2", "0.1")))
print(check_less("PC3, with a small share of the variance, separates them", 5.0, sep[2],
                 names=("5", "separation on PC3")))

print(glue("pca_k", k), glue("pca_r1", ratio[0], ".1%"), glue("pca_r2", ratio[1], ".1%"),
      glue("pca_r3", ratio[2], ".1%"), glue("pca_sep12_max", np.ceil(1000 * max(sep[0], sep[1])) / 1000, ".3f"), glue("pca_sep3", sep[2], ".1f"), sep="")

fig, axes = figure(1, 2, size=(6.4, 2.8))
for c in range(k):
    m = labels == c
    axes[0].scatter(Z[m, 0], Z[m, 1], s=9, color=PALETTE[c], label=f"cluster {c}")
    axes[1].scatter(Z[m, 2], Z[m, 3], s=9, color=PALETTE[c])
axes[0].set_xlabel(f"PC1 ({ratio[0]:.0%})"); axes[0].set_ylabel(f"PC2 ({ratio[1]:.0%})")
axes[1].set_xlabel(f"PC3 ({ratio[2]:.0%})"); axes[1].set_ylabel(f"PC4 ({ratio[3]:.0%})")
axes[0].legend(fontsize=7, loc="upper right", markerscale=1.5, frameon=False)
fig.tight_layout()
print(svg(fig, alt=f"Two PCA scatter plots of {n} rows in {k} clusters: mixed on PC1-PC2 "
                   f"({ratio[0]:.0%} and {ratio[1]:.0%} of the variance, separations {sep[0]:.3f} and "
                   f"{sep[1]:.3f}), separated on PC3 ({ratio[2]:.0%}, separation {sep[2]:.1f})",
          caption=f"The same {n} rows on two pairs of principal axes. The loudest pair hides the "
                  f"{k} clusters; a quieter axis shows them."))
