"""P5 Multi-head attention at GPT-2 small's width: 768 = 12 x 64; split, attend, concatenate,
project; each step against a loop over heads."""
import math

import numpy as np

from esm import (attention, causal_mask, check_close, check_equal, check_true, glue, merge_heads, multi_head_attention,
                 shape_table, split_heads, table)

rng = np.random.default_rng(8)
T, d, H = 5, 768, 12
d_k = d // H
X = rng.normal(size=(T, d))
W_Q, W_K, W_V, W_O = (rng.normal(size=(d, d)) / math.sqrt(d) for _ in range(4))
b_Q, b_K, b_V, b_O = (0.1 * rng.normal(size=d) for _ in range(4))        # one bias per projection
mask = causal_mask(T)

Q, K, V = X @ W_Q + b_Q, X @ W_K + b_K, X @ W_V + b_V                      # (T, d) each; b added to every row
# Split: cut each row into H consecutive blocks of d_k, then put the head axis first.
Q_cut = Q.reshape(T, H, d_k)                                               # (T, H, d_k)
Qh = Q_cut.transpose(1, 0, 2)                                              # (H, T, d_k)
Kh, Vh = K.reshape(T, H, d_k).transpose(1, 0, 2), V.reshape(T, H, d_k).transpose(1, 0, 2)
heads, A = attention(Qh, Kh, Vh, mask)                                     # every head at once
# Merge: the inverse, head axis back behind the tokens, then the blocks side by side.
concat = heads.transpose(1, 0, 2).reshape(T, d)                            # (H, T, d_k) -> (T, H, d_k) -> (T, d)
out = concat @ W_O + b_O
print(glue("shape_q", list(Q.shape)), glue("shape_cut", list(Q_cut.shape)), glue("shape_heads", list(Qh.shape)),
      glue("shape_w", list(A.shape)))
print(check_equal("the inline split and merge are esm.split_heads and esm.merge_heads, and merge undoes split",
                  (np.array_equal(Qh, split_heads(Q, H)), np.array_equal(concat, merge_heads(heads)),
                   np.array_equal(Qh.transpose(1, 0, 2).reshape(T, d), Q)), (True, True, True)))

print(shape_table({"T": T, "d": d, "H": H, "d_k": d_k}, [
    ("inputs", "X", X, "T d", "one row per token"),
    ("query weights, all heads", "W_Q", W_Q, "d d", "columns of head $h$: $W_Q^{(h)}$"),
    ("queries of all heads", "Q^{(0..H-1)}", Qh, "H T d_k", "$Q^{(h)}=XW_Q^{(h)}$"),
    ("attention weights", "A^{(0..H-1)}", A, "H T T", "one $T\\times T$ pattern per head"),
    ("head outputs", "\\text{head}_{0..H-1}", heads, "H T d_k", "each head mixes its own values"),
    ("concatenation", "[\\text{head}_0,\\dots,\\text{head}_{H-1}]", concat, "T d", "heads side by side"),
    ("output projection", "W_O", W_O, "d d", "mixes the heads"),
    ("output", "\\operatorname{MHA}(X)", out, "T d", "same shape as the input"),
]))

loop_q = np.stack([X @ W_Q[:, h * d_k:(h + 1) * d_k] + b_Q[h * d_k:(h + 1) * d_k] for h in range(H)])
print(check_close("head h's queries are X times columns h d_k .. (h+1) d_k - 1 of W_Q plus those entries of b_Q, "
                  "h = 0..11 (loop over heads)", Qh, loop_q, eq="split", atol=1e-12))
loop_heads = [attention(X @ W_Q[:, c] + b_Q[c], X @ W_K[:, c] + b_K[c], X @ W_V[:, c] + b_V[c], mask)[0]
              for c in (slice(h * d_k, (h + 1) * d_k) for h in range(H))]
print(check_close("each head is an ordinary attention on its own projections (head 7 computed alone)", heads[7],
                  loop_heads[7], atol=1e-12))
print(check_close("concatenate then project: np.concatenate of the 12 heads times W_O, plus b_O", out,
                  np.concatenate(loop_heads, axis=1) @ W_O + b_O, eq="mha", atol=1e-10))
print(check_close("the helper esm.multi_head_attention gives the same output", multi_head_attention(X, W_Q, W_K, W_V, W_O, H,
                  mask, b_Q, b_K, b_V, b_O), out, atol=1e-10))

# Heads split the projections, not the embedding: head 0 reads every input coordinate.
X2 = X.copy()
X2[:, 700] += 1.0                                   # a coordinate far outside 'columns 0..63'
moved = float(np.abs(attention(split_heads(X2 @ W_Q + b_Q, H), split_heads(X2 @ W_K + b_K, H),
                               split_heads(X2 @ W_V + b_V, H), mask)[0][0] - heads[0]).max())
print(check_true("changing input coordinate 700 changes the output of head 0 (columns 0..63)", moved > 1e-3, f"max change {moved:.3f}"))
print(glue("moved", moved, ".2f"), glue("n_mha", 4 * d * d + 4 * d, ","))

# The same parameters serve every number of heads. For each H, cut W_Q, W_K, W_V (columns), their
# biases and W_O (rows) into H per-head arrays, compute the layer from those arrays alone (a loop over
# heads, the output projection as a sum of per-head products), compare it with the H-head layer, and
# count the numbers the per-head arrays hold.
rows, worst = [], 0.0
for n_heads in (1, 2, 4, 8, 12, 16):
    dk = d // n_heads
    per_head = [[W[:, c] for W in (W_Q, W_K, W_V)] + [b[c] for b in (b_Q, b_K, b_V)] + [W_O[c, :]]
                for c in (slice(h * dk, (h + 1) * dk) for h in range(n_heads))]
    by_heads = b_O + sum(attention(X @ wq + bq, X @ wk + bk, X @ wv + bv, mask)[0] @ wo
                         for wq, wk, wv, bq, bk, bv, wo in per_head)
    layer = multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads, mask, b_Q, b_K, b_V, b_O)
    worst = max(worst, float(np.abs(by_heads - layer).max()))
    rows.append((n_heads, dk, f"{sum(a.size for arrays in per_head for a in arrays) + b_O.size:,}"))
print(table(("heads $H$", "head width $d_k=d/H$", r"parameters the per-head arrays and $\mathbf b_O$ hold"), rows))
print(check_true("for every H the layer computed from its per-head arrays alone is the H-head layer",
                 worst < 1e-10, "largest difference within 1e-10 over H = " + ", ".join(str(r[0]) for r in rows)))
print(check_equal("so at d = 768 every choice of H uses 4 d^2 + 4 d = 2,362,368 parameters (the sizes of those arrays)",
                  {r[2] for r in rows}, {f"{4 * d * d + 4 * d:,}"}, eq="mha-params"))
