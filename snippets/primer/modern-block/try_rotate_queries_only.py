"""Try this: in the Llama-style block, rotate the queries by their positions but leave the keys as they
are. A score then depends on the query's own position, not only on the offset, so the block at
positions 100 to 109 no longer gives what it gives at 0 to 9."""
import numpy as np

from esm import attention, causal_mask, check_close, check_less, merge_heads, rope_rotate, sigmoid, split_heads

rng = np.random.default_rng(12)                              # the demo's rows and weights, drawn in its order
d, H, T = 48, 4, 10
f_swi = 2 * 4 * d // 3
X = rng.normal(size=(T, d)) * 2 + 0.7
g = 1 + 0.1 * rng.normal(size=d)
W_1, W_3, W_2 = (rng.normal(size=s) * 0.1 for s in ((d, f_swi), (d, f_swi), (f_swi, d)))
p = {f"W_{n}": rng.normal(size=(d, d)) * 0.1 for n in "QKVO"}
p |= {"W_1": W_1, "W_3": W_3, "W_2": W_2, "g_1": np.ones(d), "g_2": np.ones(d)}


def rms_norm(X, g, eps=1e-6):
    return X / np.sqrt((X * X).mean(-1, keepdims=True) + eps) * g


def swiglu(X, W_1, W_3, W_2):
    Y = X @ W_1
    return (Y * sigmoid(Y) * (X @ W_3)) @ W_2


def llama_block(X, p, positions, rotate_keys=True):
    A = rms_norm(X, p["g_1"])
    Q, K, V = (split_heads(A @ p[f"W_{n}"], H) for n in "QKV")
    Q = rope_rotate(Q, positions)
    if rotate_keys:
        K = rope_rotate(K, positions)
    heads, _ = attention(Q, K, V, mask=causal_mask(len(positions)))
    U = X + merge_heads(heads) @ p["W_O"]
    return U + swiglu(rms_norm(U, p["g_2"]), p["W_1"], p["W_3"], p["W_2"])


early, late = np.arange(T), np.arange(100, 100 + T)
print(check_close("as in the demo, with queries and keys rotated, the block at positions 100..109 = at 0..9",
                  llama_block(X, p, late), llama_block(X, p, early), atol=1e-10))
moved = float(np.abs(llama_block(X, p, late, rotate_keys=False)                  # changed: was rotate_keys=True
                     - llama_block(X, p, early, rotate_keys=False)).max())
print(f"keys not rotated: largest change of the block's output when the positions move by 100: {moved:.2f}")
print(check_less("with the keys left unrotated, moving the positions by 100 changes the output by more than 0.05",
                 0.05, moved, names=("0.05", "largest change")))
