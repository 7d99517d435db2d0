"""Exercise: grouped-query attention. H query heads share G key-value heads (H/G query heads
per group): written in numpy, checked against multi-head attention whose key and value heads are
copied group by group, and against it unchanged when G = H; its key and value projections and its
cache, 2 L T G d_k n_bytes, counted from the arrays and measured by nbytes."""
import numpy as np


def gqa(X, W_Q, W_K, W_V, H, G):
    """Causal grouped-query attention of one sequence X (T, d): W_Q (d, d), W_K and W_V (d, G d_k).
    Returns the heads side by side (T, d) before W_O, and the keys and values a cache would keep."""
    T, d = X.shape
    dk = d // H
    Q = (X @ W_Q).reshape(T, H, dk).transpose(1, 0, 2)                 # (H, T, d_k)
    K = (X @ W_K).reshape(T, G, dk).transpose(1, 0, 2)                 # (G, T, d_k)
    V = (X @ W_V).reshape(T, G, dk).transpose(1, 0, 2)
    group = np.arange(H) // (H // G)                                    # query head h reads key-value head h // (H/G)
    S = Q @ K[group].transpose(0, 2, 1) / np.sqrt(dk)
    S = np.where(np.tri(T, dtype=bool), S, -np.inf)
    A = np.exp(S - S.max(-1, keepdims=True))
    O = (A / A.sum(-1, keepdims=True)) @ V[group]
    return O.transpose(1, 0, 2).reshape(T, d), (K, V)


# ---- Below: the checks and the values the solution quotes. ----
from esm import causal_mask, check_close, check_equal, glue, multi_head_attention  # noqa: E402

rng = np.random.default_rng(38)
T, d, H, G = 10, 24, 6, 2
dk, per = d // H, H // G
X = rng.normal(size=(T, d))
W_Q, W_K, W_V = rng.normal(size=(d, d)), rng.normal(size=(d, G * dk)), rng.normal(size=(d, G * dk))
out, (K, V) = gqa(X, W_Q, W_K, W_V, H, G)
# The second route: esm.multi_head_attention with each key-value head's columns copied for its H/G query heads.
cols = np.concatenate([np.arange(g * dk, (g + 1) * dk) for g in range(G) for _ in range(per)])
print(check_close(f"(b) GQA with H = {H}, G = {G} = multi-head attention with W_K, W_V copied group by group",
                  out, multi_head_attention(X, W_Q, W_K[:, cols], W_V[:, cols], np.eye(d), H, mask=causal_mask(T)),
                  atol=1e-12))
W_Kf, W_Vf = rng.normal(size=(d, d)), rng.normal(size=(d, d))
print(check_close("(b) with G = H it is multi-head attention", gqa(X, W_Q, W_Kf, W_Vf, H, H)[0],
                  multi_head_attention(X, W_Q, W_Kf, W_Vf, np.eye(d), H, mask=causal_mask(T)), atol=1e-12))
print(check_close("(b) with G = 1 every query head reads the same keys: head 0's output through one shared head",
                  gqa(X, W_Q, W_K[:, :dk], W_V[:, :dk], H, 1)[0][:, :dk],
                  multi_head_attention(X, W_Q[:, :dk], W_K[:, :dk], W_V[:, :dk], np.eye(dk), 1, mask=causal_mask(T)),
                  atol=1e-12))
print(check_equal("(a) the attention's weights: 2 d^2 + 2 d G d_k (W_Q, W_O, and the narrower W_K, W_V)",
                  sum(W.size for W in (W_Q, W_K, W_V)) + d * d, 2 * d * d + 2 * d * G * dk))
half = {"K": K.astype(np.float16), "V": V.astype(np.float16)}
print(check_equal(f"(a) one layer's cache for T = {T} tokens in float16: nbytes = 2 T G d_k n_bytes",
                  sum(a.nbytes for a in half.values()), 2 * T * G * dk * 2))

# (c) the cache of a 32-layer model with d = 4096, H = 32 (d_k = 128), at T = 4096, in 16-bit floats.
L7, d7, H7, T7 = 32, 4096, 32, 4096
dk7 = d7 // H7
for g_ in (32, 8, 1):
    cache = np.zeros((L7, 2, g_, T7, dk7), dtype=np.float16)          # zeros: no page is touched
    print(check_equal(f"(c) G = {g_}: the cache array's nbytes = 2 L T G d_k n_bytes", cache.nbytes, 2 * L7 * T7 * g_ * dk7 * 2))
    print(glue(f"gq_mb{g_}", cache.nbytes / 1e6, ",.0f"))
    del cache
print(glue("gq_attn_full", 4 * d7 * d7 / 1e6, ".1f"), glue("gq_attn8", (2 * d7 * d7 + 2 * d7 * 8 * dk7) / 1e6, ".1f"))
