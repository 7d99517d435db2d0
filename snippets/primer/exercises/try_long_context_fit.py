"""Try this: in part (c) of the exercise on grouped-query attention without copies, fill the 80 GB GPU with
caches of 131,072 tokens (2^17) instead of 8,192. Expect multi-head attention (n_kv = 32) to fit not a single
sequence beside the weights, while multi-query attention (n_kv = 1) still fits more sequences of that length
than multi-head attention fitted at 8,192 tokens."""
from esm import check_less, check_true

L3 = dict(L=32, d=4096, H=32, n_kv=8, d_k=128, d_ff=14336, V=128256)      # Llama 3 8B
n_bytes, MEMORY = 2, 80e9                                                 # 16-bit floats; 80 GB as 80 x 10^9 bytes


def n_params(c):
    """The chapter's count: untied tables, narrowed W_K and W_V, the gated layer, two gains per layer, a final gain."""
    return 2 * c["V"] * c["d"] + c["L"] * (2 * c["d"] * c["H"] * c["d_k"] + 2 * c["d"] * c["n_kv"] * c["d_k"]
                                           + 3 * c["d"] * c["d_ff"] + 2 * c["d"]) + c["d"]


def fit(kv, T):
    """The weights once, then as many caches of T tokens as fit in the rest: (sequences, weights, one cache)."""
    c = dict(L3, n_kv=kv)
    weights, per_seq = n_params(c) * n_bytes, 2 * c["L"] * T * kv * c["d_k"] * n_bytes
    return max(0, int((MEMORY - weights) // per_seq)), weights, per_seq


T8 = 2 ** 17                                                              # changed: was 8192
fits = {kv: fit(kv, T8) for kv in (8, 32, 1)}
n32, w32, c32 = fits[32]
print(check_less(f"n_kv = 32, T = {T8:,}: the weights and one sequence's cache no longer fit in 80 GB", int(MEMORY), w32 + c32,
                 names=("80 GB", "weights + one cache")))
print(check_true(f"... while n_kv = 1 fits more sequences of {T8:,} tokens than n_kv = 32 fits of 8,192",
                 fits[1][0] > fit(32, 8192)[0], f"{fits[1][0]} against {fit(32, 8192)[0]}"))
print(f"sequences of {T8:,} tokens beside the weights: " + ", ".join(f"n_kv = {kv}: {n}" for kv, (n, _, _) in fits.items()))
