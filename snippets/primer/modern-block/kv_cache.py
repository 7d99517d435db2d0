"""P13 The key-value cache: built token by token for P11's trained model, its memory measured by the
allocator against 2 L T d b, the logits' change from a 16-bit cache, and the formula applied to GPT-2
small and Llama 2 7B."""
import collections
import math
import tracemalloc

import numpy as np

from esm import check_close, check_equal, gelu_tanh, glue, layer_norm, softmax, table
from esm.backprop import forward
from esm.tokenizer import VOCAB_SIZE, data
from esm.train import SNAPSHOTS, TRAIN, trained

# [kv-cache] on a real generation: P11's trained model (its run, as P11 makes it) reads the first T
# tokens of the validation text one token at a time; each layer appends the new token's key and value
# to its cache and attends over the cache.
D = data()
model, _, _, _, _ = trained(D.train, D.val, VOCAB_SIZE, TRAIN, snapshots=SNAPSHOTS, traces=True)
L, d, T, H = TRAIN["L"], TRAIN["d"], TRAIN["T"], TRAIN["n_heads"]
d_k = d // H
ids = D.val[:T]
Z_full = forward(model, ids[None])[0]                 # all positions at once, no cache


def step(token, t, cache, dtype):
    """Logits of position t from its token and the keys and values cached for positions 0..t-1."""
    x = model["E"][token] + model["P"][t]
    for p, c in zip(model["blocks"], cache):
        n = layer_norm(x, p["g_1"], p["beta_1"])
        q = n @ p["W_Q"] + p["b_Q"]
        c["k"].append((n @ p["W_K"] + p["b_K"]).astype(dtype))
        c["v"].append((n @ p["W_V"] + p["b_V"]).astype(dtype))
        K, V = np.array(c["k"], dtype=float), np.array(c["v"], dtype=float)
        heads = [softmax(K[:, h] @ q[h] / math.sqrt(d_k)) @ V[:, h] for h in (slice(i * d_k, (i + 1) * d_k) for i in range(H))]
        x = x + np.concatenate(heads) @ p["W_O"] + p["b_O"]
        x = x + gelu_tanh(layer_norm(x, p["g_2"], p["beta_2"]) @ p["W_1"] + p["b_1"]) @ p["W_2"] + p["b_2"]
    return layer_norm(x, model["g_f"], model["beta_f"]) @ model["E"].T


def generate(dtype):
    """Run the T tokens one at a time; returns the cache and the largest logit difference from Z_full."""
    cache = [{"k": [], "v": []} for _ in range(L)]
    worst = max(float(np.abs(step(tok, t, cache, dtype) - Z_full[t]).max()) for t, tok in enumerate(ids))
    return cache, worst


def cache_bytes(dtype):
    """The data blocks numpy holds after the generation (tracemalloc, numpy's domain): the cache's
    memory as the allocator reports it, not computed from the arrays' shapes."""
    numpy_blocks = [tracemalloc.DomainFilter(True, np.lib.tracemalloc_domain)]
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    before = collections.Counter(tracemalloc.take_snapshot().filter_traces(numpy_blocks).traces)
    cache, worst = generate(dtype)
    after = collections.Counter(tracemalloc.take_snapshot().filter_traces(numpy_blocks).traces)
    if not was_tracing:
        tracemalloc.stop()
    held = sum(tr.size * n for tr, n in (after - before).items())   # equal blocks counted as often as held
    return held, worst


held64, worst64 = cache_bytes(np.float64)
held16, worst16 = cache_bytes(np.float16)
print(check_close(f"the cache, built token by token, gives the logits of all {T} positions at once (esm.backprop.forward, no cache)",
                  worst64, 0.0, atol=1e-12))
print(check_equal(f"memory held by the cache after {T} tokens, measured by the allocator (tracemalloc): "
                  f"float64 and float16 = 2 L T d n_bytes with n_bytes = 8 and 2",
                  [held64, held16], [2 * L * T * d * 8, 2 * L * T * d * 2], eq="kv-cache"))
print(glue("kv_T", T), glue("kv_bytes16", held16, ","), glue("kv_err16", worst16, ".0e"),
      glue("kv_logit_sd", float(Z_full.std()), ".1f"))

# Published configurations: L, d, the context length, heads of keys and values = heads (both use
# multi-head attention); parameter totals as P8 (GPT-2) and section 8.1 (Llama 2) count them. Sizes in
# decimal units, as the notation page fixes: 1 kB = 10^3, 1 MB = 10^6, 1 GB = 10^9 bytes.
MODELS = {"GPT-2 small": dict(L=12, d=768, T=1024, params=124_439_808),
          "Llama 2 7B": dict(L=32, d=4096, T=4096, params=6_738_415_616)}
b = 2                                                 # bytes per number in 16-bit floats
rows, out = [], {}
for name, c in MODELS.items():
    cache = 2 * c["L"] * c["T"] * c["d"] * b
    weights = c["params"] * b
    out[name] = (cache, weights)
    rows.append([name, c["L"], f"{c['d']:,}", f"{c['T']:,}", f"{cache / 1e6:,.0f} MB", f"{weights / 1e6:,.0f} MB",
                 f"{cache / weights:.0%}"])
print(table(["model", "$L$", "$d$", "context $T$", "KV cache, one sequence", "weights", "cache / weights"], rows))
g_cache, g_w = out["GPT-2 small"]
l_cache, l_w = out["Llama 2 7B"]
print(glue("kv_gpt2", g_cache / 1e6, ",.0f"), glue("w_gpt2", g_w / 1e6, ",.0f"), glue("kv_llama", l_cache / 1e9, ".1f"),
      glue("w_llama", l_w / 1e9, ".1f"),
      glue("batch_even", int(np.ceil(l_w / l_cache))))
per_token = 2 * MODELS["Llama 2 7B"]["L"] * MODELS["Llama 2 7B"]["d"] * b     # bytes per token: formula, no check
print(glue("per_token_kb", per_token / 1e3, ".0f"), glue("T_llama", MODELS["Llama 2 7B"]["T"], ","),
      glue("T_gpt2", MODELS["GPT-2 small"]["T"], ","))
