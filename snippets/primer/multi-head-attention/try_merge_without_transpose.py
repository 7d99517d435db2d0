"""Try this: merge the heads with `heads.reshape(T, d)` alone, leaving out the transpose: row 0 of the
concatenation then holds head 0's outputs for all five tokens, so the output at position 0 changes when the
LAST token changes, a leak from the future that the causal mask was there to prevent."""
import math

import numpy as np

from esm import attention, causal_mask, check_close, check_equal, check_true, multi_head_attention

rng = np.random.default_rng(8)
T, d, H = 5, 768, 12
d_k = d // H
X = rng.normal(size=(T, d))
W_Q, W_K, W_V, W_O = (rng.normal(size=(d, d)) / math.sqrt(d) for _ in range(4))
b_Q, b_K, b_V, b_O = (0.1 * rng.normal(size=d) for _ in range(4))        # one bias per projection
mask = causal_mask(T)


def layer(X):
    Q, K, V = X @ W_Q + b_Q, X @ W_K + b_K, X @ W_V + b_V
    Qh, Kh, Vh = (M.reshape(T, H, d_k).transpose(1, 0, 2) for M in (Q, K, V))
    heads = attention(Qh, Kh, Vh, mask)[0]                                   # (H, T, d_k)
    concat = heads.reshape(T, d)                        # changed: was heads.transpose(1, 0, 2).reshape(T, d)
    return concat @ W_O + b_O, concat, heads


out, concat, heads = layer(X)
print(check_equal("row 0 of the merge now starts with head 0's outputs for all five tokens, one after another",
                  concat[0, :T * d_k], heads[0].ravel()))
X2 = X.copy()
X2[4] = rng.normal(size=d)                              # a different last token
leak = float(np.abs(layer(X2)[0][0] - out[0]).max())
print(check_true("the output at position 0 now changes when the last token changes", leak > 0.1,
                 f"largest change {leak:.3f}"))
right = [multi_head_attention(Z, W_Q, W_K, W_V, W_O, H, mask, b_Q, b_K, b_V, b_O)[0] for Z in (X, X2)]
print(check_close("with the transpose, the output at position 0 does not change", right[1], right[0], atol=1e-12))
