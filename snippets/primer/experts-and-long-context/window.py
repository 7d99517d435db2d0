"""P15 Sliding-window attention: the mask, a rolling buffer, the receptive field, Mistral 7B's figures."""
import math

import numpy as np

from esm import attention, check_close, check_equal, figure, glue, softmax, svg


def window_mask(T, W):
    """True where position t may read key s: t - W < s <= t."""
    t, s = np.arange(T)[:, None], np.arange(T)[None, :]
    return (s <= t) & (s > t - W)


def decode_rolling(X, W_Q, W_K, W_V, W):
    """One head, token by token; position t's key and value overwrite slot t mod W of a W-slot buffer."""
    K_buf, V_buf = np.zeros((W, W_K.shape[1])), np.zeros((W, W_V.shape[1]))
    out = []
    for t, x in enumerate(X):
        K_buf[t % W], V_buf[t % W] = x @ W_K, x @ W_V
        n = min(t + 1, W)                                             # slots filled so far
        s = (x @ W_Q) @ K_buf[:n].T / math.sqrt(W_Q.shape[1])
        out.append(softmax(s) @ V_buf[:n])
    return np.array(out)


T, W = 8, 3
print(check_equal(f"the mask (T = {T}, W = {W}) = a loop testing t - W < s <= t", window_mask(T, W),
                  np.array([[t - W < s <= t for s in range(T)] for t in range(T)]), eq="window"))
print(glue("sw_T_ex", T), glue("sw_W_ex", W), glue("sw_t_ex", 5), glue("sw_seen_ex", np.flatnonzero(window_mask(T, W)[5]).tolist()))

rng = np.random.default_rng(15)
T, d, W = 40, 8, 6
X = rng.normal(size=(T, d))
W_Q, W_K, W_V = (rng.normal(size=(d, d)) / math.sqrt(d) for _ in range(3))
out = decode_rolling(X, W_Q, W_K, W_V, W)
print(check_close(f"{T} tokens decoded with a buffer of W = {W} slots = attention under the window mask", out,
                  attention(X @ W_Q, X @ W_K, X @ W_V, mask=window_mask(T, W))[0], atol=1e-12, eq="window-cache"))


# L layers with residuals: which input tokens change output t?
T, W, L = 16, 4, 3
layers = [[rng.normal(size=(d, d)) / math.sqrt(d) for _ in range(3)] for _ in range(L)]


def stack(X):
    for W_Q, W_K, W_V in layers:
        X = X + attention(X @ W_Q, X @ W_K, X @ W_V, mask=window_mask(len(X), W))[0]
    return X


X = rng.normal(size=(T, d))
reach = np.stack([(stack(X + 1.0 * (np.arange(T) == s)[:, None]) != stack(X)).any(1) for s in range(T)], axis=1)
t, s = np.arange(T)[:, None], np.arange(T)[None, :]
print(check_equal(f"perturbing one token at a time: after L = {L} layers, output t moves exactly for t - L (W - 1) <= s <= t",
                  reach, (s <= t) & (t - s <= L * (W - 1)), eq="receptive"))
print(glue("rf_L", L), glue("rf_W", W), glue("rf_span", L * (W - 1) + 1))
fig, ax = figure(size=(3.6, 3.0))
ax.imshow(window_mask(T, W).astype(int) + reach, cmap="Blues", vmin=0, vmax=2.2)      # 2: one layer reads it; 1: L layers
ax.set(xlabel="input token s", ylabel="position t", xticks=[0, 5, 10, 15], yticks=[0, 5, 10, 15])
ax.grid(False)
print(svg(fig, alt=f"A {T} by {T} grid, positions t against input tokens s: a dark diagonal band {W} cells wide, the "
          f"window, inside a lighter band {L * (W - 1) + 1} cells wide, what {L} layers reach.",
          caption=f"Dark: the window, row $t$ reads $t-{W}<s\\le t$. Light and dark together, found by perturbing one token "
                  f"at a time: after {L} layers row $t$ depends on $t-{L * (W - 1)}\\le s\\le t$, $W-1={W - 1}$ more per layer."))

# Mistral 7B (Table 1): 32 layers, 8 key-value heads of width 128, window 4,096; a 16-bit cache at 32,768 tokens.
L, n_kv, d_k, W, T = 32, 8, 128, 4096, 32768
per_token = 2 * L * n_kv * d_k * 2
print(check_equal(f"without the window / with it, at {T:,} tokens = the paper's factor 8", T // min(T, W), 8, eq="window-cache"))
print(check_equal("the span L (W - 1) + 1, in thousands, = the paper's 'approximately 131K'",
                  round((L * (W - 1) + 1) / 1000), 131, eq="receptive"))
print(glue("ms_T", T, ","), glue("ms_full_gb", per_token * T / 1e9, ".2f"),
      glue("ms_window_gb", per_token * W / 1e9, ".2f"), glue("ms_per_token_kb", per_token / 1e3, ".0f"), glue("ms_factor", T // W),
      glue("ms_span_exact", L * (W - 1) + 1, ","))
