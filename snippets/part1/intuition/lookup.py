"""1.1 From token ids to vectors: lookup is row indexing, and a repeated id reuses its row."""
import numpy as np

from esm import check_close, check_equal, glue, shape_table

V, d = 10, 4                       # a ten-token vocabulary, four numbers per token
# The embedding table, one row per id. Its entries are chosen so that a reader can check the
# lookup by hand: entry (i, k) is 10 i + k, so every number says which row it came from.
E = 10.0 * np.arange(V)[:, None] + np.arange(d)[None, :]
ids = np.array([3, 7, 7])          # a tokenizer's output for a three-token text
X = E[ids]                         # lookup: row i_t of E for every position t
T = len(ids)

print(shape_table({"V": V, "d": d, "T": T}, [
    ("embedding table", "E", E, "V d", "one trainable row per token id"),
    ("token ids", r"\mathbf i", ids, "T", r"integers in $\{0,\dots,\lvert\mathcal V\rvert-1\}$"),
    ("looked-up vectors", "X", X, "T d", r"row $t$ is $\mathbf x_t=E_{i_t,:}$"),
]))

loop = np.array([[E[i, k] for k in range(d)] for i in ids])   # entry by entry, one position at a time
print(check_close("every x_t is row i_t of E (vectorised lookup vs a loop over positions and coordinates)",
                  X, loop, eq="lookup"))
# The rows the lookup must return, written down by hand from the rule 10 i + k.
by_hand = np.array([[30, 31, 32, 33], [70, 71, 72, 73], [70, 71, 72, 73]], dtype=float)
print(check_close("lookup of (3, 7, 7) in the table E[i, k] = 10 i + k returns the rows written by hand",
                  X, by_hand, atol=0.0, eq="lookup"))
t1, t2 = [t for t in range(T) if (ids == ids[t]).sum() > 1]   # the two positions holding one id
print(check_equal(f"positions {t1} and {t2} share id {ids[t1]}, so they get the same vector",
                  bool(np.array_equal(X[t1], X[t2])), True))

# Which entries of E does the lookup read? Perturb each of the |V| d entries in turn and see
# whether X changes: an independent count of the numbers the text touched.
touched = 0
for i in range(V):
    for k in range(d):
        E2 = E.copy()
        E2[i, k] += 1.0
        touched += int(not np.array_equal(E2[ids], X))
print(check_equal("entries of E that change X when perturbed = (distinct ids) x d",
                  touched, len(set(ids.tolist())) * d))

print(glue("lookup_ids", ids))
print(glue("lookup_row_a", X[0].astype(int)))
print(glue("lookup_row_b", X[1].astype(int)))
print(glue("lookup_touched", touched))
