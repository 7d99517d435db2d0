"""P12 The key-value cache: its size 2 L T d b, checked on real arrays of P11's model, and computed
for GPT-2 small and Llama 2 7B against the size of their weights."""
import numpy as np

from esm import check_close, check_equal, glue, table
from esm.train import TRAIN, VOCAB_SIZE, forward, init_gpt2

# [kv-cache] on real arrays: run P11's model one token at a time, keeping each layer's keys and
# values (float16, 2 bytes) for every position, and add up their bytes.
L, d, T = TRAIN["L"], TRAIN["d"], TRAIN["T"]
model = init_gpt2(TRAIN["seed"], VOCAB_SIZE, T, d, L, TRAIN["n_heads"])
ids = np.arange(T) % VOCAB_SIZE
_, (_, caches, _, _) = forward(model, ids[None], keep=True)
kv = []
for (A_in, ln1, Q, K, Vh, *_), p in zip(caches, model["blocks"]):
    kv += [(A_in @ p["W_K"] + p["b_K"]).astype(np.float16), (A_in @ p["W_V"] + p["b_V"]).astype(np.float16)]
print(check_equal(f"bytes of the keys and values of P11's model for T = {T} tokens in float16 = 2 L T d b",
                  sum(a.nbytes for a in kv), 2 * L * T * d * 2, eq="kv-cache"))

# Published configurations: L, d, the context length, heads of keys and values = heads (both use
# multi-head attention); parameter totals as 8.1 counts them block by block.
MODELS = {"GPT-2 small": dict(L=12, d=768, T=1024, params=124_439_808),
          "Llama 2 7B": dict(L=32, d=4096, T=4096, params=6_738_415_616)}
b = 2                                                 # bytes per number in 16-bit floats
rows, out = [], {}
for name, c in MODELS.items():
    cache = 2 * c["L"] * c["T"] * c["d"] * b
    weights = c["params"] * b
    out[name] = (cache, weights)
    rows.append([name, c["L"], f"{c['d']:,}", f"{c['T']:,}", f"{cache / 2**20:,.0f} MiB", f"{weights / 2**20:,.0f} MiB",
                 f"{cache / weights:.0%}"])
print(table(["model", "$L$", "$d$", "context $T$", "KV cache, one sequence", "weights", "cache / weights"], rows))
g_cache, g_w = out["GPT-2 small"]
l_cache, l_w = out["Llama 2 7B"]
print(glue("kv_gpt2", g_cache / 2**20, ",.0f"), glue("w_gpt2", g_w / 2**20, ",.0f"), glue("kv_llama", l_cache / 2**30, ".0f"),
      glue("w_llama", l_w / 2**30, ".1f"), glue("kv_share_llama", l_cache / l_w, ".0%"),
      glue("batch_even", int(np.ceil(l_w / l_cache))))
# By another route: per token, each layer stores one key and one value of d numbers.
per_token = 2 * 32 * 4096 * b
print(check_close("Llama 2 7B: cache = bytes per token (2 L d b) x 4096 tokens = 2 GiB", l_cache, per_token * 4096,
                  atol=0, eq="kv-cache"))
print(check_equal("... exactly 2^31 bytes", l_cache, 2 ** 31))
print(glue("per_token_kib", per_token / 1024, ".0f"), glue("T_llama", MODELS["Llama 2 7B"]["T"], ","),
      glue("T_gpt2", MODELS["GPT-2 small"]["T"], ","))
