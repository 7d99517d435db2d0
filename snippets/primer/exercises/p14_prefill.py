"""Exercise: prefill against decode for Gemma 2B on an A100, in the roofline model: a step takes the
longer of its FLOPs at the peak rate and its bytes at the memory bandwidth. Tokens per second for
decoding one sequence, for prefilling a prompt of 8,192 tokens (its causal attention included), the
batch at which decoding matches prefill when the cache is left out, and the best decoding rate when
every sequence reads a cache of 8,192 tokens."""
import math

from esm import check_close, check_equal, check_true, glue

# Gemma 2B (Gemma Team, 2024, Tables 1 and 2) and the A100 80GB SXM (NVIDIA's datasheet).
L, d, H, n_kv, d_k, d_ff, V = 18, 2048, 8, 1, 256, 16384, 256128
N = 524_550_144 + 1_981_884_416                     # embedding + non-embedding parameters, Table 2
PEAK, BW, n_bytes = 312e12, 2039e9, 2


def step_time(flops, moved):
    """The roofline: the step waits for the slower of its arithmetic and its memory traffic."""
    return max(flops / PEAK, moved / BW)


# (a) A decode step of B sequences: 2N FLOPs per token (the lookup is free, the tied head is not), the
# weights read once; plus, at context T, 4 L T H d_k FLOPs of attention and 2 L T n_kv d_k numbers of
# cache per sequence. A prefill of T tokens: 2N T FLOPs and the causal attention's 2 L T^2 H d_k (half
# of all T^2 pairs, a multiplication and an addition for each score and each weighted value), weights once.
def decode(B, T=0):
    return step_time(B * (2 * N + 4 * L * T * H * d_k), n_bytes * (N + B * 2 * L * T * n_kv * d_k))


def prefill(T):
    return step_time(2 * N * T + 2 * L * T * T * H * d_k, n_bytes * N)


T = 8192
dec1, pre = 1 / decode(1), T / prefill(T)          # tokens per second
print(check_true("(b) decoding one sequence is bound by memory, a prefill of 8,192 tokens by arithmetic",
                 2 * N / PEAK < n_bytes * N / BW and (2 * N * T + 2 * L * T * T * H * d_k) / PEAK > n_bytes * N / BW,
                 f"decode: {2 * N / PEAK * 1e3:.3f} ms of arithmetic, {n_bytes * N / BW * 1e3:.2f} ms of reading"))
print(check_close("(b) decode rate of one sequence = bandwidth / weights' bytes", dec1, BW / (n_bytes * N), rtol=1e-12))
# (c) Batch without the cache: the rate B / decode(B) grows until the step turns compute-bound at B = PEAK / BW.
B_match = next(B for B in range(1, 10_000) if B / decode(B) >= pre)
print(check_equal("(c) the batch that matches prefill = the ratio of the two rates in (b), rounded up (memory-bound: "
                  "B sequences take the time of one)", B_match, math.ceil(pre / dec1)))
rates = [B / decode(B) for B in range(1, 2000)]
print(check_true("(c) without the cache, the decoding rate tops out at PEAK / (2N), above prefill's (which pays for attention)",
                 max(rates) <= PEAK / (2 * N) * (1 + 1e-12) and PEAK / (2 * N) > pre,
                 f"best {max(rates):,.0f} tokens/s, PEAK/(2N) = {PEAK / (2 * N):,.0f}, prefill {pre:,.0f}"))
# With every sequence's cache at 8,192 tokens, the rate tends to a limit however large the batch.
limit = 1 / max((2 * N + 4 * L * T * H * d_k) / PEAK, n_bytes * 2 * L * T * n_kv * d_k / BW)
print(check_close("(c) with caches of 8,192 tokens, B = 10^6 sequences decode at the limit of the per-sequence cost",
                  10 ** 6 / decode(10 ** 6, T), limit, rtol=1e-3))
cache_B = B_match * 2 * L * T * n_kv * d_k * n_bytes
print(check_true(f"(c) the weights and the caches of {B_match} sequences of {T:,} tokens fit in 80 GB",
                 n_bytes * N + cache_B < 80e9, f"{(n_bytes * N + cache_B) / 1e9:.1f} GB"))
print(check_true(f"(c) with those caches, {B_match} sequences decode far slower than prefill",
                 B_match / decode(B_match, T) < limit < pre, f"{B_match / decode(B_match, T):,.0f} tokens/s, limit {limit:,.0f}"))
print(check_true("(c) the limit with caches is below a quarter of the prefill's rate", limit < pre / 4,
                 f"{limit:,.0f} < {pre / 4:,.0f} tokens/s"))
print(glue("pf_dec1", dec1, ",.0f"), glue("pf_pre", pre, ",.0f"), glue("pf_ratio", pre / dec1, ".0f"),
      glue("pf_Bmatch", B_match), glue("pf_limit", limit, ",.0f"), glue("pf_cache_gb", cache_B / 1e9, ".0f"),
      glue("pf_Bcache", B_match / decode(B_match, T), ",.0f"))
print(glue("pf_attn_share", 2 * L * T * T * H * d_k / (2 * N * T + 2 * L * T * T * H * d_k), ".0%"))
