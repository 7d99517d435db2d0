"""P7 The full model: ids in, next-token distribution out. The batched forward pass of a tiny
GPT-2-shaped model written out in plain numpy (random weights, fixed seed), checked against the
helper esm.gpt_forward and against a token-by-token loop that keeps the keys and values of earlier positions."""
import numpy as np


def layer_norm(x, g, b, eps=1e-5):               # each row to mean 0, variance 1, then scale and shift
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return g * (x - mu) / np.sqrt(var + eps) + b


def gelu(x):                                     # GPT-2's tanh form of GELU
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def attention(x, p, H):                          # causal multi-head attention, (B, T, d) -> (B, T, d)
    B, T, d = x.shape
    q, k, v = (x @ p["W_" + n] + p["b_" + n] for n in "QKV")
    q, k, v = (a.reshape(B, T, H, d // H).transpose(0, 2, 1, 3) for a in (q, k, v))   # (B, H, T, d/H)
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d // H)          # (B, H, T, T) scores
    s = np.where(np.tri(T, dtype=bool), s, -np.inf)            # row t sees columns 0..t only
    a = np.exp(s - s.max(-1, keepdims=True))
    a = a / a.sum(-1, keepdims=True)                           # softmax over the keys
    o = (a @ v).transpose(0, 2, 1, 3).reshape(B, T, d)        # the heads side by side again
    return o @ p["W_O"] + p["b_O"]


def forward(ids, m):                             # token ids (B, T) -> logits (B, T, V)
    T = ids.shape[1]
    x = m["E"][ids] + m["P"][:T]                 # look up the token rows, add the position rows
    for p in m["blocks"]:                        # pre-LN blocks
        x = x + attention(layer_norm(x, p["g_1"], p["beta_1"]), p, m["n_heads"])
        h = gelu(layer_norm(x, p["g_2"], p["beta_2"]) @ p["W_1"] + p["b_1"])        # (B, T, 4d)
        x = x + h @ p["W_2"] + p["b_2"]
    x = layer_norm(x, m["g_f"], m["beta_f"])     # final layer norm
    return x @ m["E"].T                          # tied head: score every token of the vocabulary


def init_model(V=50, T_max=16, d=32, L=2, H=4, std=0.3, seed=7):
    rng = np.random.default_rng(seed)

    def normal(*shape):
        return rng.normal(size=shape) * std

    def block():
        return {**{"W_" + n: normal(d, d) for n in "QKVO"}, **{"b_" + n: normal(d) for n in "QKVO"},
                "W_1": normal(d, 4 * d), "b_1": normal(4 * d), "W_2": normal(4 * d, d), "b_2": normal(d),
                "g_1": 1 + normal(d), "beta_1": normal(d), "g_2": 1 + normal(d), "beta_2": normal(d)}
    return {"E": normal(V, d), "P": normal(T_max, d), "blocks": [block() for _ in range(L)],
            "g_f": 1 + normal(d), "beta_f": normal(d), "n_heads": H}


model = init_model()
ids = np.array([[3, 14, 15, 9, 26, 5, 35, 8],            # B = 3 sequences of T = 8 token ids
                [3, 14, 15, 9, 26, 44, 1, 30],
                [21, 48, 5, 13, 32, 35, 45, 6]])
logits = forward(ids, model)
probs = np.exp(logits - logits.max(-1, keepdims=True))
probs = probs / probs.sum(-1, keepdims=True)             # row t: the distribution of token t + 1
print("ids", ids.shape, "-> logits", logits.shape)

# ---- Everything above needs numpy only. Below: the shapes, the values the text quotes, and the checks. ----
import math  # noqa: E402

from esm import (TINY, block_shapes, check_close, check_equal, check_true, glue, gpt_forward, one_hot,  # noqa: E402
                 shape_table, tiny_gpt)

V, T_max, d, L, H = (TINY[k] for k in ("V", "T_max", "d", "L", "n_heads"))
B, T = ids.shape
d_k, d_ff = d // H, 4 * d
print(glue("B", B), glue("T", T), glue("d", d), glue("L", L), glue("H", H), glue("V", V))
same = [np.array_equal(model[k], tiny_gpt()[k]) for k in ("E", "P", "g_f", "beta_f")] \
    + [np.array_equal(a[k], b[k]) for a, b in zip(model["blocks"], tiny_gpt()["blocks"]) for k in a]
print(check_equal("init_model() draws the primer's tiny model (esm.tiny_gpt, used by the next chapters): arrays equal",
                  sum(same), 4 + L * len(block_shapes(d))))

trace = {}
Z_helper = gpt_forward(ids, model, trace=trace)
print(shape_table({"B": B, "T": T, "T_max": T_max, "V": V, "d": d, "d_ff": d_ff}, [
    ("token ids", "(i_{b,t})", ids, "B T", "the input: $B$ sequences of $T$ ids"),
    ("token table", "E", model["E"], "V d", "one row per token; also the output head"),
    ("position table", "P", model["P"], "T_max d", "one row per position"),
    ("stream entering block 1", "X^{(0)}", trace["X0"], "B T d", "$E_{i_t,:}+P_{t,:}$"),
    ("after block 1", "X^{(1)}", trace["X1"], "B T d", f"{H} heads of width {d_k}, FFN width {d_ff}"),
    ("after block 2", "X^{(2)}", trace["X2"], "B T d", "the last block's output"),
    ("final layer norm", "X_{\\mathrm f}", trace["Xf"], "B T d", "$\\operatorname{LN}_{\\mathrm f}(X^{(L)})$"),
    ("logits", "Z", logits, "B T V", "$Z=X_{\\mathrm f}E^\\top$ (tied head)"),
    ("next-token distributions", "\\operatorname{softmax}(Z)", probs, "B T V", "row $t$: $p(i_{t+1}=j\\mid i_0,\\dots,i_t)$"),
]))

# Route 1: the helper esm.gpt_forward (esm.layer_norm, esm.multi_head_attention, esm.block_forward: other code).
print(check_close("the forward above = the helper esm.gpt_forward on the same batch", logits, Z_helper,
                  eq="stack", atol=1e-12))
# [model-input]: the lookup is one-hot rows times E (chapter P1's route), plus the position rows.
print(check_close("X^(0) = one-hot(ids) E + P[0:T] (matrix products, not indexing)", trace["X0"],
                  one_hot(ids.ravel(), V).reshape(B, T, V) @ model["E"] + np.eye(T_max)[:T] @ model["P"],
                  eq="model-input", atol=1e-12))


# Route 2: one sequence at a time and one token at a time, as generation runs: each position appends its key and
# value to a list, and attention, layer norm, GELU and softmax are plain sums over the tokens seen so far.
def ln_row(x, g, b, eps=1e-5):
    mu = sum(x) / len(x)
    var = sum((v - mu) ** 2 for v in x) / len(x)
    return np.array([(v - mu) / math.sqrt(var + eps) for v in x]) * g + b


def gelu_row(x):
    return np.array([0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3))) for v in x])


def step(token, t, seen):
    """Logits for position t, given the keys and values kept from positions 0..t-1."""
    x = model["E"][token] + model["P"][t]
    for ell, p in enumerate(model["blocks"]):
        n = ln_row(x, p["g_1"], p["beta_1"])
        q = n @ p["W_Q"] + p["b_Q"]
        seen[ell]["k"].append(n @ p["W_K"] + p["b_K"])
        seen[ell]["v"].append(n @ p["W_V"] + p["b_V"])
        heads = []
        for h in range(H):
            c = slice(h * d_k, (h + 1) * d_k)
            s = [float(q[c] @ k[c]) / math.sqrt(d_k) for k in seen[ell]["k"]]
            e = [math.exp(v - max(s)) for v in s]
            heads.append(sum(w / sum(e) * v[c] for w, v in zip(e, seen[ell]["v"])))
        x = x + np.concatenate(heads) @ p["W_O"] + p["b_O"]
        x = x + gelu_row(ln_row(x, p["g_2"], p["beta_2"]) @ p["W_1"] + p["b_1"]) @ p["W_2"] + p["b_2"]
    xf = ln_row(x, model["g_f"], model["beta_f"])
    return np.array([float(xf @ model["E"][j]) for j in range(V)])  # tied head: a dot product per token


def one_sequence(seq):
    seen = [{"k": [], "v": []} for _ in range(L)]
    return np.array([step(tok, t, seen) for t, tok in enumerate(seq)])


Z_loop = np.stack([one_sequence(seq) for seq in ids])
print(check_close("the batched forward = each sequence alone, one token at a time, keys and values of earlier positions kept "
                  "in lists (explicit sums)",
                  logits, Z_loop, eq="stack", atol=1e-10))
print(check_close("logits: z_(t,j) = <x_f,t , E_j> by a dot product per token (tied head)", Z_loop,
                  trace["Xf"] @ model["E"].T, eq="logits", atol=1e-10))
P_loop = np.array([[[math.exp(z - max(row)) / sum(math.exp(v - max(row)) for v in row) for z in row] for row in Zs]
                   for Zs in logits])
print(check_close("softmax rows by math.exp sums; each sums to 1", probs, P_loop, eq="next-token", atol=1e-14))

# Causality: sequences 0 and 1 share their first t0 tokens. Run alone, their logits agree there bit for bit, and
# differ after (in the batch, too).
t0 = int(np.argmax(ids[0] != ids[1]))
moved = float(np.abs(logits[1, t0:] - logits[0, t0:]).max())
print(glue("t0", t0), glue("moved", moved, ".2f"))
print(check_equal(f"sequences 0 and 1 differ from position {t0} on: run alone, their logits at positions 0..{t0 - 1} are "
                  "bit for bit equal", forward(ids[1:2], model)[0, :t0], forward(ids[0:1], model)[0, :t0]))
print(check_true(f"and they differ at positions {t0}..{T - 1}", moved > 0.1, f"max change {moved:.3g}"))

# The distribution of the token after the last one of sequence 0, and what tying saves.
p_last = probs[0, -1]
j_top = int(np.argmax(p_last))
print(glue("j_top", j_top), glue("p_top", float(p_last[j_top]), ".3f"))
n_blocks = L * sum(math.prod(s) for s in block_shapes(d).values())
n_tied = V * d + T_max * d + n_blocks + 2 * d
print(glue("n_params", n_tied, ","), glue("n_untie", V * d, ","), glue("untie_share", V * d / n_tied, ".1%"))
print(check_equal("parameter count of the tiny model = sizes of its arrays (tied head)",
                  sum(a.size for a in (model["E"], model["P"], model["g_f"], model["beta_f"]))
                  + sum(a.size for b in model["blocks"] for a in b.values()), n_tied))
