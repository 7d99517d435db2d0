"""Try this: the receptive field with a window of W = 1 instead of 4, still L = 3 layers. Expect depth to
widen nothing: each position then reads only itself, no layer moves information between positions, and
output t depends on input token t alone, L (W - 1) = 0 tokens back, not the L W = 3 a count of W per layer gives."""
import math

import numpy as np

from esm import attention, check_equal


def window_mask(T, W):
    """True where position t may read key s: t - W < s <= t."""
    t, s = np.arange(T)[:, None], np.arange(T)[None, :]
    return (s <= t) & (s > t - W)


rng = np.random.default_rng(15)
T, d, L = 16, 8, 3
W = 1                                                      # changed: was 4
layers = [[rng.normal(size=(d, d)) / math.sqrt(d) for _ in range(3)] for _ in range(L)]


def stack(X):
    for W_Q, W_K, W_V in layers:
        X = X + attention(X @ W_Q, X @ W_K, X @ W_V, mask=window_mask(len(X), W))[0]
    return X


X = rng.normal(size=(T, d))
reach = np.stack([(stack(X + 1.0 * (np.arange(T) == s)[:, None]) != stack(X)).any(1) for s in range(T)], axis=1)
print(check_equal(f"perturbing one token at a time: after L = {L} layers of W = {W}, output t moves only for s = t",
                  reach, np.eye(T, dtype=bool)))
print(f"input tokens that move an output: {sorted(set(reach.sum(axis=1).tolist()))}, the span L (W - 1) + 1 = {L * (W - 1) + 1}")
