"""P16 A fair match: the SwiGLU width at which the modern block has GPT-2's parameters, and the two
models' counts, non-embedding and embedding, taken from their initialised arrays."""
from esm import check_equal, check_true, glue, table
from esm.initialise import init_gpt2, param_arrays
from esm.modern import init_modern
from esm.tokenizer import VOCAB_SIZE
from esm.train import MODERN, TRAIN

d, L, H, T = TRAIN["d"], TRAIN["L"], TRAIN["n_heads"], TRAIN["T"]
d_ff = MODERN["d_ff"]


def gpt2_block(d):                                   # P6's count: 4d^2 + 4d attention, 8d^2 + 5d MLP, 4d in two layer norms
    return 12 * d * d + 13 * d


def modern_block(d, f):                              # P13's count: 4d^2 + 3 d f + 2d
    return 4 * d * d + 3 * d * f + 2 * d


# [matched-width]: the closed form's rounding against a search over every whole width up to 4d.
search = min(range(1, 4 * d + 1), key=lambda f: abs(modern_block(d, f) - gpt2_block(d)))
print(check_equal(f"the SwiGLU width round((8d + 11)/3) at d = {d} (esm.train.MODERN) = the whole width whose "
                  "block count is nearest GPT-2's, by a search over 1..4d", d_ff, search, eq="matched-width"))


def count(model, embedding):
    """Parameters of the model's arrays (from param_arrays): those of the embedding tables, and the rest."""
    arrays = param_arrays(model)
    emb = sum(a.size for k, a in arrays.items() if k in embedding)
    return emb, sum(a.size for a in arrays.values()) - emb


gpt = init_gpt2(TRAIN["seed"], VOCAB_SIZE, T, d, L, H)
mod = init_modern(TRAIN["seed"], VOCAB_SIZE, d, L, H, d_ff)
emb_g, non_g = count(gpt, ("E", "P"))
emb_m, non_m = count(mod, ("E",))
print(check_equal("non-embedding parameters from the arrays: GPT-2's = L (12d^2 + 13d) + 2d (the final layer norm), "
                  "the modern model's = L (4d^2 + 3d d_ff + 2d) + d (the final RMSNorm)",
                  [non_g, non_m], [L * gpt2_block(d) + 2 * d, L * modern_block(d, d_ff) + d], eq="matched-width"))
print(check_equal("embedding parameters from the arrays: the token table and GPT-2's position table (V d + T d), "
                  "the token table alone in the modern model (V d); both heads tied", [emb_g, emb_m],
                  [VOCAB_SIZE * d + T * d, VOCAB_SIZE * d]))
rel = non_m / non_g - 1
print(check_true("the non-embedding counts are within 2% of each other", abs(rel) < 0.02, f"{rel:+.2%}"))
print(table(["", "GPT-2's block (P11)", "the modern block"],
            [["non-embedding parameters", f"{non_g:,}", f"{non_m:,}"],
             ["embedding parameters", f"{emb_g:,} (tokens and positions)", f"{emb_m:,} (tokens)"],
             ["feed-forward width", f"{4 * d}", f"{d_ff}"]]))
cfg = MODERN
# A table the prose quotes: published, not printed (a value line holds one line).
glue("settings", table(["setting, both runs", "value"], [
    ["width $d$, blocks $L$, heads", f"{d}, {L}, {H}"],
    ["window $T$, vocabulary", f"{T}, {VOCAB_SIZE} tokens"],
    ["batch, steps", f"{cfg['batch']} windows, {cfg['steps']:,}"],
    ["learning rate", f"{cfg['lr']:g}, warm-up over {cfg['warmup']} steps, cosine down to {cfg['min_lr']:g}"],
    ["AdamW weight decay", f"{cfg['weight_decay']:g}, on the matrices and tables"],
    ["gradient clipping", f"global norm {cfg['clip']:g}"]]))
print(glue("d", d), glue("L", L), glue("d_ff", d_ff), glue("d_ff_exact", (8 * d + 11) / 3, ".2f"),
      glue("blk_gpt2", gpt2_block(d), ","), glue("blk_mod", modern_block(d, d_ff), ","),
      glue("non_gpt2", non_g, ","), glue("non_mod", non_m, ","), glue("non_rel", -rel, ".1%"),
      glue("emb_gpt2", emb_g, ","), glue("emb_mod", emb_m, ","))
