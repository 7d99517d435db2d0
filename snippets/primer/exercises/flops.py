"""Exercise: the floating-point operations of one forward pass, per token. The closed form
24 L d^2 + 4 L T d + 2 d |V| (the blocks' weight matrices, the scores and the weighted values over
all T keys, the tied head) against a count of every matrix product a forward pass runs, on the tiny
model at several T; then the closed form at GPT-2 small's configuration."""
import math

import numpy as np

from esm import TINY, check_close, check_equal, glue, gpt_forward, init_gpt, tiny_gpt

FLOPS = []


def mm(a, b):
    """a @ b, counting 2 m k n operations (a multiply and an add) for every product of the batch."""
    out = a @ b
    FLOPS.append(2 * math.prod(out.shape) * a.shape[-1])
    return out


def layer_norm(x, g, b, eps=1e-5):
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return g * (x - mu) / np.sqrt(var + eps) + b


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def forward(ids, m):
    """The full-model chapter's batched forward pass, every @ through mm."""
    B, T = ids.shape
    H, d = m["n_heads"], m["E"].shape[1]
    x = m["E"][ids] + m["P"][:T]                                   # a lookup: no products
    for p in m["blocks"]:
        h = layer_norm(x, p["g_1"], p["beta_1"])
        q, k, v = ((mm(h, p["W_" + n]) + p["b_" + n]).reshape(B, T, H, d // H).transpose(0, 2, 1, 3) for n in "QKV")
        s = np.where(np.tri(T, dtype=bool), mm(q, k.transpose(0, 1, 3, 2)) / np.sqrt(d // H), -np.inf)
        a = np.exp(s - s.max(-1, keepdims=True))
        o = mm(a / a.sum(-1, keepdims=True), v).transpose(0, 2, 1, 3).reshape(B, T, d)
        x = x + mm(o, p["W_O"]) + p["b_O"]
        x = x + mm(gelu(mm(layer_norm(x, p["g_2"], p["beta_2"]), p["W_1"]) + p["b_1"]), p["W_2"]) + p["b_2"]
    return mm(layer_norm(x, m["g_f"], m["beta_f"]), m["E"].T)


def per_token(L, d, V, T):
    """The closed form: weights 24 L d^2, scores and weighted values 4 L T d (all T keys), head 2 d V."""
    return 24 * L * d * d + 4 * L * T * d + 2 * d * V


model = tiny_gpt()
rng = np.random.default_rng(36)
ids = rng.integers(0, TINY["V"], size=(3, TINY["T_max"]))
print(check_close("the counting forward pass gives the logits of esm.gpt_forward", forward(ids, model),
                  gpt_forward(ids, model), atol=1e-10))
# Two configurations, three window lengths each: the count pins down every term of the closed form.
for cfg in (TINY, dict(seed=1, V=70, T_max=12, d=48, L=3, n_heads=6)):
    m = init_gpt(**cfg)
    L, d, V = cfg["L"], cfg["d"], cfg["V"]
    counted, closed = [], []
    for T in (1, 5, cfg["T_max"]):
        FLOPS.clear()
        forward(rng.integers(0, V, size=(3, T)), m)
        counted.append(sum(FLOPS) // (3 * T))
        closed.append(per_token(L, d, V, T))
    print(check_equal(f"operations per token counted product by product = 24 L d^2 + 4 L T d + 2 d |V|, at T = 1, 5, "
                      f"{cfg['T_max']} (L = {L}, d = {d}, |V| = {V})", counted, closed))

# GPT-2 small (the configuration of the chapter that counts it) at its full context.
L2, d2, V2, T2 = 12, 768, 50257, 1024
weights, scores, head = 24 * L2 * d2 ** 2, 4 * L2 * T2 * d2, 2 * d2 * V2
total = weights + scores + head
n_params = V2 * d2 + T2 * d2 + L2 * (12 * d2 ** 2 + 13 * d2) + 2 * d2     # that chapter's count
print(glue("fl_total", total / 1e6, ".0f"), glue("fl_weights", weights / 1e6, ".0f"), glue("fl_scores", scores / 1e6, ".1f"),
      glue("fl_head", head / 1e6, ".1f"), glue("fl_share_scores", scores / total, ".0%"), glue("fl_share_head", head / total, ".0%"),
      glue("fl_2n", 2 * n_params / 1e6, ".0f"), glue("fl_T_even", 6 * d2, ","), glue("fl_T_even_causal", 12 * d2, ","))
# Where the scores catch up with the weights: 4 L T d = 24 L d^2 at T = 6 d (12 d if the masked half is skipped).
