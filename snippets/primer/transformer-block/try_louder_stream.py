"""Try this: feed the worked example's block a stream 100 times larger (X times 100). Layer norm hands the
sublayers the same rows as before, so attention adds the very same update, and the block changes the larger
stream by about as much as it changed the smaller one: relative to the stream, its change is far smaller."""
import numpy as np

from esm import block_forward, causal_mask, check_close, check_less, layer_norm, multi_head_attention

rng = np.random.default_rng(12)                      # the worked example's block and stream
T, d, H = 5, 16, 4
d_ff = 4 * d
p = {name: rng.normal(size=shape) * 0.3 for name, shape in {
    "W_Q": (d, d), "W_K": (d, d), "W_V": (d, d), "W_O": (d, d), "b_Q": (d,), "b_K": (d,), "b_V": (d,), "b_O": (d,),
    "W_1": (d, d_ff), "b_1": (d_ff,), "W_2": (d_ff, d), "b_2": (d,),
    "g_1": (d,), "beta_1": (d,), "g_2": (d,), "beta_2": (d,)}.items()}
p["g_1"] += 1.0
p["g_2"] += 1.0
X = rng.normal(size=(T, d))
mask = causal_mask(T)
X_big = 100 * X                                      # changed: was X, the stream as drawn


def attention_update(Z):                             # what the attention half adds to the stream Z
    return multi_head_attention(layer_norm(Z, p["g_1"], p["beta_1"]), p["W_Q"], p["W_K"], p["W_V"], p["W_O"], H,
                                mask, p["b_Q"], p["b_K"], p["b_V"], p["b_O"])


def change(Z):                                       # |Y - Z|: how much the whole block adds
    return float(np.linalg.norm(block_forward(Z, p, H, mask) - Z))


r, r_big = change(X) / np.linalg.norm(X), change(X_big) / np.linalg.norm(X_big)
print(f"|Y - X|: {change(X):.1f} for X, {change(X_big):.1f} for 100 X; relative to the stream: {r:.3f} and {r_big:.4f}")
print(check_close("the attention half adds the same update to 100 X as to X (layer norm removes the scale, up to eps)",
                  attention_update(X_big), attention_update(X), atol=1e-3))
print(check_less("relative to the stream, the block's change is more than 30 times smaller at 100 X", 30 * r_big, r,
                 names=("30 x |Y - X| / |X| at 100 X", "|Y - X| / |X| at X")))
