"""Exercise: predictions about the forward pass of P7, run on the primer's tiny model: the shape of
the logits and the longest input the position table allows; position 0 sees only itself, so its
logits depend on the first token alone; and a mask that hides the diagonal turns position 0's
weights, then the whole output, into NaN."""
import numpy as np

from esm import (TINY, block_forward, causal_mask, check_close, check_equal, check_true, glue, gpt_forward, layer_norm,
                 tiny_gpt)

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

# (b) position 0 attends to itself only, so its logits are those of the one-token sequence, whatever follows.
Z = gpt_forward(ids, model)
print(check_close("(b) row 0 of the logits = the logits of the first token alone (each of the 4 sequences)",
                  Z[:, 0], gpt_forward(ids[:, :1], model)[:, 0], atol=1e-12))
same_start = ids.copy()
same_start[:, 0] = ids[0, 0]
Z_same = gpt_forward(same_start, model)
print(check_close("(b) four different sequences that start with the same token: the same row 0", Z_same[:, 0],
                  np.broadcast_to(Z_same[0, 0], Z_same[:, 0].shape), atol=1e-12))
later = float(np.abs(Z_same[1:, 1:] - Z_same[0, 1:]).max())
print(check_true("(b) ... and different later rows", later > 0.1, f"largest difference {later:.3g}"))


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
