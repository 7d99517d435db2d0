"""8.1 Parameter counting: the embedding tables of three published configurations, and their
share of the whole model."""
from esm import check_equal, glue, table

# Published configurations (model cards / config.json of the released checkpoints).
CONFIGS = {
    "GPT-2 small": dict(V=50257, d=768, T_max=1024, types=0, tied=True, L=12, d_ff=3072),
    "BERT-base": dict(V=30522, d=768, T_max=512, types=2, tied=True, L=12, d_ff=3072),
    "Llama 2 7B": dict(V=32000, d=4096, T_max=0, types=0, tied=False, L=32, d_ff=11008),
}

def closed_form(c):
    """|V| d (input) + |V| d if untied (output) + T_max d (learned positions) + types * d."""
    return c["V"] * c["d"] * (1 + (not c["tied"])) + c["T_max"] * c["d"] + c["types"] * c["d"]

def whole_model(name, c):
    """Every parameter of the released model, block by block (biases and norms included), its
    embedding tables counted by the closed form (param-count)."""
    d, f, L = c["d"], c["d_ff"], c["L"]
    emb = closed_form(c)
    if name == "GPT-2 small":     # fused qkv + proj with biases, MLP with biases, 2 LayerNorms
        return emb + L * ((3 * d * d + 3 * d) + (d * d + d) + (d * f + f) + (f * d + d) + 4 * d) + 2 * d
    if name == "BERT-base":       # q, k, v, o with biases, MLP, 2 LayerNorms; embedding LN; pooler
        return emb + 2 * d + L * (4 * (d * d + d) + (d * f + f) + (f * d + d) + 4 * d) + (d * d + d)
    return emb + L * (4 * d * d + 3 * d * f + 2 * d) + d   # Llama: no biases, RMSNorm gains only

PUBLISHED_TOTAL = {"GPT-2 small": 124_439_808, "BERT-base": 109_482_240, "Llama 2 7B": 6_738_415_616}

rows = []
for name, c in CONFIGS.items():
    n_emb = closed_form(c)
    total = whole_model(name, c)
    print(check_equal(f"{name}: the closed form's embeddings plus the blocks, counted block by block, give the "
                      "published parameter count (the outside route)", total, PUBLISHED_TOTAL[name], eq="param-count"))
    rows.append((name, f"{c['V'] * c['d']:,}",
                 "tied (0)" if c["tied"] else f"{c['V'] * c['d']:,}",
                 f"{c['T_max'] * c['d'] + c['types'] * c['d']:,}" if c["T_max"] else "RoPE (0)",
                 f"{n_emb:,}", f"{n_emb / total:.1%} of {total:,}"))

print(table(("model", "input table", "output head", "positions (+ types)", "embeddings",
             "share of the whole model"), rows))
g = CONFIGS["GPT-2 small"]
shares, embs = {}, {}
for name, c in CONFIGS.items():
    embs[name] = closed_form(c)
    shares[name] = embs[name] / whole_model(name, c)
gl = [glue("pc_gpt2_table", g["V"] * g["d"], ","), glue("pc_gpt2_pos", g["T_max"] * g["d"], ","),
      glue("pc_gpt2_emb", embs["GPT-2 small"], ","), glue("pc_gpt2_share", shares["GPT-2 small"], ".1%"),
      glue("pc_gpt2_emb_twice", closed_form(dict(g, tied=False)), ","),
      glue("pc_bert_emb", embs["BERT-base"], ","), glue("pc_bert_share", shares["BERT-base"], ".1%"),
      glue("pc_llama_emb", embs["Llama 2 7B"], ","), glue("pc_llama_share", shares["Llama 2 7B"], ".1%"),
      glue("pc_multi_m", 250_000 * 768 / 1e6, ".0f")]
print("".join(gl))
