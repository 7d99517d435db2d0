"""P8 GPT-2 small's parameters, counted from its configuration two ways (the arrays of its checkpoint,
named as in the released weights with shapes typed from the configuration; the closed form), and the
total compared with the published figure, the one route from outside."""
import math

from esm import PALETTE, block_shapes, check_close, check_equal, figure, glue, svg, table

# The configuration of GPT-2 small (hparams.json of the released 124M model).
cfg = {"n_vocab": 50257, "n_ctx": 1024, "n_embd": 768, "n_layer": 12, "n_head": 12}
V, T_max, d, L, H = (cfg[k] for k in ("n_vocab", "n_ctx", "n_embd", "n_layer", "n_head"))

# Route 1: the checkpoint's arrays, named as in the released weights (c_attn holds W_Q, W_K, W_V side by side);
# their shapes are typed here from cfg, not read from the weights file.
arrays = {"wte": (V, d), "wpe": (T_max, d), "ln_f.g": (d,), "ln_f.b": (d,)}
for i in range(L):
    arrays |= {f"h{i}.ln_1.g": (d,), f"h{i}.ln_1.b": (d,), f"h{i}.attn.c_attn.w": (d, 3 * d), f"h{i}.attn.c_attn.b": (3 * d,),
               f"h{i}.attn.c_proj.w": (d, d), f"h{i}.attn.c_proj.b": (d,), f"h{i}.ln_2.g": (d,), f"h{i}.ln_2.b": (d,),
               f"h{i}.mlp.c_fc.w": (d, 4 * d), f"h{i}.mlp.c_fc.b": (4 * d,), f"h{i}.mlp.c_proj.w": (4 * d, d),
               f"h{i}.mlp.c_proj.b": (d,)}
component = {"wte": "token table $E$", "wpe": "position table $P$", "attn": "attention", "mlp": "feed-forward",
             "ln_1": "layer norms in blocks", "ln_2": "layer norms in blocks", "ln_f": "final layer norm"}


def share(n):
    return f"{n / total:.1%}" if n == 0 or n / total >= 0.0005 else "<0.1%"


parts = dict.fromkeys(dict.fromkeys(component.values()), 0) | {"output head (tied to $E$)": 0}
for name, shape in arrays.items():
    part = name.split(".")[1] if name.startswith("h") else name.split(".")[0]   # h3.attn.c_attn.w -> attn
    parts[component[part]] += math.prod(shape)
total = sum(parts.values())

# Route 2: the closed forms of chapter P6 per block, plus the tables and the final norm.
closed = {"token table $E$": V * d, "position table $P$": T_max * d, "attention": L * (4 * d * d + 4 * d),
          "feed-forward": L * (8 * d * d + 5 * d), "layer norms in blocks": L * 4 * d, "final layer norm": 2 * d,
          "output head (tied to $E$)": 0}
formula = {"token table $E$": r"$\lvert\mathcal V\rvert d$", "position table $P$": r"$T_{\max}d$",
           "attention": "$L(4d^2+4d)$", "feed-forward": "$L(8d^2+5d)$", "layer norms in blocks": "$4Ld$",
           "final layer norm": "$2d$", "output head (tied to $E$)": "$0$"}
print(check_equal("each component: the sum over its named arrays (shapes typed from the configuration) = its closed form",
                  parts, closed))
print(check_equal("blocks from chapter P6's array list: L (12 d^2 + 13 d)", L * sum(math.prod(s) for s in block_shapes(d).values()),
                  L * (12 * d * d + 13 * d), eq="gpt2-total"))
# Routes 1 and 2 both start from cfg: they catch a slip in either, not a wrong configuration. The one outside route is
# the published total (what Hugging Face Transformers reports for the gpt2 checkpoint, the tied matrix counted once).
print(check_equal("total = the published 124,439,808 (the released '124M' checkpoint)", total, 124_439_808, eq="gpt2-total"))
print(table(("component", "formula", "parameters", "share"),
            [(k, formula[k], f"{v:,}", share(v)) for k, v in parts.items()]
            + [("total", "", f"**{total:,}**", "100%")]))

print(glue("V", V, ","), glue("T_max", T_max, ","), glue("d", d), glue("L", L), glue("H", H), glue("total", total, ","))
print(glue("tok_share", V * d / total, ".0%"), glue("ffn_share", closed["feed-forward"] / total, ".0%"),
      glue("attn_share", closed["attention"] / total, ".0%"),
      glue("rest_share", (T_max * d + L * 4 * d + 2 * d) / total, ".0%"))

# Untying the head: one more d x V matrix (GPT-2's head has no bias).
untied = total + d * V
print(glue("n_head_matrix", d * V, ","), glue("untied", untied, ","), glue("untie_rise", untied / total - 1, ".1%"))

# (The number of heads does not enter: chapter P5 computes the layer from its per-head arrays for several H.)

# GPT-3 175B with the same formula (Brown et al., 2020: L = 96 and d = 12,288 in Table 2.1, context 2,048 in § 2.1).
gpt3 = 96 * (12 * 12288 ** 2 + 13 * 12288) + V * 12288 + 2048 * 12288 + 2 * 12288
print(glue("gpt3", gpt3 / 1e9, ".1f"))
print(check_close("GPT-3 by the same count, in billions, rounds to the published 175", gpt3 / 1e9, 175.0, atol=0.5))

fig, ax = figure(size=(5.6, 2.2))
keys = [k for k in parts if parts[k]]
ax.barh(range(len(keys)), [parts[k] / 1e6 for k in keys], color=[PALETTE[i % len(PALETTE)] for i in range(len(keys))])
ax.set_yticks(range(len(keys)), [k.replace("$", "") for k in keys], fontsize=8)
ax.invert_yaxis()
ax.set_xlabel("parameters (millions)")
print(svg(fig, alt=f"Bar chart of GPT-2 small's {total:,} parameters by component: feed-forward "
          f"{closed['feed-forward'] / 1e6:.1f} million, token table {V * d / 1e6:.1f} million, attention "
          f"{closed['attention'] / 1e6:.1f} million; position table and layer norms small",
          caption=f"Where GPT-2 small's {total:,} parameters sit. The feed-forward networks and the token table "
                  f"hold {(closed['feed-forward'] + V * d) / total:.0%} of them."))
