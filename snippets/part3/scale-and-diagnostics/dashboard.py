"""8.3 Norm and similarity dashboards: norms, the mean pairwise cosine (in O(N d)), and a
neighbour table, for a raw and a centred table."""
import numpy as np

from esm import (PALETTE, check_close, check_equal, check_less, cosine, cosine_matrix, figure, glue,
                 mean_pairwise_cosine, normalize_rows, shape_table, svg, table, top_k)

rng = np.random.default_rng(83)
V, d = 1200, 32
rank = np.arange(1, V + 1)                               # row i has frequency rank i + 1
mu = rng.normal(0.0, 1.0, d); mu *= 2.5 / np.linalg.norm(mu)
E = rng.normal(0.0, 1.0, (V, d)) / np.sqrt(d) * (0.6 + 0.15 * np.log(rank))[:, None] + mu
twins = np.arange(8)                                     # rows 8..15 are near copies of rows 0..7
E[twins + 8] = E[twins] + 0.05 * rng.normal(0.0, 1.0, (len(twins), d))

Ec = E - E.mean(axis=0)
norms = np.linalg.norm(E, axis=1)
print(shape_table({"V": V, "d": d}, [
    ("table", "E", E, "V d", "the rows being watched"),
    ("centred table", r"E-\mathbf 1\boldsymbol\mu^\top", Ec, "V d", "mean row removed"),
    ("row norms", r"\lVert E_{i,:}\rVert", norms, "V", "first panel of the dashboard"),
]))

# Independent: the mean pairwise cosine of the whole table (the one the text describes) from its
# full n x n cosine matrix, O(n^2 d), against the closed form, O(n d); and a pair loop on a subset.
def mean_cos_by_gram(X):
    C = cosine_matrix(X)
    return float((C.sum() - np.trace(C)) / (len(X) * (len(X) - 1)))

raw, cen = mean_pairwise_cosine(E), mean_pairwise_cosine(Ec)
print(check_close(f"mean pairwise cosine of all {V} rows: closed form equals the mean over the {V}x{V} "
                  "cosine matrix", [raw, cen], [mean_cos_by_gram(E), mean_cos_by_gram(Ec)], atol=1e-12))   # (4.4), section 4.3
sub = E[:40]
pairs = [cosine(sub[i], sub[j]) for i in range(40) for j in range(40) if i != j]
print(check_close("and on a 40-row subset it equals the plain loop over ordered pairs",
                  mean_pairwise_cosine(sub), np.mean(pairs), atol=1e-12))
print(check_close("row norms equal sqrt of the sum of squares (loop)", norms,
                  [sum(x * x for x in row) ** 0.5 for row in E], atol=1e-12, eq="norms"))
print(check_less("centring removes the shared direction: mean cosine drops", cen, raw,
                 names=("centred", "raw")))

C = cosine_matrix(Ec[:128], Ec)
rows = []
for i in (0, 3, 100):
    nn = top_k(C[i], 3, exclude=[i])
    rows.append((f"row {i} (norm {norms[i]:.2f})", *[f"{j} ({C[i, j]:.2f})" for j in nn]))
print(table(("probe", "1st neighbour (cos)", "2nd", "3rd"), rows))
found = [int(top_k(C[i], 1, exclude=[i])[0]) for i in twins]
print(check_equal("the neighbour table finds each planted twin (rows 0..7 -> 8..15)", found,
                  [int(i) + 8 for i in twins]))
nn0 = top_k(C[0], 2, exclude=[0])
print(glue("db_raw", raw, ".3f"), glue("db_cen", cen, "+.4f"),
      glue("db_twins", len(twins)),
      glue("db_nn0_cos", C[0, nn0[0]], ".2f"),
      glue("db_nn0_next", C[0, nn0[1]], ".2f"), sep="")

pick = rng.choice(V, (2, 3000))
pick = pick[:, pick[0] != pick[1]]
fig, ax = figure(1, 3, size=(7.6, 2.5))
ax[0].hist(norms, bins=30, color=PALETTE[0])
ax[0].set_xlabel("row norm"); ax[0].set_ylabel("rows")
cr = np.sum(normalize_rows(E)[pick[0]] * normalize_rows(E)[pick[1]], 1)
cc = np.sum(normalize_rows(Ec)[pick[0]] * normalize_rows(Ec)[pick[1]], 1)
ax[1].hist(cr, bins=30, color=PALETTE[1], alpha=0.8, label="raw")
ax[1].hist(cc, bins=30, color=PALETTE[2], alpha=0.8, label="centred")
ax[1].set_xlabel("cosine of random pairs")
ax[1].set_ylim(0, ax[1].get_ylim()[1] * 1.4)
ax[1].legend(fontsize=7, frameon=False, loc="upper left", ncol=2)
ax[2].semilogx(rank, norms, ".", ms=2, color=PALETTE[4])
ax[2].set_xlabel("frequency rank"); ax[2].set_ylabel("norm")
fig.tight_layout()
print(svg(fig, alt=f"Dashboard of a {V}-row table: norm histogram (median {np.median(norms):.2f}), "
                   f"cosines of random pairs raw (mean {raw:.3f}) and centred (mean {cen:+.4f}), "
                   "and norm rising with the logarithm of the frequency rank",
          caption="A dashboard for one table: the spread of row norms, random-pair cosines before "
                  "and after centring, and norm against frequency rank (rarer rows longer, as the demo built them)."))
