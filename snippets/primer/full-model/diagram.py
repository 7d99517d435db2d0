"""P7 The whole model as a picture, drawn at build time: token ids, embedding plus positions, the
stack of L blocks, the final layer norm and the tied head, with the shape of the array on every
arrow. The page shows the figure without this code (drawing, not the model's arithmetic); its
check, which reads the shapes back off the drawing and compares them with the arrays the forward
pass computes, stays folded under it."""
import re

import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from esm import PALETTE, TINY, check_equal, figure, gpt_forward, svg, tiny_gpt

B, T = 3, 8                                          # the batch of the demo below
V, d, L = TINY["V"], TINY["d"], TINY["L"]
SIZES = {"B": B, "T": T, "d": d, "V": V}

# (box text, colour) left to right; the stack of blocks is drawn as L boxes, one behind the other.
BOXES = [("token ids", None), ("embed\n$E_{i_t}+P_t$", PALETTE[2]), (f"${L}\\times$ block\n(pre-LN)", PALETTE[0]),
         ("final\nlayer norm", PALETTE[2]), ("tied head\n$\\cdot\\,E^{\\top}$", PALETTE[1]), ("logits", None)]
# the symbolic shape of the array on each arrow (between box k and box k + 1)
ARROWS = ["B T", "B T d", "B T d", "B T d", "B T V"]
XS = np.arange(len(BOXES)) * 3.5       # room for the shapes between the boxes


def shape_label(symbols):
    """'B T d' -> ('B×T×d', '3×8×32'): the symbols and this demo's sizes."""
    return "×".join(symbols.split()), "×".join(str(SIZES[s]) for s in symbols.split())


fig, ax = figure(size=(7.6, 1.45))
stacked = 0                                          # boxes drawn for the stack of blocks
for x, (text, colour) in zip(XS, BOXES):
    if colour is None:
        ax.text(x, 0, text, ha="center", va="center", fontsize=9)
        continue
    layers = L if "block" in text else 1
    stacked = layers if "block" in text else stacked
    for k in reversed(range(layers)):                # the blocks as a small stack
        ax.add_patch(FancyBboxPatch((x - 0.8 + 0.08 * k, -0.4 + 0.08 * k), 1.6, 0.8, boxstyle="round,pad=0.02",
                                    fc=colour, alpha=0.35, ec=colour, lw=1.2))
    ax.text(x, 0, text, ha="center", va="center", fontsize=7.5)
drawn = []                                           # the shape labels as drawn, read back for the check
for k, symbols in enumerate(ARROWS):
    a, b = XS[k] + (0.8 if k == 0 else 0.92), XS[k + 1] - (0.6 if k == len(ARROWS) - 1 else 0.86)
    ax.add_patch(FancyArrowPatch((a, 0), (b, 0), arrowstyle="-|>", mutation_scale=9, lw=1.1, color="#010101",
                                 shrinkA=0, shrinkB=0))
    sym, num = shape_label(symbols)
    ax.text((a + b) / 2, 0.2, sym, ha="center", va="bottom", fontsize=7.5)
    drawn.append(ax.text((a + b) / 2, -0.2, num, ha="center", va="top", fontsize=7.5))
ax.set_xlim(XS[0] - 0.8, XS[-1] + 0.6)
ax.set_ylim(-0.55, 0.6)
ax.set_aspect("equal")
ax.axis("off")

# The arrays the forward pass computes on a batch of this size, in the order of the arrows.
trace = {}
ids = np.arange(B * T).reshape(B, T) % V
gpt_forward(ids, tiny_gpt(), trace=trace)
computed = [ids.shape, trace["X0"].shape, trace[f"X{L}"].shape, trace["Xf"].shape, trace["logits"].shape]
read_back = [tuple(int(n) for n in re.findall(r"\d+", t.get_text())) for t in drawn]
print(check_equal("the shapes written under the arrows are those of the arrays the forward pass computes "
                  "(ids, X^(0), X^(L), X_f, logits)", read_back, computed))
print(check_equal(f"the stack drawn holds as many boxes as the model has blocks ({L})", stacked,
                  len(tiny_gpt()["blocks"])))
print(svg(fig, alt=f"A diagram of the whole model as a left-to-right pipeline. Token ids, an array of B by T, enter an "
          f"embedding step that adds each token's row of E and its position's row of P, giving B by T by d. A stack of "
          f"{L} pre-LN blocks keeps that shape, a final layer norm keeps it, and the tied head multiplies by E transposed, "
          f"giving logits of B by T by V. Under each arrow are this demo's sizes: B = {B}, T = {T}, d = {d}, V = {V}.",
          caption=f"The whole model. Every arrow carries a $B\\times T\\times d$ stream except the first (the ids, "
                  f"$B\\times T$) and the last (the logits, $B\\times T\\times\\lvert\\mathcal V\\rvert$); below each "
                  f"arrow, the sizes of the demo that follows."))
