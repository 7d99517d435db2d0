"""P14 Grouped-query attention: repeat_kv and causal grouped-query attention, checked against P5's
multi-head attention; the pencil example H = 4, n_kv = 2, T = 3; the bytes of one layer's cache."""
import math

import numpy as np

from esm import (causal_mask, check_close, check_equal, check_true, glue, merge_heads, multi_head_attention, shape_table, softmax,
                 split_heads)


def repeat_kv(KV, n_rep):
    """(n_kv, T, d_k) -> (n_kv * n_rep, T, d_k): each key (or value) head repeated n_rep times in a row,
    so that query head h finds the key-value head of its group, h // n_rep, at index h."""
    return np.repeat(KV, n_rep, axis=0)


def gqa(X, W_Q, W_K, W_V, H, n_kv):
    """Causal grouped-query attention of one sequence X (T, d): W_Q is d x (H d_k), W_K and W_V are
    d x (n_kv d_k). Returns the H heads side by side, (T, H d_k), before W_O, and the keys and
    values that a cache keeps: n_kv heads each, not H."""
    T = X.shape[0]
    Q = split_heads(X @ W_Q, H)                           # (H, T, d_k)
    K = split_heads(X @ W_K, n_kv)                        # (n_kv, T, d_k): what the cache stores
    V = split_heads(X @ W_V, n_kv)
    d_k = Q.shape[-1]
    K_all, V_all = repeat_kv(K, H // n_kv), repeat_kv(V, H // n_kv)      # (H, T, d_k), copies
    S = Q @ K_all.transpose(0, 2, 1) / math.sqrt(d_k)     # (H, T, T) scores
    A = softmax(np.where(causal_mask(T), S, -np.inf))     # masked, row by row
    return merge_heads(A @ V_all), (K, V)


rng = np.random.default_rng(14)
T, d, H = 8, 32, 8
d_k = d // H
X = rng.normal(size=(T, d))
W_Q = rng.normal(size=(d, d)) / math.sqrt(d)
# n_kv = H: grouped-query attention is P5's multi-head attention (W_O = I, to see the heads side by side).
# n_kv < H: it is multi-head attention whose W_K and W_V repeat each key-value head's d_k columns for its group.
worst = 0.0
for n_kv in (8, 4, 2, 1):
    W_K, W_V = (rng.normal(size=(d, n_kv * d_k)) / math.sqrt(d) for _ in "KV")
    cols = [j * d_k + c for j in range(n_kv) for _ in range(H // n_kv) for c in range(d_k)]
    want = multi_head_attention(X, W_Q, W_K[:, cols], W_V[:, cols], np.eye(d), H, mask=causal_mask(T))
    worst = max(worst, float(np.abs(gqa(X, W_Q, W_K, W_V, H, n_kv)[0] - want).max()))
print(check_close(f"H = {H}, n_kv = 8, 4, 2, 1: gqa with repeat_kv = P5's multi-head attention with W_K, W_V widened "
                  "by repeating each group's columns (largest difference)", worst, 0.0, atol=1e-12, eq="gqa"))
n_kv = 2
W_K2, W_V2 = (rng.normal(size=(d, n_kv * d_k)) / math.sqrt(d) for _ in "KV")
out2, (K2, V2) = gqa(X, W_Q, W_K2, W_V2, H, n_kv)
KV = "n_{\\text{kv}}"                                   # the shape symbol n_kv, typeset
print(shape_table({"T": T, "d": d, "H": H, KV: n_kv, "d_k": d_k}, [
    ("input rows", "X", X, "T d", "one sequence"),
    ("keys, the cache's half", "K", K2, KV + " T d_k", "one per key-value head"),
    ("keys after `repeat_kv`", "", repeat_kv(K2, H // n_kv), "H T d_k", "copies for the product, not cached"),
    ("heads side by side", "", out2, "T d", "before $W_O$"),
]))

# The pencil example: H = 4 query heads, n_kv = 2 key-value heads, T = 3 tokens, d_k = 2, width d = H d_k = 8.
Hp, n_kvp, Tp, d_kp = 4, 2, 3, 2
dp = Hp * d_kp
group = [h // (Hp // n_kvp) for h in range(Hp)]
print(check_equal("H = 4, n_kv = 2: query heads 0, 1, 2, 3 read key-value heads h // 2", group, [0, 0, 1, 1], eq="gqa"))
Xp = rng.integers(-1, 2, size=(Tp, dp)).astype(float)
Wq, Wk, Wv = (rng.integers(-1, 2, size=(dp, w)).astype(float) for w in (Hp * d_kp, n_kvp * d_kp, n_kvp * d_kp))
Op, (Kp, Vp) = gqa(Xp, Wq, Wk, Wv, Hp, n_kvp)
print(f"X, row 0: {Xp[0].astype(int).tolist()}")
print("W_V, row by row: " + "; ".join(str(r) for r in Wv.astype(int).tolist()))
# Value head j's first row, by hand: row 0 of X times columns 2j, 2j + 1 of W_V, a sum of d products each.
v_hand = [[sum(Xp[0, c] * Wv[c, 2 * j + e] for c in range(dp)) for e in range(d_kp)] for j in range(n_kvp)]
print(check_equal("value heads 0 and 1, first rows: row 0 of X times their columns of W_V, summed term by term",
                  Vp[:, 0], np.array(v_hand), eq="gqa"))
# At position 0 every query sees one key, its weight is 1: heads 0 and 1 both output V^(0)[0], heads 2 and 3 V^(1)[0].
print(check_close("position 0: heads 0, 1 output value head 0's first row, heads 2, 3 value head 1's",
                  Op[0].reshape(Hp, d_kp), Vp[group, 0], atol=1e-12, eq="gqa"))
print(check_true("from position 1 on, heads 0 and 1 share keys and values but not queries: their outputs differ",
                 all(not np.allclose(Op[t, :d_kp], Op[t, d_kp:2 * d_kp]) for t in (1, 2)),
                 f"head 0: {Op[1:, :d_kp].round(2).tolist()}, head 1: {Op[1:, d_kp:2 * d_kp].round(2).tolist()}"))
print(glue("p_group", group), glue("p_row0", Op[0], ".0f"), glue("p_cache_mha", 2 * Tp * Hp * d_kp),
      glue("p_cache_gqa", Kp.size + Vp.size), glue("p_v0", Vp[0, 0], ".0f"), glue("p_v1", Vp[1, 0], ".0f"))
# The cache of one layer, kept in 16-bit floats: its arrays' bytes against 2 T n_kv d_k n_bytes.
kept = sum(a.astype(np.float16).nbytes for a in (K2, V2))
print(check_equal(f"one layer's cache in float16 for T = {T}, n_kv = {n_kv}, d_k = {d_k}: the arrays' nbytes = "
                  "2 T n_kv d_k n_bytes (n_bytes = 2)", kept, 2 * T * n_kv * d_k * 2, eq="gqa-cache"))
