"""7.3 A real attention picture: the weights of four heads of all-MiniLM-L6-v2 for one sentence,
checked against an independent row sum and against the layer's own output."""
import math

import numpy as np

from esm import (check_close, figure, glue, table, merge_heads, minilm, minilm_attention,
                 minilm_states, multi_head_attention, split_heads, svg, tokenize)

TEXT = "The cat sat on the mat because it was warm."
PANELS = ((1, 2), (2, 8), (3, 7), (6, 11))       # (layer, head): layers from 1, heads from 0

tokens, A = minilm_attention(TEXT, np.float64)   # (L, H, T, T): A[l-1, h, t, s]
L, H, T, _ = A.shape
ids, mask = tokenize([TEXT])
states = minilm_states(ids, mask, np.float64)    # the encoder's own states, (L+1, 1, T, d)
w, cfg = minilm().weights, minilm().config
d = cfg["hidden_size"]
d_k = d // H
print(f"{TEXT!r}: {T} WordPieces {tokens}; {L} layers x {H} heads of d_k = {d_k}; A has shape {A.shape}")

# Check 1: every row is a probability vector, summed by math.fsum row by row (not numpy's sum).
sums = np.array([[[math.fsum(A[l, h, t]) for t in range(T)] for h in range(H)] for l in range(L)])
print(check_close(f"all {L * H * T} rows of weights sum to 1 (math.fsum of each row)", sums,
                  np.ones_like(sums), atol=1e-12))


def param(name):
    return np.asarray(w[name], dtype=np.float64)


# Check 2: weights times values, per head, summed by a loop over keys, concatenated and projected by
# W_O, is the layer's attention output as the encoder's matrix route (multi_head_attention) computes
# it. (That the encoder's states are PyTorch's, to 1e-5, is held by tests/test_minilm_reference.py.)
worst_attn = 0.0
for l in range(L):
    p = f"encoder.layer.{l}."
    Wq, Wk, Wv, Wo = (param(p + f"attention.{n}.weight").T for n in ("self.query", "self.key", "self.value", "output.dense"))
    bq, bk, bv, bo = (param(p + f"attention.{n}.bias") for n in ("self.query", "self.key", "self.value", "output.dense"))
    h_in = states[l, 0]
    Vh = split_heads(h_in @ Wv + bv, H)                          # (H, T, d_k)
    heads = np.array([[sum(A[l, hh, t, s] * Vh[hh, s] for s in range(T)) for t in range(T)] for hh in range(H)])
    attn = merge_heads(heads) @ Wo + bo                          # sum_s a_ts v_s, heads side by side, W_O
    encoder = multi_head_attention(h_in, Wq, Wk, Wv, Wo, H, b_Q=bq, b_K=bk, b_V=bv, b_O=bo)
    worst_attn = max(worst_attn, float(np.abs(attn - encoder).max()))
print(check_close(f"in all {L} layers, sum_s a_ts v_s per head (a loop over keys), concatenated, times W_O (+ b_O) "
                  "equals the encoder's multi_head_attention output (matrix route)", worst_attn, 0.0, atol=1e-9,
                  eq="multi-head"))

# What the four panels show, measured.
prev = {k: float(np.mean([A[k[0] - 1, k[1], t, t - 1] for t in range(1, T)])) for k in PANELS}
nxt = {k: float(np.mean([A[k[0] - 1, k[1], t, t + 1] for t in range(T - 1)])) for k in PANELS}
cls = {k: float(A[k[0] - 1, k[1], :, 0].mean()) for k in PANELS}
it, cat = tokens.index("it"), tokens.index("cat")
l_s, h_s = PANELS[2]                                              # the [CLS] head
# A weight is not a contribution: key s adds a_ts * (v_s of head h) W_O[rows of head h] to position t.
p = f"encoder.layer.{l_s - 1}."
f_v = ((states[l_s - 1, 0] @ param(p + "attention.self.value.weight").T + param(p + "attention.self.value.bias"))
       [:, h_s * d_k:(h_s + 1) * d_k] @ param(p + "attention.output.dense.weight").T[h_s * d_k:(h_s + 1) * d_k])
norms = np.linalg.norm(f_v, axis=1)
contrib = A[l_s - 1, h_s] * norms[None, :]
cls_share = float((contrib[:, 0] / contrib.sum(axis=1)).mean())
cat_col = A[PANELS[3][0] - 1, PANELS[3][1], :, cat]              # what every position gives 'cat' there
print(table(["layer, head", "on previous token", "on next token", "on [CLS]", "'it' -> 'cat'"],
            [(f"{l}, {h}", f"{prev[(l, h)]:.2f}", f"{nxt[(l, h)]:.2f}", f"{cls[(l, h)]:.2f}",
              f"{A[l - 1, h, it, cat]:.2f}") for (l, h) in PANELS]))
print(table([f"layer {l_s}, head {h_s}", "[CLS]", "median of the others",
             "[CLS]'s share of sum_s a_ts |v_s W_O| (mean over t)"],
            [(r"norm of v_s W_O (this head's rows of W_O)", f"{norms[0]:.3f}", f"{np.median(norms[1:]):.3f}",
              f"{cls_share:.2f}")]))

print(glue("mla_L", L), glue("mla_H", H), glue("mla_T", T), glue("mla_dk", d_k),
      glue("mla_prev", prev[PANELS[0]], ".2f"), glue("mla_next", nxt[PANELS[1]], ".2f"),
      glue("mla_cls", cls[PANELS[2]], ".2f"),
      glue("mla_cls_share", cls_share, ".2f"),
      glue("mla_norm_ratio", int(round(np.median(norms[1:]) / norms[0]))),
      glue("mla_text", TEXT), glue("mla_cat_rows", float(np.mean(cat_col)), ".2f"),
      glue("mla_cat_min", float(cat_col.min()), ".2f"), sep="")

fig, axes = figure(2, 2, size=(6.0, 6.2))
for k, (ax, (l, h)) in enumerate(zip(axes.ravel(), PANELS)):
    im = ax.imshow(A[l - 1, h], cmap="viridis", vmin=0, vmax=1)
    ax.set_title(f"layer {l}, head {h}", fontsize=9)
    ax.set_xticks(range(T), tokens if k >= 2 else [], rotation=90, fontsize=7)   # token names on the
    ax.set_yticks(range(T), tokens if k % 2 == 0 else [], fontsize=7)           # outer edges only
    ax.grid(False)
for ax in axes[:, 0]:
    ax.set_ylabel("query position", fontsize=8)
for ax in axes[1, :]:
    ax.set_xlabel("key position", fontsize=8)
fig.colorbar(im, ax=axes, shrink=0.6, label="weight")
print(svg(fig, alt=f"Four heat maps of all-MiniLM-L6-v2 attention weights for '{TEXT}': layer 1 head 2 "
                   "puts each row on the previous token, layer 2 head 8 on the next token, layer 3 head 7 "
                   "on [CLS], layer 6 head 11 puts most weight on 'cat' from every row",
          caption=f"Attention weights of four of the {L * H} heads of all-MiniLM-L6-v2 for one sentence: "
                  "row $t$ is where query position $t$ reads from (each row sums to 1; layers counted from 1, "
                  "heads from 0). Weights only: they do not show how much each key's value adds (see text)."))
