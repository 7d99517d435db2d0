"""P14 Prefill and decode: the arithmetic intensity (FLOPs per byte moved) of one layer of Llama 3 8B
in 16-bit numbers, for B token rows at once; the A100's ridge point and the batch that reaches it;
what each sequence's key-value cache adds at context T, with n_kv = 8 and n_kv = H."""
import math

from esm import check_close, check_equal, check_true, glue, table

# One layer of Llama 3 8B (Grattafiori et al., 2024): its matrices, (rows, columns).
d, H, n_kv, d_k, d_ff = 4096, 32, 8, 128, 14336


def layer(kv):
    """The layer's matrices with kv key-value heads (Llama 3 8B has 8; kv = H is multi-head attention)."""
    return {"W_Q": (d, H * d_k), "W_K": (d, kv * d_k), "W_V": (d, kv * d_k), "W_O": (H * d_k, d),
            "W_1": (d, d_ff), "W_3": (d, d_ff), "W_2": (d_ff, d)}


n_bytes = 2                                             # 16-bit weights and activations
# NVIDIA A100 80GB SXM (datasheet): dense BF16 tensor-core peak and memory bandwidth.
PEAK, BANDWIDTH = 312e12, 2039e9                        # FLOP/s, byte/s
ridge = PEAK / BANDWIDTH                                # FLOPs per byte at which the two take equal time


def sums(kv):
    """N_W, the weights of the layer's matrices, and N_X, the numbers one token row reads into and writes out of them."""
    return sum(m * n for m, n in layer(kv).values()), sum(m + n for m, n in layer(kv).values())


P, A = sums(n_kv)


def intensity(B):
    """Closed form: 2B N_W FLOPs over n_bytes (N_W + B N_X) bytes, for B token rows through the layer's matrices."""
    return 2 * B * P / (n_bytes * (P + B * A))


def counted(B, kv=n_kv):
    """The same by a loop over the matrices: (B x m) times (m x n) is B n dot products of m terms, a
    multiplication and an addition each; it reads the m n weights and the B m inputs, writes B n outputs."""
    flops = moved = 0
    for m, n in layer(kv).values():
        flops += B * n * (m + m)
        moved += n_bytes * (m * n + B * m + B * n)
    return flops, moved


def per_byte(flops_and_bytes):
    return flops_and_bytes[0] / flops_and_bytes[1]


Bs = (1, 7, 64, 1000)
print(check_close(f"B = {', '.join(map(str, Bs))}: the closed form 2B N_W / (n_bytes (N_W + B N_X)) = the FLOPs over the "
                  "bytes summed matrix by matrix", [intensity(B) for B in Bs],
                  [per_byte(counted(B)) for B in Bs], rtol=1e-12, eq="intensity"))
# The batch where the step reaches the ridge: solve 2B N_W = ridge n_bytes (N_W + B N_X) for B.
B_star = ridge * n_bytes * P / (2 * P - ridge * n_bytes * A)
B_first = next(B for B in range(1, 10_000) if per_byte(counted(B)) >= ridge)
print(check_equal("the first whole batch at or above the ridge, by the loop's counts = ceil of the closed form's B*",
                  B_first, math.ceil(B_star), eq="intensity"))
i1 = intensity(1)
print(check_true("decoding one sequence: just under 1 FLOP per byte, two orders of magnitude below the ridge", 0.99 < i1 < 1,
                 f"I(1) = {i1:.6f}, ridge = {ridge:.1f}"))


def step(B, T, kv):
    """A decode step of B sequences at context T: the layer's matrices, plus for each sequence its cache's
    keys and values (2 T kv d_k numbers read) and the attention over them (2 T H d_k FLOPs for the scores,
    as many for the weighted values)."""
    flops, moved = counted(B, kv)
    return flops + B * 4 * T * H * d_k, moved + n_bytes * B * 2 * T * kv * d_k


def attention_intensity(T, kv):
    """The attention over the cache alone: 4 T H d_k FLOPs over n_bytes 2 T kv d_k bytes = 2H / (n_bytes kv)."""
    return 4 * T * H * d_k / (n_bytes * 2 * T * kv * d_k)



def limit(T, kv):
    """As B grows, the step's intensity tends to (2 N_W + 4 T H d_k) / (n_bytes (N_X + 2 T kv d_k)): the
    weights' bytes are shared by the batch, the cache's are not."""
    Pk, Ak = sums(kv)
    return (2 * Pk + 4 * T * H * d_k) / (n_bytes * (Ak + 2 * T * kv * d_k))


def T_limit(kv):
    """The longest context at which some batch still reaches the ridge: limit(T, kv) = ridge, solved for T."""
    Pk, Ak = sums(kv)
    return (2 * Pk - ridge * n_bytes * Ak) / (d_k * (2 * ridge * n_bytes * kv - 4 * H))


T_ctx = 8192
for kv in (n_kv, H):
    f, b = step(10 ** 9, T_ctx, kv)
    print(check_close(f"n_kv = {kv}, T = {T_ctx:,}: the step's intensity, counted at B = 10^9, = its limit as B grows",
                      f / b, limit(T_ctx, kv), rtol=1e-6, eq="kv-step"))
    Tl = T_limit(kv)
    at = [limit(T, kv) for T in (math.floor(Tl), math.ceil(Tl))]
    print(check_true(f"n_kv = {kv}: the limit is above the ridge at T = {math.floor(Tl)} and below it at T = {math.ceil(Tl)}",
                     at[0] > ridge > at[1], f"{at[0]:.3f} and {at[1]:.3f} against {ridge:.3f}"))

rows = []
for B in (1, 16, math.ceil(B_star), 1024):
    rows.append([f"{B:,}", f"{intensity(B):.1f}"] +
                [f"{per_byte(step(B, T_ctx, kv)):.1f}" for kv in (n_kv, H)])
print(table(["sequences $B$", "FLOPs per byte, weights only", f"with the cache at $T={T_ctx:,}$, $n_{{\\text{{kv}}}}={n_kv}$",
             f"the same with $n_{{\\text{{kv}}}}={H}$"], rows))
print(glue("peak_tflops", round(PEAK / 1e12)), glue("bw_gbs", round(BANDWIDTH / 1e9), ","), glue("ridge", ridge, ".0f"),
      glue("i1", i1, ".4f"), glue("B_star", math.ceil(B_star)), glue("P_layer", P, ","), glue("A_layer", A, ","))
print(glue("T_ctx", T_ctx, ","), glue("lim_gqa", limit(T_ctx, n_kv), ".0f"), glue("lim_mha", limit(T_ctx, H), ".1f"),
      glue("Tl_gqa", math.floor(T_limit(n_kv)), ","), glue("Tl_mha", math.floor(T_limit(H)), ","))
print(glue("group", H // n_kv))
