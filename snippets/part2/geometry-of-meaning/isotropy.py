"""4.3 Isotropy and anisotropy: one shared direction makes every pair of vectors look similar."""
from fractions import Fraction

import numpy as np

from esm import PALETTE, check_close, check_true, cosine, cosine_matrix, figure, glue, normalize_rows, shape_table, svg

# By hand first: four unit vectors pointing east, north, west and south, then shifted by m = (2, 0).
def vtex(v):
    return "$(" + ",".join(str(int(x)) for x in v) + ")$"


Xh = np.array([[1, 0], [0, 1], [-1, 0], [0, -1]])
cos_pairs_h = [Fraction(int(Xh[i] @ Xh[j])) for i in range(4) for j in range(4) if i != j]   # unit rows: cos = dot
mean_h = sum(cos_pairs_h) / len(cos_pairs_h)
closed_h = Fraction(int(Xh.sum(axis=0) @ Xh.sum(axis=0)) - 4, 4 * 3)         # the closed form, exact
print(check_close("by hand: mean cosine of E, N, W, S over the 12 ordered pairs vs the closed form, in fractions",
                  float(mean_h), float(closed_h), atol=0, eq="mean-cosine"))
m_h = np.array([2, 0])
Xh_m = Xh + m_h
dots_h = [int(Xh_m[i] @ Xh_m[j]) for i in range(4) for j in range(i + 1, 4)]
print(check_true("by hand: after the shift every dot product is positive, so every cosine is positive", min(dots_h) > 0,
                 f"dot products of the six pairs: {dots_h}"))
aniso_h = float(np.mean([cosine(Xh_m[i], Xh_m[j]) for i in range(4) for j in range(4) if i != j]))
print(check_close("by hand: subtracting the mean row (2, 0) gives back the four unit vectors exactly",
                  Xh_m - Xh_m.mean(axis=0), Xh, atol=0))
print(glue("mean_h", f"${'-' if mean_h < 0 else ''}\\tfrac{{{abs(mean_h.numerator)}}}{{{mean_h.denominator}}}$"),
      glue("m_vec_h", vtex(m_h)), glue("min_dot_h", min(dots_h)), glue("aniso_h", aniso_h, ".2f"))

rng = np.random.default_rng(43)
N, d = 80, 32
X_iso = rng.normal(0, 1, (N, d))                  # isotropic cloud: no preferred direction
m = np.zeros(d)
m[0] = np.sqrt(d)                                 # a common component with |m|^2 = d
X_aniso = X_iso + m                               # the same cloud, every row shifted by m


def mean_pairwise_cosine(X):
    C = cosine_matrix(X)
    return (C.sum() - np.trace(C)) / (len(X) * (len(X) - 1))


iso, aniso = mean_pairwise_cosine(X_iso), mean_pairwise_cosine(X_aniso)

print(shape_table({"N": N, "d": d}, [
    ("isotropic cloud", r"X", X_iso, "N d", r"rows $\sim\mathcal N(\mathbf 0, I)$"),
    ("common component", r"\mathbf m", m, "d", r"$\lVert\mathbf m\rVert^2=d$"),
    ("anisotropic cloud", r"X+\mathbf 1\mathbf m^\top", X_aniso, "N d", "every row shifted by m"),
    ("cosine matrix", r"\cos(\mathbf x_i,\mathbf x_j)", cosine_matrix(X_aniso), "N N", "all pairwise cosines, entry (i, j)"),
]))

pairs = [cosine(X_aniso[i], X_aniso[j]) for i in range(N) for j in range(N) if i != j]
print(check_close("mean over i != j of cos(x_i, x_j): matrix form vs a loop over pairs",
                  aniso, np.mean(pairs), atol=1e-12, eq="mean-cosine"))
S = normalize_rows(X_iso).sum(axis=0)             # closed form: (|sum of unit rows|^2 - N) / (N(N-1))
print(check_close("isotropic cloud: closed form (|sum of unit rows|^2 - N)/(N(N-1)) vs the matrix form",
                  (S @ S - N) / (N * (N - 1)), iso, atol=1e-12))
print(check_close("isotropic cloud: mean cosine near 0", iso, 0.0, atol=0.02))
m2 = float(m @ m)
predicted = m2 / (m2 + d)
print(check_close("shifted cloud: mean cosine near the prediction |m|^2 / (|m|^2 + d)", aniso, predicted, atol=0.05))
centred = mean_pairwise_cosine(X_aniso - X_aniso.mean(axis=0))
print(check_close("subtracting the mean row brings it back near 0", centred, 0.0, atol=0.02))
scales = np.linspace(0.2, 3.0, d)                 # centred, but unequal variances along the axes
stretched = mean_pairwise_cosine(X_iso * scales)
print(check_close("non-example: a centred cloud with unequal variances also has mean cosine near 0",
                  stretched, 0.0, atol=0.02))
print(glue("N_iso", N), glue("d_iso", d), glue("iso", iso, ".3f"),
      glue("aniso", aniso, ".3f"), glue("predicted", predicted, ".3f"), glue("centred", centred, ".3f"),
      glue("sd_lo", scales[0], ".1f"), glue("sd_hi", scales[-1], ".1f"), glue("stretched", stretched, ".3f"))

fig, ax = figure(size=(6.4, 3.0))
off = ~np.eye(N, dtype=bool)
bins = np.linspace(-1, 1, 61)
ax.hist(cosine_matrix(X_iso)[off], bins=bins, color=PALETTE[0], alpha=0.75, label=f"isotropic (mean {iso:.2f})")
ax.hist(cosine_matrix(X_aniso)[off], bins=bins, color=PALETTE[1], alpha=0.75,
        label=f"with common component (mean {aniso:.2f})")
ax.set_xlabel("cosine of a pair of distinct rows")
ax.set_ylabel("pairs")
ax.legend(loc="upper left", frameon=False)
print(svg(fig, alt=f"Two histograms of the {N * (N - 1)} pairwise cosines of {N} vectors in d = {d}: the isotropic "
          f"cloud's are centred on 0 (mean {iso:.3f}), those of the cloud with a common component on {aniso:.3f}",
          caption=f"Pairwise cosines of {N} vectors in $d={d}$, "
          "before and after adding one shared vector to every row."))
