"""P13 The modern block: RMSNorm against layer norm, SwiGLU against the GELU MLP (formula and
parameter count), RoPE inside causal attention, and one Llama-style block at d = 48, not P10's 64: the
SwiGLU width that matches GPT-2's parameter count, 8d/3, is whole at 48 and not at 64."""
import math

import numpy as np

from esm import (attention, block_shapes, causal_mask, check_close, check_equal, check_true, glue, layer_norm,
                 merge_heads, rope_rotate, shape_table, sigmoid, split_heads)
from esm.train import TRAIN

rng = np.random.default_rng(12)
d, H, T = 48, 4, 10                                    # a width where 8d/3 is whole, 4 heads, a short window
d_k = d // H
print(check_true(f"8d/3 is whole at d = {d} and not at P10's d = {TRAIN['d']}", 8 * d % 3 == 0 and 8 * TRAIN["d"] % 3 != 0,
                 f"8d mod 3: {8 * d % 3} at {d}, {8 * TRAIN['d'] % 3} at {TRAIN['d']}"))
print(glue("d_mod", d), glue("d_p11", TRAIN["d"]))


def rms_norm(X, g, eps=1e-6):
    """g * x / sqrt(mean(x^2) + eps) over the last axis (Zhang and Sennrich, 2019)."""
    return X / np.sqrt((X * X).mean(-1, keepdims=True) + eps) * g


def silu(z):
    return z * sigmoid(z)


def swiglu(X, W_1, W_3, W_2):
    """(SiLU(X W_1) * (X W_3)) W_2: a gated feed-forward layer without biases (Shazeer, 2020)."""
    return (silu(X @ W_1) * (X @ W_3)) @ W_2


# [rmsnorm]: by a loop over rows and coordinates.
X = rng.normal(size=(T, d)) * 2 + 0.7
g = 1 + 0.1 * rng.normal(size=d)
loop = np.array([[g[i] * x[i] / math.sqrt(math.fsum(v * v for v in x) / d + 1e-6) for i in range(d)] for x in X])
print(check_close("RMSNorm = gamma_i x_i / sqrt(mean of x^2 + eps), row by row in a loop", rms_norm(X, g), loop, atol=1e-12,
                  eq="rmsnorm"))
# Against layer norm: on centred rows the two are the same map; on raw rows they differ by the mean.
Xc = X - X.mean(-1, keepdims=True)
print(check_close("on rows of mean 0, RMSNorm (gain 1) = layer norm (P6's esm.layer_norm)", rms_norm(Xc, 1.0, eps=1e-5),
                  layer_norm(X), atol=1e-12, eq="rmsnorm"))
# Mean square = variance + mean^2, row by row: numpy's var and mean against a loop of squares.
print(check_close("mean of x^2 = s^2 + mu^2 on every row (np.var + np.mean^2 against a loop over the entries)",
                  X.var(-1) + X.mean(-1) ** 2, [math.fsum(v * v for v in x) / d for x in X], atol=1e-12, eq="rmsnorm"))
gap = float(np.abs(rms_norm(X, 1.0, eps=1e-5) - layer_norm(X)).max())
print(glue("rms_gap", gap, ".2f"), glue("row_mean", float(X.mean()), ".1f"))
print(check_true("on the raw rows (mean about 0.7) they differ: RMSNorm does not subtract the mean", gap > 0.1,
                 f"largest difference {gap:.3g}"))
print(check_close("RMSNorm is scale-invariant: RMSNorm(5x) = RMSNorm(x) (eps = 0)", rms_norm(5 * X, g, eps=0),
                  rms_norm(X, g, eps=0), atol=1e-12))

# [swiglu]: the gated layer by a loop; its parameter count against the GELU MLP's.
f = 4 * d
f_swi = 2 * f // 3                                   # same parameter count as a 4d GELU MLP
W_1, W_3, W_2 = (rng.normal(size=s) * 0.1 for s in ((d, f_swi), (d, f_swi), (f_swi, d)))
hid = np.array([[silu(float(x @ W_1[:, j])) * float(x @ W_3[:, j]) for j in range(f_swi)] for x in X])
print(check_close("SwiGLU = (SiLU(x W_1) * x W_3) W_2, hidden units one at a time", swiglu(X, W_1, W_3, W_2), hid @ W_2,
                  atol=1e-10, eq="swiglu"))
n_gelu, n_swi = 2 * d * f, sum(a.size for a in (W_1, W_3, W_2))
print(glue("f_swi", f_swi), glue("n_gelu", n_gelu, ","), glue("n_swi", n_swi, ","))
# The two counts below are bookkeeping: the arrays were made with these shapes, so summing their sizes
# checks the formula's terms (three matrices of d x d_ff; four d x d, three of SwiGLU, two gains), not a
# measurement. The outside route is Llama 2 7B's published intermediate size, and 8.1's published total.
print(check_equal(f"bookkeeping: SwiGLU of width d_ff = {f_swi} (2/3 of 4d) has 3 d d_ff weights (the sizes of the arrays made)",
                  n_swi, 3 * d * f_swi, eq="swiglu-count"))
print(check_equal("... which is 8 d^2, the GELU MLP's", n_swi, n_gelu, eq="swiglu-count"))
# Llama 2 7B's width: 2/3 of 4d rounded up to a multiple of 256 (the rule of its reference code).
d7 = 4096
f7 = 256 * math.ceil(2 * 4 * d7 / 3 / 256)
print(glue("f7_exact", 8 * d7 / 3, ",.1f"), glue("f7", f7, ","))
print(check_equal("Llama 2 7B: 256 * ceil((2/3)(4d) / 256) at d = 4096 = the published intermediate size 11,008", f7, 11008,
                  eq="swiglu-count"))


# RoPE inside causal attention, RMSNorm before each half, SwiGLU, no biases: one Llama-style block.
def llama_block(X, p, positions):
    A = rms_norm(X, p["g_1"])
    Q, K, V = (split_heads(A @ p[f"W_{n}"], H) for n in "QKV")
    Q, K = rope_rotate(Q, positions), rope_rotate(K, positions)       # per head, pairs of coordinates
    heads, _ = attention(Q, K, V, mask=causal_mask(len(positions)))
    U = X + merge_heads(heads) @ p["W_O"]
    return U + swiglu(rms_norm(U, p["g_2"]), p["W_1"], p["W_3"], p["W_2"])


p = {f"W_{n}": rng.normal(size=(d, d)) * 0.1 for n in "QKVO"}
p |= {"W_1": W_1, "W_3": W_3, "W_2": W_2, "g_1": np.ones(d), "g_2": np.ones(d)}
Y = llama_block(X, p, np.arange(T))
# R_t q_t: pair j of each head (coordinates 2j, 2j+1) turned by t omega_j, omega_j = 10000^(-2j/d_k),
# by explicit 2x2 rotations in a loop, against esm.rope_rotate on the heads.
Qh = split_heads(rms_norm(X, 1.0) @ p["W_Q"], H)
R_loop = Qh.copy()
for h in range(H):
    for t in range(T):
        for j in range(d_k // 2):
            a = t * 10000.0 ** (-2 * j / d_k)
            x0, x1 = Qh[h, t, 2 * j], Qh[h, t, 2 * j + 1]
            R_loop[h, t, 2 * j], R_loop[h, t, 2 * j + 1] = math.cos(a) * x0 - math.sin(a) * x1, math.sin(a) * x0 + math.cos(a) * x1
print(check_close("R_t q_t: each head's pair j turned by t 10000^(-2j/d_k), 2x2 rotations in a loop = rope_rotate",
                  rope_rotate(Qh, np.arange(T)), R_loop, atol=1e-12))
print(shape_table({"T": T, "d": d, "H": H, "d_k": d_k, "d_ff": f_swi}, [
    ("stream", "X", X, "T d", "no position rows added"),
    ("queries of one head, rotated", "R_t\\mathbf q_t", rope_rotate(split_heads(rms_norm(X, 1.0) @ p["W_Q"], H), np.arange(T))[0],
     "T d_k", "RoPE inside attention"),
    ("gate and up projections", "W_1, W_3", W_1, "d d_ff", "$d_{\\mathrm{ff}}=\\tfrac23\\cdot4d$"),
    ("block output", "Y", Y, "T d", "pre-RMSNorm, RoPE, SwiGLU"),
]))
print(check_close("positions enter only as offsets: the block at positions 100..109 = at 0..9 (RoPE, no position table)",
                  llama_block(X, p, np.arange(100, 100 + T)), Y, atol=1e-10))
Y_late = llama_block(np.vstack([X[:6], rng.normal(size=(T - 6, d))]), p, np.arange(T))
print(check_equal("causal: changing tokens 6..9 leaves rows 0..5 bit for bit unchanged", Y_late[:6], Y[:6]))
n_block = sum(a.size for a in p.values())
print(glue("n_block", n_block, ","), glue("n_gpt2_block", sum(math.prod(s) for s in block_shapes(d).values()), ","))
print(check_equal("bookkeeping: sizes of this block's arrays = 4 d^2 + 3 d d_ff + 2 d (the per-block count of 8.1's Llama formula)", n_block,
                  4 * d * d + 3 * d * f_swi + 2 * d, eq="llama-block"))
print(check_equal("GPT-2's block (12 d^2 + 13 d, P6's block_shapes) minus this one = 11 d: biases and shifts",
                  sum(math.prod(s) for s in block_shapes(d).values()) - n_block, 11 * d))
