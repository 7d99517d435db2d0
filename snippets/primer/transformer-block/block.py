"""P6 A pre-norm transformer block (GPT-2 style) forward pass: layer norm, multi-head
attention, feed-forward, residuals; checked against a token-by-token loop."""
import math

import numpy as np

from esm import (GELU_C, block_forward, causal_mask, check_close, check_equal, gelu_tanh, glue, layer_norm,
                 multi_head_attention, shape_table)

rng = np.random.default_rng(12)
T, d, H = 5, 16, 4
d_k, d_ff = d // H, 4 * d
gelu = gelu_tanh                                               # GPT-2's form (see the GELU section)


p = {name: rng.normal(size=shape) * 0.3 for name, shape in {
    "W_Q": (d, d), "W_K": (d, d), "W_V": (d, d), "W_O": (d, d), "b_Q": (d,), "b_K": (d,), "b_V": (d,), "b_O": (d,),
    "W_1": (d, d_ff), "b_1": (d_ff,), "W_2": (d_ff, d), "b_2": (d,),
    "g_1": (d,), "beta_1": (d,), "g_2": (d,), "beta_2": (d,)}.items()}
p["g_1"] += 1.0
p["g_2"] += 1.0
print(glue("T", T), glue("d", d), glue("H", H))
X = rng.normal(size=(T, d))
mask = causal_mask(T)

# The block, vectorised.
N1 = layer_norm(X, p["g_1"], p["beta_1"])
attn = multi_head_attention(N1, p["W_Q"], p["W_K"], p["W_V"], p["W_O"], H, mask, p["b_Q"], p["b_K"], p["b_V"], p["b_O"])
U = X + attn                                                   # residual around attention
N2 = layer_norm(U, p["g_2"], p["beta_2"])
F_hidden = gelu(N2 @ p["W_1"] + p["b_1"])
ffn = F_hidden @ p["W_2"] + p["b_2"]
Y = U + ffn                                                    # residual around the feed-forward

print(shape_table({"T": T, "d": d, "H": H, "d_k": d_k, "d_ff": d_ff}, [
    ("block input", "X", X, "T d", "the residual stream"),
    ("normalised input", "\\operatorname{LN}_1(X)", N1, "T d", "each row: mean 0, variance 1, then $\\gamma,\\beta$"),
    ("attention output", "\\operatorname{MHA}(\\cdot)", attn, "T d", f"{H} heads of width {d_k}"),
    ("after first residual", "\\tilde X", U, "T d", "$X+\\operatorname{MHA}(\\operatorname{LN}_1(X))$"),
    ("first FFN weights", "W_1", p["W_1"], "d d_ff", "expand to $4d$"),
    ("FFN hidden layer", "\\phi(\\cdot)", F_hidden, "T d_ff", "GELU, token by token"),
    ("second FFN weights", "W_2", p["W_2"], "d_ff d", "back to $d$"),
    ("block output", "Y", Y, "T d", "$\\tilde X+\\operatorname{FFN}(\\operatorname{LN}_2(\\tilde X))$: same shape as $X$"),
]))

# Independent implementation: one token at a time, plain Python sums for the statistics.
def ln_row(x, g, b):
    mu = sum(x) / len(x)
    var = sum((v - mu) ** 2 for v in x) / len(x)
    return np.array([(v - mu) / math.sqrt(var + 1e-5) for v in x]) * g + b


ln_loop = np.array([ln_row(list(X[t]), p["g_1"], p["beta_1"]) for t in range(T)])
print(check_close("layer norm, vectorised vs row by row with Python sums", N1, ln_loop, eq="layer-norm", atol=1e-12))
# By hand: the row (0, 0, 4, 4) has mean 2 and variance (4 + 4 + 4 + 4) / 4 = 4, so without a gain, a
# shift or eps it becomes (x - 2) / 2 = (-1, -1, 1, 1).
x_hand = np.array([0.0, 0.0, 4.0, 4.0])
print(check_close("by hand: LN(0, 0, 4, 4) = (x - 2) / 2 = (-1, -1, 1, 1) (gamma = 1, beta = 0, eps = 0)",
                  layer_norm(x_hand, eps=0.0), np.array([-1.0, -1.0, 1.0, 1.0]), atol=1e-15))
print(check_close("with GPT-2's eps = 1e-5 it is (x - 2) / sqrt(4 + eps)", layer_norm(x_hand),
                  (x_hand - 2.0) / math.sqrt(4.0 + 1e-5), atol=1e-15))
print(glue("ln_hand", [int(v) for v in layer_norm(x_hand, eps=0.0)]))
ffn_loop = np.array([gelu(N2[t] @ p["W_1"] + p["b_1"]) @ p["W_2"] + p["b_2"] for t in range(T)])
print(check_close("the feed-forward acts on each token separately (loop over tokens)", ffn, ffn_loop, eq="ffn", atol=1e-12))

Y_loop = np.zeros((T, d))
for t in range(T):                                             # token t sees tokens 0..t only
    n = [ln_row(list(X[j]), p["g_1"], p["beta_1"]) for j in range(t + 1)]
    q = n[t] @ p["W_Q"] + p["b_Q"]
    ks = [nj @ p["W_K"] + p["b_K"] for nj in n]
    vs = [nj @ p["W_V"] + p["b_V"] for nj in n]
    head_out = []
    for h in range(H):
        c = slice(h * d_k, (h + 1) * d_k)
        e = [math.exp(float(q[c] @ k[c]) / math.sqrt(d_k)) for k in ks]
        head_out.append(sum(w / sum(e) * v[c] for w, v in zip(e, vs)))
    u = X[t] + np.concatenate(head_out) @ p["W_O"] + p["b_O"]
    n2 = ln_row(list(u), p["g_2"], p["beta_2"])
    a = n2 @ p["W_1"] + p["b_1"]
    hidden = np.array([0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + GELU_C * v ** 3))) for v in a])
    Y_loop[t] = u + hidden @ p["W_2"] + p["b_2"]
print(check_close("the whole block vs a token-by-token loop (attention by explicit sums)", Y, Y_loop, eq="block",
                  atol=1e-10))
print(check_close("the helper esm.block_forward (used by the later chapters) gives the same Y", block_forward(X, p, H, mask), Y,
                  atol=1e-12))

t_change = 3
X_late = X.copy()
X_late[t_change:] = rng.normal(size=(T - t_change, d))        # change the last tokens only
print(glue("t_change", t_change))
print(check_equal(f"changing tokens {t_change}..{T - 1} leaves the outputs of tokens 0..{t_change - 1} bit for bit unchanged "
                  "(causal)", block_forward(X_late, p, H, mask)[:t_change], Y[:t_change]))
