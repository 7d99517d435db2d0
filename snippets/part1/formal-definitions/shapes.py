"""2.3 Batch and sequence shapes: a B x T array of ids indexes E into a B x T x d array."""
import numpy as np

from esm import check_close, check_equal, glue, shape_table

E = np.arange(30, dtype=float).reshape(10, 3) / 10    # |V| = 10, d = 3: row i is (3i, 3i+1, 3i+2)/10
ids = np.array([[1, 2, 1],
                [3, 4, 5]])                          # B = 2 texts, T = 3 tokens each
X = E[ids]
B, T = ids.shape
V, d = E.shape

print(shape_table({"B": B, "T": T, "V": V, "d": d}, [
    ("token ids", r"\mathrm{ids}", ids, "B T", "text $n$, position $t$"),
    ("embedding table", "E", E, "V d", ""),
    ("batch of vectors", "X", X, "B T d", r"$X_{n,t,:}=E_{\mathrm{ids}_{n,t},:}$"),
    ("one text", "X_{n,:,:}", X[0], "T d", "the $T\\times d$ matrix of 1.1 for text $n$"),
]))

loop = np.zeros((B, T, d))
for n in range(B):
    for t in range(T):
        loop[n, t] = E[ids[n, t]]
print(check_close("X[n, t, :] = E[ids[n, t], :] for every n and t (double loop)", X, loop, eq="batch-lookup"))
print(check_equal("X has shape (B, T, d): the shape of ids with d appended", X.shape, ids.shape + (d,),
                  eq="batch-lookup"))
first_by_hand = [(3 * ids[0, 0] + k) / 10 for k in range(d)]      # the closed form of row i
print(check_close(f"first vector X[0, 0] is row {ids[0, 0]} of E, (3i, 3i+1, 3i+2)/10 by hand",
                  X[0, 0], first_by_hand, atol=1e-12))
print(check_close("positions (0, 0) and (0, 2) hold the same id, so the same vector", X[0, 0], X[0, 2], atol=0.0))
flat = np.array([E[i] for i in ids.reshape(-1)]).reshape(B, T, d)   # what embedding layers do internally
print(check_close(f"flatten the ids to B x T = {B * T} entries, look up one by one, reshape: the same array",
                  flat, X))
print(check_equal("looking up the transposed ids gives (T, B, d): a different layout",
                  E[ids.T].shape, (T, B, d)))
Bb, Tb, db = 8, 2048, 4096
act_bytes = Bb * Tb * db * np.dtype(np.float16).itemsize   # B T d numbers of 2 bytes each (a product, not a finding)

print(glue("sh_ids_row0", ids[0]))
print(glue("sh_ids_row1", ids[1]))
print(glue("sh_first_id", int(ids[0, 0])))
print(glue("sh_first", X[0, 0], ".1f"))
print(glue("big_B", Bb))
print(glue("big_T", Tb, ","))
print(glue("act_d", db, ","))
print(glue("act_mb", act_bytes / 1e6, ".0f"))      # MB = 10^6 bytes
