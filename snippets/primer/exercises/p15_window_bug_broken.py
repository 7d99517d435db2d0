"""Debugging exercise: a sliding-window mask written as the band of a matrix. It runs and looks right; the
check it fails (decoding with a rolling buffer of W slots gives the masked attention's output) is printed
as the expected failure."""
import math

import numpy as np

from esm import attention, check_close, check_equal, expect_failure, softmax


def window_mask(T, W):
    """Position t reads the last W tokens: keep the causal triangle, cut it W below the diagonal."""
    return np.triu(np.tril(np.ones((T, T), dtype=bool)), -W)


def decode_rolling(X, W_Q, W_K, W_V, W):
    """P15's decoding: position t's key and value overwrite slot t mod W of a W-slot buffer."""
    K_buf, V_buf = np.zeros((W, W_K.shape[1])), np.zeros((W, W_V.shape[1]))
    out = []
    for t, x in enumerate(X):
        K_buf[t % W], V_buf[t % W] = x @ W_K, x @ W_V
        n = min(t + 1, W)
        out.append(softmax((x @ W_Q) @ K_buf[:n].T / math.sqrt(W_Q.shape[1])) @ V_buf[:n])
    return np.array(out)


rng = np.random.default_rng(42)
T, d, W = 30, 8, 5
X = rng.normal(size=(T, d))
W_Q, W_K, W_V = (rng.normal(size=(d, d)) / math.sqrt(d) for _ in range(3))


def check_buffer(mask):
    return check_close(f"decoding with a buffer of W = {W} slots = attention under the mask", decode_rolling(X, W_Q, W_K, W_V, W),
                       attention(X @ W_Q, X @ W_K, X @ W_V, mask=mask(T, W))[0], atol=1e-12)


def run_broken():
    return check_buffer(window_mask)


print(check_equal("the broken mask runs and is causal (the bug is silent)", window_mask(T, W),
                  window_mask(T, W) & np.tril(np.ones((T, T), dtype=bool))))
print(expect_failure(run_broken))
