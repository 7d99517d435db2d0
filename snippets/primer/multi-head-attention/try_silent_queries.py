"""Try this: silence head 3's queries, setting its 64 columns of W_Q (and its entries of b_Q) to zero: every key
then gets the same score, so head 3 takes a plain average of the values it may see, while the other eleven heads
do not change at all. The layer's output moves at every position but the first, which sees only itself."""
import math

import numpy as np

from esm import attention, causal_mask, check_close, check_true, split_heads

rng = np.random.default_rng(8)
T, d, H = 5, 768, 12
d_k = d // H
X = rng.normal(size=(T, d))
W_Q, W_K, W_V, W_O = (rng.normal(size=(d, d)) / math.sqrt(d) for _ in range(4))
b_Q, b_K, b_V, b_O = (0.1 * rng.normal(size=d) for _ in range(4))        # one bias per projection
mask = causal_mask(T)


def layer(W_Q, b_Q):
    heads, A = attention(split_heads(X @ W_Q + b_Q, H), split_heads(X @ W_K + b_K, H), split_heads(X @ W_V + b_V, H),
                         mask)
    concat = heads.transpose(1, 0, 2).reshape(T, d)
    return concat @ W_O + b_O, concat, A


W_Q3, b_Q3 = W_Q.copy(), b_Q.copy()
cols = slice(3 * d_k, 4 * d_k)                          # head 3's columns, 192 to 255
W_Q3[:, cols], b_Q3[cols] = 0.0, 0.0                    # changed: were the random columns and entries
out, concat, A = layer(W_Q, b_Q)
out3, concat3, A3 = layer(W_Q3, b_Q3)

uniform = np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]          # row t: 1/(t+1) on keys 0..t
print(check_close("head 3's weights are now uniform: 1/(t+1) on each key it may see", A3[3], uniform, atol=1e-12))
others = np.ones(d, bool)
others[cols] = False
print(check_close("the other eleven heads' outputs are unchanged", concat3[:, others], concat[:, others], atol=1e-12))
moved = np.abs(out3 - out).max(axis=1)
print("largest change of the layer's output, positions 0 to 4: " + ", ".join(f"{m:.2f}" for m in moved))
print(check_close("position 0 sees only itself, so its output is unchanged", out3[0], out[0], atol=1e-12))
print(check_true("every later position's output moves", moved[1:].min() > 1e-6,
                 "smallest of their largest changes " + f"{moved[1:].min():.3f}"))
