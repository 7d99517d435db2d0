"""Exercise: grouped-query attention without copies. The query heads reshaped to (n_kv, H/n_kv, T, d_k)
are scored against their group's key head by broadcasting, with no repeat_kv; checked against the
chapter's gqa (repeat_kv) for n_kv = 1, 2 and H. Then the memory repeat_kv's copies take in one layer
of Llama 3 8B, and how many sequences of 8,192 tokens fit beside its weights on an 80 GB GPU, for
n_kv = 8, 32 and 1."""
import math

import numpy as np


def gqa_grouped(X, W_Q, W_K, W_V, H, n_kv):
    """Causal grouped-query attention of one sequence X (T, d), without copying keys or values: query
    head h = j g + r (g = H / n_kv) sits at [j, r] of the grouped queries and meets key head j by broadcasting."""
    T = X.shape[0]
    g, d_k = H // n_kv, W_Q.shape[1] // H
    Q = (X @ W_Q).reshape(T, n_kv, g, d_k).transpose(1, 2, 0, 3)      # (n_kv, g, T, d_k)
    K = (X @ W_K).reshape(T, n_kv, d_k).transpose(1, 0, 2)[:, None]    # (n_kv, 1, T, d_k): one per group
    V = (X @ W_V).reshape(T, n_kv, d_k).transpose(1, 0, 2)[:, None]
    S = Q @ K.transpose(0, 1, 3, 2) / math.sqrt(d_k)                   # (n_kv, g, T, T)
    S = np.where(np.tri(T, dtype=bool), S, -np.inf)
    A = np.exp(S - S.max(-1, keepdims=True))
    O = (A / A.sum(-1, keepdims=True)) @ V                              # (n_kv, g, T, d_k)
    return O.transpose(2, 0, 1, 3).reshape(T, H * d_k)                  # head h = j g + r in columns h d_k ...


# ---- Below: the checks and the values the solution quotes. ----
from esm import (causal_mask, check_close, check_equal, check_true, glue, merge_heads, softmax,  # noqa: E402
                 split_heads)


def gqa(X, W_Q, W_K, W_V, H, n_kv):
    """The chapter's gqa, as on its page: repeat_kv copies each key-value head for its group."""
    T = X.shape[0]
    Q, K, V = split_heads(X @ W_Q, H), split_heads(X @ W_K, n_kv), split_heads(X @ W_V, n_kv)
    K_all, V_all = np.repeat(K, H // n_kv, axis=0), np.repeat(V, H // n_kv, axis=0)
    S = Q @ K_all.transpose(0, 2, 1) / math.sqrt(Q.shape[-1])
    return merge_heads(softmax(np.where(causal_mask(T), S, -np.inf)) @ V_all)


rng = np.random.default_rng(40)
T, d, H = 9, 24, 6
d_k = d // H
X = rng.normal(size=(T, d))
W_Q = rng.normal(size=(d, d)) / math.sqrt(d)
for n_kv in (1, 2, H):
    W_K, W_V = (rng.normal(size=(d, n_kv * d_k)) / math.sqrt(d) for _ in "KV")
    print(check_close(f"(b) H = {H}, n_kv = {n_kv}: gqa_grouped (broadcasting, no copies) = the chapter's gqa (repeat_kv)",
                      gqa_grouped(X, W_Q, W_K, W_V, H, n_kv), gqa(X, W_Q, W_K, W_V, H, n_kv), atol=1e-12))
# (a) The reshape puts query head h = j g + r at [j, r]: label every column by its head and read the labels back.
n_kv, g = 2, H // 2
heads = np.repeat(np.arange(H), d_k)[None, :]                           # column c belongs to head c // d_k
print(check_equal(f"(a) H = {H}, n_kv = {n_kv}: after the reshape, entry [j, r] holds query head j g + r (g = {g})",
                  heads.reshape(1, n_kv, g, d_k)[0, :, :, 0], np.arange(H).reshape(n_kv, g)))

# (a) one layer of Llama 3 8B at T = 8,192 in 16-bit floats: repeat_kv's copies against the layer's cache.
L3 = dict(L=32, d=4096, H=32, n_kv=8, d_k=128, d_ff=14336, V=128256)
T8, n_bytes = 8192, 2
copies = 2 * T8 * L3["H"] * L3["d_k"] * n_bytes
cache = np.zeros((2, L3["n_kv"], T8, L3["d_k"]), dtype=np.float16)      # one layer's keys and values; zeros touch no page
print(check_equal("(a) one layer's cache array: nbytes = 2 T n_kv d_k n_bytes", cache.nbytes, 2 * T8 * L3["n_kv"] * L3["d_k"] * 2))
print(glue("gq_copies_mb", copies / 1e6, ".0f"), glue("gq_layer_mb", cache.nbytes / 1e6, ".0f"),
      glue("gq_copy_ratio", copies // cache.nbytes))
del cache


# (c) Llama 3 8B's weights once on an 80 GB GPU (NVIDIA's A100 80GB), caches of 8,192 tokens in the rest.
def n_params(c):
    """The chapter's count: untied tables, narrowed W_K and W_V, the gated layer, two gains per layer, a final gain."""
    return 2 * c["V"] * c["d"] + c["L"] * (2 * c["d"] * c["H"] * c["d_k"] + 2 * c["d"] * c["n_kv"] * c["d_k"]
                                           + 3 * c["d"] * c["d_ff"] + 2 * c["d"]) + c["d"]


MEMORY = 80e9                                                           # 80 GB, taken as 80 x 10^9 bytes
fits = {}
for kv in (8, 32, 1):
    c = dict(L3, n_kv=kv)
    weights = n_params(c) * n_bytes
    per_seq = 2 * c["L"] * T8 * kv * c["d_k"] * n_bytes
    n = int((MEMORY - weights) // per_seq)
    # n sequences fit and one more does not, added one at a time
    print(check_true(f"(c) n_kv = {kv}: {n} sequences of {T8:,} tokens fit beside the weights, {n + 1} do not",
                     weights + n * per_seq <= MEMORY < weights + (n + 1) * per_seq,
                     f"weights {weights / 1e9:.2f} GB, cache {per_seq / 1e9:.3f} GB per sequence"))
    fits[kv] = n, weights
print(check_equal("(c) n_kv = 8: the weights' bytes = the released checkpoint's total_size, 16,060,522,496", fits[8][1],
                  16_060_522_496))
print(check_true("(c) n_kv = 32 fits fewer than a quarter of n_kv = 8's sequences, n_kv = 1 more than eight times as many",
                 4 * fits[32][0] < fits[8][0] and fits[1][0] > 8 * fits[8][0],
                 f"{fits[32][0]}, {fits[8][0]}, {fits[1][0]} sequences"))
print(glue("gq_fit8", fits[8][0]), glue("gq_fit32", fits[32][0]), glue("gq_fit1", fits[1][0]),
      glue("gq_w8", fits[8][1] / 1e9, ".1f"), glue("gq_w32", fits[32][1] / 1e9, ".1f"))
