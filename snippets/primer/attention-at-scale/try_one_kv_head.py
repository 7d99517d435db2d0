"""Try this: Llama 3 8B's layer with n_kv = 1 key-value head instead of 8 (multi-query attention).
Expect the cache to shrink eightfold and a large batch at T = 8,192 to come much closer to the ridge,
yet stay below it: the attention over the cache still does only 2H / n_bytes FLOPs per byte, and
every sequence reads its own cache."""
import math

from esm import check_less, check_true

d, H, d_k, d_ff = 4096, 32, 128, 14336
n_kv = 1                                                # changed: was 8
n_bytes, ridge = 2, 312e12 / 2039e9                     # 16-bit numbers; the A100's FLOPs per byte at the ridge


def sums(kv):
    """N_W and N_X of the layer's matrices with kv key-value heads."""
    layer = [(d, H * d_k), (d, kv * d_k), (d, kv * d_k), (H * d_k, d), (d, d_ff), (d, d_ff), (d_ff, d)]
    return sum(m * n for m, n in layer), sum(m + n for m, n in layer)


def limit(T, kv):
    """The intensity of a decode step as the batch grows: the weights' bytes shared, the caches' not."""
    P, A = sums(kv)
    return (2 * P + 4 * T * H * d_k) / (n_bytes * (A + 2 * T * kv * d_k))


def T_limit(kv):
    """The longest context at which some batch still reaches the ridge: limit(T, kv) = ridge, solved for T."""
    P, A = sums(kv)
    return (2 * P - ridge * n_bytes * A) / (d_k * (2 * ridge * n_bytes * kv - 4 * H))


T_ctx = 8192
attn = 4 * T_ctx * H * d_k / (n_bytes * 2 * T_ctx * n_kv * d_k)     # the attention over the cache alone
print(check_true(f"n_kv = {n_kv}, T = {T_ctx:,}: the limit of a large batch is several times that of n_kv = 8",
                 limit(T_ctx, n_kv) > 5 * limit(T_ctx, 8), f"{limit(T_ctx, n_kv):.1f} against {limit(T_ctx, 8):.1f} FLOPs per byte"))
print(check_less("... yet still below the ridge: no batch makes the step wait on arithmetic", limit(T_ctx, n_kv), ridge,
                 names=("limit", "ridge")))
print(check_less("... because the attention over the cache does only 2H / (n_bytes n_kv) FLOPs per byte", attn, ridge,
                 names=("2H / (n_bytes n_kv)", "ridge")))
print(f"the longest context at which some batch reaches the ridge: {math.floor(T_limit(n_kv)):,} tokens with "
      f"n_kv = {n_kv}, {math.floor(T_limit(8)):,} with n_kv = 8")
