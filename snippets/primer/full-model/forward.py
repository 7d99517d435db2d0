"""P7 The full model: ids in, next-token distribution out. A tiny GPT-2-shaped model in numpy
(random weights, fixed seed), checked against a token-by-token loop with a key-value cache."""
import math

import numpy as np

from esm import (TINY, block_shapes, check_close, check_equal, check_true, glue, gpt_forward, one_hot, shape_table,
                 softmax, tiny_gpt)

V, T_max, d, L, H = (TINY[k] for k in ("V", "T_max", "d", "L", "n_heads"))
d_k, d_ff = d // H, 4 * d
model = tiny_gpt()
ids = np.array([3, 14, 15, 9, 26, 5, 35, 8])
T = len(ids)

trace = {}
Z = gpt_forward(ids, model, trace=trace)
Pr = softmax(Z)                                                     # row t: distribution of token t+1
print(glue("d", d), glue("L", L), glue("T", T))
print(shape_table({"T": T, "T_max": T_max, "V": V, "d": d, "d_ff": d_ff}, [
    ("token ids", "(i_0,\\dots,i_{T-1})", ids, "T", "the input"),
    ("token table", "E", model["E"], "V d", "one row per token; also the output head"),
    ("position table", "P", model["P"], "T_max d", "one row per position"),
    ("stream entering block 1", "X^{(0)}", trace["X0"], "T d", "$E_{i_t,:}+P_{t,:}$"),
    ("after block 1", "X^{(1)}", trace["X1"], "T d", f"{H} heads of width {d_k}, FFN width {d_ff}"),
    ("after block 2", "X^{(2)}", trace["X2"], "T d", "the last block's output"),
    ("final layer norm", "X_{\\mathrm f}", trace["Xf"], "T d", "$\\operatorname{LN}_{\\mathrm f}(X^{(L)})$"),
    ("logits", "Z", Z, "T V", "$Z=X_{\\mathrm f}E^\\top$ (tied head)"),
    ("next-token distributions", "\\operatorname{softmax}(Z)", Pr, "T V", "row $t$: $p(i_{t+1}=j\\mid i_0,\\dots,i_t)$"),
]))

# [model-input]: the lookup is one-hot rows times E (chapter P1's route), plus the position rows.
print(check_close("X^(0) = one-hot(ids) E + P[0:T] (matrix products, not indexing)", trace["X0"],
                  one_hot(ids, V) @ model["E"] + np.eye(T_max)[:T] @ model["P"], eq="model-input", atol=1e-12))


# Independent route: one token at a time, as generation runs, with a key-value cache and
# attention, layer norm and softmax written as plain sums over the tokens seen so far.
def ln_row(x, g, b, eps=1e-5):
    mu = sum(x) / len(x)
    var = sum((v - mu) ** 2 for v in x) / len(x)
    return np.array([(v - mu) / math.sqrt(var + eps) for v in x]) * g + b


def gelu_row(x):
    return np.array([0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3))) for v in x])


def step(token, t, cache):
    """Logits for position t, given the keys and values cached from positions 0..t-1."""
    x = model["E"][token] + model["P"][t]
    for ell, p in enumerate(model["blocks"]):
        n = ln_row(x, p["g_1"], p["beta_1"])
        q = n @ p["W_Q"] + p["b_Q"]
        cache[ell]["k"].append(n @ p["W_K"] + p["b_K"])
        cache[ell]["v"].append(n @ p["W_V"] + p["b_V"])
        heads = []
        for h in range(H):
            c = slice(h * d_k, (h + 1) * d_k)
            s = [float(q[c] @ k[c]) / math.sqrt(d_k) for k in cache[ell]["k"]]
            e = [math.exp(v - max(s)) for v in s]
            heads.append(sum(w / sum(e) * v[c] for w, v in zip(e, cache[ell]["v"])))
        x = x + np.concatenate(heads) @ p["W_O"] + p["b_O"]
        x = x + gelu_row(ln_row(x, p["g_2"], p["beta_2"]) @ p["W_1"] + p["b_1"]) @ p["W_2"] + p["b_2"]
    xf = ln_row(x, model["g_f"], model["beta_f"])
    return np.array([float(xf @ model["E"][j]) for j in range(V)])  # tied head: a dot product per token


cache = [{"k": [], "v": []} for _ in range(L)]
Z_loop = np.array([step(tok, t, cache) for t, tok in enumerate(ids)])
diff_loop = float(np.abs(Z - Z_loop).max())
print(check_close("all positions at once = one token at a time with a key-value cache (explicit sums)", Z, Z_loop,
                  eq="stack", atol=1e-10))
print(check_close("logits: z_(t,j) = <x_f,t , E_j> by a dot product per token (tied head)", Z_loop, trace["Xf"] @ model["E"].T,
                  eq="logits", atol=1e-10))
P_loop = np.array([[math.exp(z - max(row)) / sum(math.exp(v - max(row)) for v in row) for z in row] for row in Z])
print(check_close("softmax rows by math.exp sums; each sums to 1", Pr, P_loop, eq="next-token", atol=1e-14))

# Causality: changing tokens 5..7 leaves the logits at positions 0..4 unchanged, and moves the rest.
t0 = 5
ids_late = ids.copy()
ids_late[t0:] = [44, 1, 30]
Z_late = gpt_forward(ids_late, model)
moved = float(np.abs(Z_late[t0:] - Z[t0:]).max())
print(glue("t0", t0), glue("moved", moved, ".2f"))
print(check_equal(f"changing tokens {t0}..{T - 1} leaves the logits at positions 0..{t0 - 1} bit for bit unchanged",
                  Z_late[:t0], Z[:t0]))
print(check_true(f"and it does change the logits at positions {t0}..{T - 1}", moved > 0.1, f"max change {moved:.3g}"))

# A batch: B sequences in one call equal each sequence run alone.
batch = np.stack([ids, ids_late, (ids * 7) % V])
Zb = gpt_forward(batch, model)
print(check_close("a batch of 3 sequences in one call = each sequence alone", Zb,
                  np.stack([gpt_forward(s, model) for s in batch]), atol=1e-12))

# The distribution of the token after the last one, and what tying saves.
p_last = Pr[-1]
j_top = int(np.argmax(p_last))
print(glue("j_top", j_top), glue("p_top", float(p_last[j_top]), ".3f"))
n_blocks = L * sum(math.prod(s) for s in block_shapes(d).values())
n_tied = V * d + T_max * d + n_blocks + 2 * d
print(glue("n_params", n_tied, ","), glue("n_untie", V * d, ","), glue("untie_share", V * d / n_tied, ".1%"))
print(check_equal("parameter count of the tiny model = sizes of its arrays (tied head)",
                  sum(a.size for a in (model["E"], model["P"], model["g_f"], model["beta_f"]))
                  + sum(a.size for b in model["blocks"] for a in b.values()), n_tied))
