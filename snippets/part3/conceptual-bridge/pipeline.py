"""12 Conceptual bridge: a tiny forward pass from ids to logits, and the diagram of it, drawn
from the shapes that pass actually produced."""
import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from esm import (PALETTE, attention, causal_mask, check_close, check_equal, figure,
                 shape_table, sinusoidal_positions, svg)

rng = np.random.default_rng(12)
B, T, V, d, L = 2, 5, 50, 8, 2
E = rng.normal(0.0, 1.0, (V, d))
ids = rng.integers(0, V, (B, T))
X = E[ids]                                                   # lookup
P = sinusoidal_positions(T, d)
H0 = X + P                                                   # + positions (broadcast over B)
blocks = [tuple(rng.normal(0.0, d ** -0.5, (d, d)) for _ in range(5)) for _ in range(L)]

def forward(ids_):
    Hs_ = E[ids_] + P
    for Wq, Wk, Wv, W1, W2 in blocks:                        # attention + MLP, residual
        A, _ = attention(Hs_ @ Wq, Hs_ @ Wk, Hs_ @ Wv, mask=causal_mask(T))
        Hs_ = Hs_ + A
        Hs_ = Hs_ + np.tanh(Hs_ @ W1) @ W2
    return Hs_

Hs = forward(ids)
logits = Hs @ E.T                                            # tied head: z = E h

stages = [("token ids", "×".join(map(str, ids.shape)), "B × T"),
          ("rows  E[ids]", "×".join(map(str, X.shape)), "B × T × d"),
          ("+ positions  X + P[0:T]", "×".join(map(str, H0.shape)), "B × T × d"),
          (f"{L} blocks: attention + MLP", "residual adds", "B × T × d"),
          ("contextual states", "×".join(map(str, Hs.shape)), "B × T × d"),
          (r"logits  $Z = X^{(L)}E^\top$", "×".join(map(str, logits.shape)), "B × T × |V|")]
ops = ["lookup", "add P[0:T]", r"$X^{(0)}$ enters the stream", r"$X^{(L)}$ leaves it", "output head"]

fig, ax = figure(size=(5.6, 6.4))
ax.set_xlim(0, 10); ax.set_ylim(-0.5, len(stages) * 1.6 - 0.5)
ax.axis("off")
ink = "#010101"                                   # the ink colour esm.svg turns into currentColor
for k, (name, real, sym) in enumerate(stages):
    y = (len(stages) - 1 - k) * 1.6
    colour = PALETTE[0] if k in (0, 1, 2) else (PALETTE[2] if k in (3, 4) else PALETTE[1])
    ax.add_patch(FancyBboxPatch((1.2, y), 5.6, 0.95, boxstyle="round,pad=0.05,rounding_size=0.15",
                                facecolor=colour, alpha=0.18, edgecolor=colour, linewidth=1.6))
    ax.text(1.45, y + 0.62, name, fontsize=10.5, color=ink, va="center", fontweight="bold")
    ax.text(1.45, y + 0.27, sym, fontsize=9.5, color=ink, va="center")
    ax.text(6.55, y + 0.27, real, fontsize=8.5, color=ink, va="center", ha="right", alpha=0.75)
    if k < len(stages) - 1:
        ax.add_patch(FancyArrowPatch((4.0, y - 0.02), (4.0, y - 0.6), arrowstyle="-|>",
                                     mutation_scale=14, color=ink, linewidth=1.3))
        ax.text(4.25, y - 0.32, ops[k], fontsize=8.5, color=ink, va="center", style="italic")
ax.text(7.2, 1.6 * 5 + 0.45, "tokenizer side", fontsize=8.5, color=ink, alpha=0.8, va="center")
ax.text(7.2, 0.45, "prediction side", fontsize=8.5, color=ink, alpha=0.8, va="center")
print(svg(fig, alt="Diagram: token ids B by T, rows B by T by d, plus positions, attention and "
                   "MLP blocks, contextual states, logits B by T by V",
          caption=f"The path of this demo's batch ($B={B}$, $T={T}$, $d={d}$, "
                  rf"$\lvert\mathcal V\rvert={V}$): each box shows the symbolic shape and, on the "
                  "right, the shape the code produced."))

print(shape_table({"B": B, "T": T, "d": d, "V": V}, [
    ("token ids", r"\mathbf i", ids, "B T", "from the tokenizer"),
    ("rows", "X", X, "B T d", r"$E[\mathbf i]$"),
    ("positions", r"P_{0:T,:}", P, "T d", "added to every sequence"),
    ("first states", r"X^{(0)}", H0, "B T d", "$X+P_{0:T,:}$"),
    (f"states after {L} blocks", r"X^{(L)}", Hs, "B T d", "contextual"),
    ("logits", "Z", logits, "B T V", r"one score per vocabulary entry"),
]))
print(check_close("logits at (n=1, t=3) equal E h_t by a loop over the vocabulary", logits[1, 3],
                  [float(E[v] @ Hs[1, 3]) for v in range(V)], atol=1e-12))
ids2 = ids.copy(); ids2[0, 4] = (ids[0, 4] + 1) % V        # change the last token of sequence 0
changed = np.any(np.abs(forward(ids2) - Hs) > 0, axis=2)
print(check_equal("changing token 4 of sequence 0 changes only that state: positions 0-3 see no future",
                  [[int(t) for t in np.where(changed[b])[0]] for b in range(B)], [[4], []]))
