"""2.3 Batch and sequence shapes: a B x T array of ids indexes E into a B x T x d array."""
import numpy as np

from esm import check_close, check_equal, shape_table

E = np.arange(30, dtype=float).reshape(10, 3) / 10    # |V| = 10, d = 3: row i is (3i, 3i+1, 3i+2)/10
ids = np.array([[1, 2, 1],
                [3, 4, 5]])                          # B = 2 texts, T = 3 tokens each
X = E[ids]
B, T = ids.shape
V, d = E.shape

print(shape_table({"B": B, "T": T, "V": V, "d": d}, [
    ("token ids", r"\mathrm{ids}", ids, "B T", "text $b$, position $t$"),
    ("embedding table", "E", E, "V d", ""),
    ("batch of vectors", "X", X, "B T d", r"$X_{b,t,:}=E_{\mathrm{ids}_{b,t},:}$"),
    ("one text", "X_{b}", X[0], "T d", "the $T\\times d$ matrix of 1.1 for text $b$"),
]))

loop = np.zeros((B, T, d))
for b in range(B):
    for t in range(T):
        loop[b, t] = E[ids[b, t]]
print(check_close("X[b, t, :] = E[ids[b, t], :] for every b and t (double loop)", X, loop, eq="batch-lookup"))
print(check_equal("X has shape (B, T, d) = (2, 3, 3)", X.shape, (2, 3, 3), eq="batch-lookup"))
print(check_close("first vector X[0, 0] is row 1 of E = [0.3, 0.4, 0.5]", X[0, 0], [0.3, 0.4, 0.5], atol=1e-12))
flat = E[ids.reshape(-1)].reshape(B, T, d)          # what embedding layers do internally
print(check_close("flatten the ids to B x T = 6 entries, look up, reshape: the same array", flat, X))
print(check_equal("looking up the transposed ids gives (T, B, d): a different layout",
                  E[ids.T].shape, (T, B, d)))
act = np.broadcast_to(np.float16(0), (8, 2048, 4096))  # shape only, no memory used
print(check_equal("X for B=8, T=2048, d=4096 in fp16: 8 x 2048 x 4096 x 2 bytes (128 MiB)",
                  act.nbytes, 128 * 2**20))
