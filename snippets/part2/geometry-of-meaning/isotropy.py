"""4.3 Isotropy and anisotropy: one shared direction makes every pair of vectors look similar."""
import numpy as np

from esm import PALETTE, check_close, cosine, cosine_matrix, figure, normalize_rows, shape_table, svg

rng = np.random.default_rng(43)
n, d = 80, 32
X_iso = rng.normal(0, 1, (n, d))                  # isotropic cloud: no preferred direction
c = np.zeros(d)
c[0] = np.sqrt(d)                                 # a common direction with |c|^2 = d
X_aniso = X_iso + c                               # the same cloud, every row shifted by c


def mean_pairwise_cosine(X):
    C = cosine_matrix(X)
    return (C.sum() - np.trace(C)) / (len(X) * (len(X) - 1))


iso, aniso = mean_pairwise_cosine(X_iso), mean_pairwise_cosine(X_aniso)

print(shape_table({"n": n, "d": d}, [
    ("isotropic cloud", r"X", X_iso, "n d", r"rows $\sim\mathcal N(\mathbf 0, I)$"),
    ("common direction", r"\mathbf c", c, "d", r"$\lVert\mathbf c\rVert^2=d$"),
    ("anisotropic cloud", r"X+\mathbf 1\mathbf c^\top", X_aniso, "n d", "every row shifted by c"),
    ("cosine matrix", "C", cosine_matrix(X_aniso), "n n", "all pairwise cosines"),
]))

pairs = [cosine(X_aniso[i], X_aniso[j]) for i in range(n) for j in range(n) if i != j]
print(check_close("mean over i != j of cos(x_i, x_j): matrix form vs a loop over pairs",
                  aniso, np.mean(pairs), atol=1e-12, eq="mean-cosine"))
S = normalize_rows(X_iso).sum(axis=0)             # closed form: (|sum of unit rows|^2 - n) / (n(n-1))
print(check_close("isotropic cloud: closed form (|sum of unit rows|^2 - n)/(n(n-1))",
                  iso, (S @ S - n) / (n * (n - 1)), atol=1e-12))
print(check_close("isotropic cloud: mean cosine near 0", iso, 0.0, atol=0.02))
print(check_close("shifted cloud: mean cosine near |c|^2 / (|c|^2 + d) = 0.5", aniso, 0.5, atol=0.05))
centred = X_aniso - X_aniso.mean(axis=0)
print(check_close("subtracting the mean row brings it back near 0", mean_pairwise_cosine(centred), 0.0,
                  atol=0.02))

fig, ax = figure(size=(6.4, 3.0))
off = ~np.eye(n, dtype=bool)
bins = np.linspace(-1, 1, 61)
ax.hist(cosine_matrix(X_iso)[off], bins=bins, color=PALETTE[0], alpha=0.75, label=f"isotropic (mean {iso:.2f})")
ax.hist(cosine_matrix(X_aniso)[off], bins=bins, color=PALETTE[1], alpha=0.75,
        label=f"with common direction (mean {aniso:.2f})")
ax.set_xlabel("cosine of a pair of distinct rows")
ax.set_ylabel("pairs")
ax.legend(loc="upper left", frameon=False)
print(svg(fig, alt="Two histograms of pairwise cosines: centred on 0 for the isotropic cloud, on 0.5 "
          "after a common direction is added", caption=f"Pairwise cosines of {n} vectors in $d={d}$, "
          "before and after adding one shared vector to every row."))
