"""P14 The cache of three published models: Llama 2 7B (multi-head), Llama 3 8B (grouped-query,
n_kv = 8) and Gemma 2B (multi-query, n_kv = 1). Each parameter total is counted from the
configuration and checked against a published total (the released checkpoints' totals for the two
Llamas, Gemma's Table 2); then the cache per token and per sequence at one context, T = 4,096 (Llama 2
7B's full context), against the weights, all in 16-bit floats."""
import math

from esm import check_equal, check_true, glue, table

# Published configurations. V is the released token table's rows (Llama 3's paper, Table 3, lists a
# vocabulary of 128,000; its checkpoint has 128,256 rows). d_ff is the width of each of the gated
# layer's two input projections: Gemma's Table 1 lists 32,768, its checkpoint has 16,384 for each.
MODELS = {
    "Llama 2 7B": dict(L=32, d=4096, H=32, n_kv=32, d_k=128, d_ff=11008, V=32000, tied=False),
    "Llama 3 8B": dict(L=32, d=4096, H=32, n_kv=8, d_k=128, d_ff=14336, V=128256, tied=False),
    "Gemma 2B": dict(L=18, d=2048, H=8, n_kv=1, d_k=256, d_ff=16384, V=256128, tied=True),
}
n_bytes = 2                                              # 16-bit floats
T = 4096                                                 # one context for all three: Llama 2 7B's full context


def n_params(c):
    """Embedding table(s), then per layer W_Q (d x H d_k), W_K and W_V (d x n_kv d_k), W_O (H d_k x d),
    the three matrices of the gated feed-forward layer and two RMSNorm gains; a final gain."""
    emb = c["V"] * c["d"] * (1 if c["tied"] else 2)
    attn = 2 * c["d"] * c["H"] * c["d_k"] + 2 * c["d"] * c["n_kv"] * c["d_k"]
    return emb + c["L"] * (attn + 3 * c["d"] * c["d_ff"] + 2 * c["d"]) + c["d"]


def kv_per_token(c):
    """Bytes of keys and values one token adds to the cache: 2 L n_kv d_k n_bytes."""
    return 2 * c["L"] * c["n_kv"] * c["d_k"] * n_bytes


N = {name: n_params(c) for name, c in MODELS.items()}
# The outside routes: published totals, never the configuration the count came from.
print(check_equal("Llama 2 7B: the count from the configuration = the released checkpoint's total (section 8.1)",
                  N["Llama 2 7B"], 6_738_415_616, eq="gqa-params"))
print(check_equal("Llama 3 8B: the count in 16-bit floats = the released checkpoint's total_size, 16,060,522,496 bytes",
                  N["Llama 3 8B"] * n_bytes, 16_060_522_496, eq="gqa-params"))
g = MODELS["Gemma 2B"]
emb_g, rest_g = g["V"] * g["d"], N["Gemma 2B"] - g["V"] * g["d"]
print(check_equal("Gemma 2B: embedding and non-embedding parameters = Table 2's 524,550,144 and 1,981,884,416",
                  (emb_g, rest_g), (524_550_144, 1_981_884_416), eq="gqa-params"))

rows, out = [], {}
for name, c in MODELS.items():
    per_tok = kv_per_token(c)
    seq = per_tok * T
    w = N[name] * n_bytes
    even = math.ceil(w / seq)
    out[name] = dict(per_tok=per_tok, seq=seq, w=w, even=even)
    rows.append([name, c["H"], c["n_kv"], c["d_k"], f"{N[name] / 1e9:.2f} B", f"{w / 1e9:.1f} GB", f"{per_tok / 1e3:,.1f} kB",
                 f"{seq / 1e6:,.0f} MB", even])
print(table(["model", "$H$", "$n_{\\text{kv}}$", "$d_k$", "parameters", "weights", "cache per token",
             f"cache per sequence of {T:,} tokens", "sequences whose caches outweigh the weights"], rows))

l2, l3, gm = out["Llama 2 7B"], out["Llama 3 8B"], out["Gemma 2B"]
print(glue("tok_llama2", l2["per_tok"] / 1e3, ".0f"), glue("tok_llama3", l3["per_tok"] / 1e3, ".0f"),
      glue("tok_gemma", gm["per_tok"] / 1e3, ".1f"), glue("tok_ratio3", l2["per_tok"] // l3["per_tok"]))
print(glue("w_llama3", l3["w"] / 1e9, ".1f"), glue("even_llama2", l2["even"]), glue("even_llama3", l3["even"]),
      glue("even_gemma", gm["even"]), glue("T_cmp", T, ","), glue("L_gemma", MODELS["Gemma 2B"]["L"]))
# Llama 3 8B at a context of 128K tokens (2^17): one sequence's cache against the weights.
T_long = 2 ** 17
print(glue("T_long", T_long, ","), glue("seq_llama3_long", l3["per_tok"] * T_long / 1e9, ".1f"))
print(check_true("Llama 3 8B: at 2^17 tokens one sequence's cache outweighs the weights",
                 l3["per_tok"] * T_long > l3["w"], f"{l3['per_tok'] * T_long:,} B > {l3['w']:,} B"))
