"""Exercise: predictions about the forward pass of the full-model chapter, run on the primer's tiny model: the shape of
the logits and the longest input the position table allows; position 0 sees only itself, so its
attention output is its own value row and row 0 of the logits does not depend on the query and key
weights at all; and a mask that hides the diagonal turns position 0's weights, then the whole
output, into NaN."""
import numpy as np

from esm import (TINY, block_forward, causal_mask, check_close, check_equal, check_true, feed_forward, glue,
                 gpt_forward, layer_norm, tiny_gpt)

model = tiny_gpt()
V, T_max, H, L = TINY["V"], TINY["T_max"], TINY["n_heads"], TINY["L"]
rng = np.random.default_rng(29)

# (a) a batch of 4 sequences of T_max ids; one more position has no row in the position table.
ids = rng.integers(0, V, size=(4, T_max))
print(check_equal("(a) ids (4, T_max) give logits (4, T_max, |V|)", gpt_forward(ids, model).shape, (4, T_max, V)))
try:
    gpt_forward(rng.integers(0, V, size=(4, T_max + 1)), model)
    failed = "no error"
except ValueError as err:                                       # broadcasting (4, 17, d) + (16, d)
    failed = type(err).__name__
print(check_equal(f"(a) T = {T_max + 1} fails: P[:T] has only {T_max} rows, and the sum cannot broadcast", failed,
                  "ValueError"))
print(glue("fm_T_max", T_max), glue("fm_V", V))

# (b) position 0 attends to itself only, with weight 1 whatever its score: the queries and keys cannot reach row 0.
Z = gpt_forward(ids, model)
scrambled = dict(model, blocks=[dict(p, **{k: rng.normal(size=p[k].shape) for k in ("W_Q", "W_K", "b_Q", "b_K")})
                                for p in model["blocks"]])
Z_scr = gpt_forward(ids, scrambled)
print(check_close("(b) W_Q, W_K, b_Q, b_K of every block replaced by random ones: row 0 of the logits unchanged",
                  Z_scr[:, 0], Z[:, 0], atol=1e-12))
later = float(np.abs(Z_scr[:, 1:] - Z[:, 1:]).max())
print(check_true("(b) ... while every later row moves", bool((np.abs(Z_scr[:, 1:] - Z[:, 1:]).max(-1) > 1e-3).all()),
                 f"largest change {later:.3g}"))


# The second route: row 0 by hand, each block's attention reduced to its value row through W_O (no scores, no softmax).
def row0(token):
    x = model["E"][token] + model["P"][0]
    for p in model["blocks"]:
        x = x + (layer_norm(x, p["g_1"], p["beta_1"]) @ p["W_V"] + p["b_V"]) @ p["W_O"] + p["b_O"]
        x = x + feed_forward(layer_norm(x, p["g_2"], p["beta_2"]), p)
    return layer_norm(x, model["g_f"], model["beta_f"]) @ model["E"].T


print(check_close("(b) row 0 = the first token through blocks whose attention is x -> LN(x) W_V W_O (+ biases)",
                  Z[:, 0], row0(ids[:, 0]), atol=1e-12))


# (c) a mask that hides the diagonal too: row 0 sees no key at all.
def forward_with_mask(ids, mask):
    X = model["E"][ids] + model["P"][:ids.shape[1]]
    for p in model["blocks"]:
        X = block_forward(X, p, H, mask)
    return layer_norm(X, model["g_f"], model["beta_f"]) @ model["E"].T


T = 8
strict = np.tri(T, k=-1, dtype=bool)                               # key s visible to query t only if s < t
with np.errstate(invalid="ignore"):
    X1 = model["E"][ids[:, :T]] + model["P"][:T]
    X1 = block_forward(X1, model["blocks"][0], H, strict)
    Z_strict = forward_with_mask(ids[:, :T], strict)
print(check_true("(c) after the first block only position 0 is NaN (its scores are all -inf)",
                 np.isnan(X1[:, 0]).all() and not np.isnan(X1[:, 1:]).any(), "NaN in row 0 only"))
print(check_true("(c) after the second block every position is NaN: rows 1.. read row 0's keys and values",
                 np.isnan(Z_strict).all() and L == 2, f"{int(np.isnan(Z_strict).sum())} of {Z_strict.size} logits NaN"))
print(check_true("(c) with the causal mask (diagonal kept) nothing is NaN", not np.isnan(forward_with_mask(ids[:, :T],
                 causal_mask(T))).any(), "no NaN"))
