"""7.1 Two heads and the output projection W_O, by hand: the Q, K, V of the one-head example
split into two heads of width 1, each attending on its own; W_O mixes the concatenated outputs."""
import math

import numpy as np

from esm import attention, causal_mask, check_close, glue, merge_heads, split_heads, table

Q = np.array([[0, 1], [1, 1], [2, 0]])          # the one-head example's queries, keys, values
K = np.array([[1, 0], [0, 1], [0, 1]])
V = np.array([[6, 0], [0, 6], [3, 0]])
W_O = np.array([[1, 1], [1, -1]])               # output projection: sum and difference of the heads
T, d = Q.shape
H = 2
d_k = d // H                                     # 1: each head reads one column
mask = causal_mask(T)

Qh, Kh, Vh = split_heads(Q, H), split_heads(K, H), split_heads(V, H)       # (H, T, d_k)
heads, A = attention(Qh, Kh, Vh, mask=mask)       # scale 1/sqrt(d_k) = 1 here
concat = merge_heads(heads)                       # (T, H d_k) = (T, d)
out = concat @ W_O

for h in range(H):
    print(f"    head {h}: q = {Q[:, h].tolist()}, k = {K[:, h].tolist()}, v = {V[:, h].tolist()}")
print(table(["t", "head 0 weights", "head 1 weights", "concat [o^0, o^1]", "output (concat W_O)"],
            [(t, " ".join(f"{x:.3f}" for x in A[0, t]), " ".join(f"{x:.3f}" for x in A[1, t]),
              " ".join(f"{x:.2f}" for x in concat[t]), " ".join(f"{x:.2f}" for x in out[t]))
             for t in range(T)]))

# Independent: per head, per position, explicit loops over the allowed keys (d_k = 1: products of numbers).
loop = np.zeros((T, d))
for h in range(H):
    for t in range(T):
        e = [math.exp(Q[t, h] * K[s, h] / math.sqrt(d_k)) for s in range(t + 1)]
        loop[t, h] = sum(e[s] * V[s, h] for s in range(t + 1)) / sum(e)
print(check_close("split, attend per head, concatenate: equals per-head loops over s <= t",
                  concat, loop, atol=1e-12, eq="multi-head"))
print(check_close("output = concat W_O, by loops over its entries",
                  out, [[sum(loop[t, j] * W_O[j, c] for j in range(d)) for c in range(d)] for t in range(T)],
                  atol=1e-12, eq="multi-head"))
# W_O reads the heads as a sum: concat W_O = sum_h o^(h) W_O[rows of head h].
by_head = sum(heads[h] @ W_O[h * d_k:(h + 1) * d_k] for h in range(H))
print(check_close("concat W_O equals the sum over heads of o^(h) times head h's rows of W_O",
                  out, by_head, atol=1e-12))
# Pencil forms: head 0 at t = 1 has scores (1, 0): weights e/(1+e), 1/(1+e); head 1 at t = 2 has q = 0:
# equal scores, the running mean 1/3 each.
e = math.e
print(check_close("head 0, t = 1: weights e/(1+e), 1/(1+e); head 1, t = 2: 1/3 each",
                  [A[0, 1, 0], A[0, 1, 1], *A[1, 2]], [e / (1 + e), 1 / (1 + e), 1 / 3, 1 / 3, 1 / 3], atol=1e-15))
print(glue("mh_A01", A[0, 1, :2], ".2f"), glue("mh_out10", out[1, 0], ".2f"), glue("mh_o20", concat[2, 0], ".2f"), glue("mh_o21", concat[2, 1], "g"), glue("mh_out2", out[2], ".2f"), sep="")
