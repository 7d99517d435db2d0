"""Fix of the debugging exercise on the sliding-window mask (P15): the band starts W - 1 below the
diagonal, so each position reads W keys, as many as the buffer holds. Then the receptive field of L layers
under both masks, counted as paths through the mask."""
import math

import numpy as np

from esm import attention, check_close, check_equal, glue, softmax


def window_mask(T, W):
    """Position t reads the last W tokens, itself included: t - W < s <= t."""
    return np.triu(np.tril(np.ones((T, T), dtype=bool)), -(W - 1))


def window_mask_broken(T, W):
    return np.triu(np.tril(np.ones((T, T), dtype=bool)), -W)


def decode_rolling(X, W_Q, W_K, W_V, W):
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


def run_fixed():
    return check_buffer(window_mask)


print(run_fixed())
print(check_equal("(a) the broken mask reads one key more per row, from the W-th position on: the key at s = t - W",
                  window_mask_broken(T, W).sum(1) - window_mask(T, W).sum(1), (np.arange(T) >= W).astype(int)))

# (c) the receptive field after L layers: paths of L hops through the mask (its L-th power as a 0/1 matrix).
L, W_small, T_small = 3, 4, 24
t = T_small - 1
for name, mask, reach in (("fixed", window_mask, L * (W_small - 1)), ("broken", window_mask_broken, L * W_small)):
    row = (np.linalg.matrix_power(mask(T_small, W_small).astype(int), L) > 0)[t]
    print(check_equal(f"(c) {name} mask, L = {L}, W = {W_small}: the last row reaches back {reach} tokens",
                      int(t - np.flatnonzero(row)[0]), reach))
L7, W7 = 32, 4096                                     # Mistral 7B
print(glue("p15w_fixed", L7 * (W7 - 1) + 1, ","), glue("p15w_broken", L7 * W7 + 1, ","), glue("p15w_LW", L7 * W7, ","))
