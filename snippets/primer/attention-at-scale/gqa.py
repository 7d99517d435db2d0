"""P14 Grouped-query attention: repeat_kv, causal grouped-query attention built with it, checked
against P5's multi-head attention (n_kv = H) and against a loop over heads and positions
(n_kv < H, multi-query attention included); the pencil example H = 4, n_kv = 2, T = 3; the cache a
layer keeps, measured as the arrays' bytes, against 2 T n_kv d_k n_bytes."""
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


def gqa_loop(X, W_Q, W_K, W_V, H, n_kv):
    """The same by loops: query head h, position t, against the keys s <= t of key-value head
    h // (H / n_kv), each score a sum of d_k products, each softmax written out."""
    T = X.shape[0]
    d_k = W_Q.shape[1] // H
    out = np.zeros((T, H * d_k))
    for h in range(H):
        j = h // (H // n_kv)                              # the key-value head of h's group
        q = X @ W_Q[:, h * d_k:(h + 1) * d_k]
        k = X @ W_K[:, j * d_k:(j + 1) * d_k]
        v = X @ W_V[:, j * d_k:(j + 1) * d_k]
        for t in range(T):
            s = [math.fsum(q[t, c] * k[u, c] for c in range(d_k)) / math.sqrt(d_k) for u in range(t + 1)]
            e = [math.exp(x - max(s)) for x in s]
            out[t, h * d_k:(h + 1) * d_k] = sum(w * v[u] for u, w in enumerate(e)) / math.fsum(e)
    return out


rng = np.random.default_rng(14)
T, d, H = 8, 32, 8
d_k = d // H
X = rng.normal(size=(T, d))
W_Q = rng.normal(size=(d, d)) / math.sqrt(d)
# n_kv = H: grouped-query attention is multi-head attention (P5), with W_O = I to see the heads side by side.
W_K, W_V = (rng.normal(size=(d, d)) / math.sqrt(d) for _ in "KV")
print(check_close(f"n_kv = H = {H}: gqa = P5's multi-head attention (W_O = I), causal", gqa(X, W_Q, W_K, W_V, H, H)[0],
                  multi_head_attention(X, W_Q, W_K, W_V, np.eye(d), H, mask=causal_mask(T)), atol=1e-12, eq="gqa"))
# n_kv < H: against the loop over heads and positions, for every n_kv that divides H (n_kv = 1: multi-query).
for n_kv in (4, 2, 1):
    W_Kg, W_Vg = (rng.normal(size=(d, n_kv * d_k)) / math.sqrt(d) for _ in "KV")
    print(check_close(f"n_kv = {n_kv}: gqa with repeat_kv = a loop over heads h reading key-value head h // {H // n_kv}",
                      gqa(X, W_Q, W_Kg, W_Vg, H, n_kv)[0], gqa_loop(X, W_Q, W_Kg, W_Vg, H, n_kv), atol=1e-12, eq="gqa"))
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

# The pencil example: H = 4 query heads, n_kv = 2 key-value heads, T = 3 tokens, d_k = 2.
Hp, n_kvp, Tp, d_kp = 4, 2, 3, 2
group = [h // (Hp // n_kvp) for h in range(Hp)]
print(check_equal("H = 4, n_kv = 2: query heads 0, 1, 2, 3 read key-value heads h // 2", group, [0, 0, 1, 1], eq="gqa"))
Xp = rng.integers(-2, 3, size=(Tp, 4)).astype(float)
Wq, Wk, Wv = (rng.integers(-1, 2, size=(4, w)).astype(float) for w in (Hp * d_kp, n_kvp * d_kp, n_kvp * d_kp))
Op, (Kp, Vp) = gqa(Xp, Wq, Wk, Wv, Hp, n_kvp)
# At position 0 every query sees one key, its weight is 1: heads 0 and 1 both output V^(0)[0], heads 2 and 3 V^(1)[0].
print(check_close("position 0: heads 0, 1 output value head 0's first row, heads 2, 3 value head 1's",
                  Op[0].reshape(Hp, d_kp), Vp[group, 0], atol=1e-12, eq="gqa"))
print(check_true("from position 1 on, heads 0 and 1 share keys and values but not queries: their outputs differ",
                 all(not np.allclose(Op[t, :d_kp], Op[t, d_kp:2 * d_kp]) for t in (1, 2)),
                 f"head 0: {Op[1:, :d_kp].round(2).tolist()}, head 1: {Op[1:, d_kp:2 * d_kp].round(2).tolist()}"))
print(glue("p_group", group), glue("p_row0", Op[0], ".0f"), glue("p_cache_mha", 2 * Tp * Hp * d_kp),
      glue("p_cache_gqa", Kp.size + Vp.size))
# The cache of one layer, kept in 16-bit floats: its arrays' bytes against 2 T n_kv d_k n_bytes.
kept = sum(a.astype(np.float16).nbytes for a in (K2, V2))
print(check_equal(f"one layer's cache in float16 for T = {T}, n_kv = {n_kv}, d_k = {d_k}: the arrays' nbytes = "
                  "2 T n_kv d_k n_bytes (n_bytes = 2)", kept, 2 * T * n_kv * d_k * 2, eq="gqa-cache"))
