"""Try this: redraw the rows AFTER position 3 (rows 4 and 5) instead of the three before it: the outputs at
positions 0 to 3 do not move at all, because the causal mask hides the future from them; only the later outputs
change."""
import math

import numpy as np

from esm import attention, causal_mask, check_close, check_true

rng = np.random.default_rng(5)
T, d, d_k, d_v = 6, 8, 4, 4
X = rng.normal(size=(T, d))                          # one row per token (embedding + position)
W_Q = rng.normal(size=(d, d_k)) / math.sqrt(d)
W_K = rng.normal(size=(d, d_k)) / math.sqrt(d)
W_V = rng.normal(size=(d, d_v)) / math.sqrt(d)
mask = causal_mask(T)


def attn(Xs):
    return attention(Xs @ W_Q, Xs @ W_K, Xs @ W_V, mask)[0]


Y = X.copy()
Y[4:] = rng.normal(size=(2, d))                     # changed: was Y[:3] = rng.normal(size=(3, d))
moved = np.linalg.norm(attn(Y) - attn(X), axis=1)
print("how far each output moved, positions 0 to 5: " + ", ".join(f"{m:.2f}" for m in moved))
print(check_close("the outputs at positions 0 to 3 are unchanged", attn(Y)[:4], attn(X)[:4], atol=1e-12))
print(check_true("the last output, which sees the redrawn rows (its own among them), moves", moved[5] > 0.01,
                 f"|o_5 - o_5'| = {moved[5]:.3f}"))
