"""1.1 From token ids to vectors: lookup is row indexing, and a repeated id reuses its row."""
import numpy as np

from esm import check_close, check_equal, shape_table

rng = np.random.default_rng(11)
V, d = 10, 4                       # a ten-token vocabulary, four numbers per token
E = rng.normal(0.0, 1.0, (V, d))   # the embedding table: one trainable row per id
ids = np.array([3, 7, 7])          # a tokenizer's output for a three-token text
X = E[ids]                         # lookup: row i_t of E for every position t

print(shape_table({"V": V, "d": d, "T": len(ids)}, [
    ("embedding table", "E", E, "V d", "one trainable row per token id"),
    ("token ids", r"\mathbf i", ids, "T", r"integers in $\{0,\dots,\lvert\mathcal V\rvert-1\}$"),
    ("looked-up vectors", "X", X, "T d", r"row $t$ is $\mathbf x_t=E_{i_t,:}$"),
]))

loop = np.stack([E[i] for i in ids])   # the same lookup, one row at a time
print(check_close("every x_t is row i_t of E (vectorised lookup vs a loop)", X, loop, eq="lookup"))
print(check_equal("positions 1 and 2 share id 7, so they get the same vector",
                  bool(np.array_equal(X[1], X[2])), True))
print(check_equal("a second lookup returns the same numbers (no randomness at lookup time)",
                  E[ids], X))
