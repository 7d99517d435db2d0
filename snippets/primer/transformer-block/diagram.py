"""P6 The block as a picture, drawn at build time: the residual stream and its two sublayers,
in the pre-LN arrangement (GPT-2) and the post-LN one (the original Transformer). The page shows the
figure without this code (drawing, not the block's arithmetic); its check stays folded under it."""
from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch

from esm import PALETTE, check_equal, figure, svg

COLOURS = {"LN": PALETTE[2], "MHA": PALETTE[0], "FFN": PALETTE[1]}


def box(ax, x, y, text):
    drawn.append((ax, y, text))
    col = next(c for k, c in COLOURS.items() if k in text)
    ax.add_patch(FancyBboxPatch((x - 0.42, y - 0.2), 0.84, 0.4, boxstyle="round,pad=0.02", fc=col, alpha=0.35,
                                ec=col, lw=1.2))
    ax.text(x, y, text, ha="center", va="center", fontsize=8)


def plus(ax, x, y):
    ax.add_patch(Circle((x, y), 0.13, fill=False, lw=1.2, ec="#010101"))
    ax.text(x, y, "+", ha="center", va="center", fontsize=10)


def arrow(ax, a, b, **kw):
    ax.add_patch(FancyArrowPatch(a, b, arrowstyle="-|>", mutation_scale=9, lw=1.1, color="#010101",
                                 shrinkA=0, shrinkB=0, **kw))


def draw(ax, pre):
    """Stream along y = 0 from x = 0 (X) to x = 8 (Y); sublayers on a branch at y = 1."""
    ax.text(-0.3, 0, "$X$", ha="right", va="center", fontsize=10)
    ax.text(8.3, 0, "$Y$", ha="left", va="center", fontsize=10)
    for start, sub, ln, add in ((0.0, "MHA", "$\\mathrm{LN}_1$", 3.4), (4.0, "FFN", "$\\mathrm{LN}_2$", 7.4)):
        if pre:      # branch: LN -> sublayer -> back into the stream
            box(ax, start + 1.0, 1.0, ln)
            box(ax, start + 2.3, 1.0, sub)
            arrow(ax, (start + 0.3, 0), (start + 0.3, 1.0))
            arrow(ax, (start + 0.3, 1.0), (start + 0.58, 1.0))
            arrow(ax, (start + 1.42, 1.0), (start + 1.88, 1.0))
            arrow(ax, (start + 2.72, 1.0), (add, 1.0))
            arrow(ax, (add, 1.0), (add, 0.13))
            arrow(ax, (start, 0), (add - 0.13, 0))
            arrow(ax, (add + 0.13, 0), (start + 4.0 if start == 0 else 8.0, 0))
        else:        # branch: sublayer -> add -> LN on the stream itself
            box(ax, start + 1.5, 1.0, sub)
            arrow(ax, (start + 0.3, 0), (start + 0.3, 1.0))
            arrow(ax, (start + 0.3, 1.0), (start + 1.08, 1.0))
            arrow(ax, (start + 1.92, 1.0), (start + 2.3, 1.0))
            arrow(ax, (start + 2.3, 1.0), (start + 2.3, 0.13))
            arrow(ax, (start, 0), (start + 2.17, 0))
            box(ax, start + 3.15, 0, ln)
            arrow(ax, (start + 2.43, 0), (start + 2.73, 0))
            arrow(ax, (start + 3.57, 0), (start + 4.0 if start == 0 else 8.0, 0))
            add = start + 2.3
        plus(ax, add, 0)
    ax.text(4.0, -0.45, "$\\tilde X$", ha="center", va="center", fontsize=9)
    ax.set_title("pre-LN (GPT-2): $\\tilde X=X+\\mathrm{MHA}(\\mathrm{LN}_1(X))$" if pre else
                 "post-LN (2017): $\\tilde X=\\mathrm{LN}_1(X+\\mathrm{MHA}(X))$", fontsize=9)
    ax.set_xlim(-0.8, 8.8)
    ax.set_ylim(-0.7, 1.5)
    ax.set_aspect("equal")
    ax.axis("off")


drawn = []                                            # (axes, height, label) of every box
fig, axes = figure(2, 1, size=(6.8, 3.6))
draw(axes[0], pre=True)
draw(axes[1], pre=False)
on_stream = [[t.strip("$").replace("\\mathrm{LN}", "LN") for a, y, t in drawn if a is ax and y == 0] for ax in axes]
print(check_equal("the drawing puts layer norms on the stream itself only in post-LN (boxes drawn at the stream's height)",
                  on_stream, [[], ["LN_1", "LN_2"]]))
print(svg(fig, alt="Two diagrams of a transformer block. Top, pre-LN: the residual stream runs straight from X to Y; "
          "two branches each apply a layer norm and then attention or the feed-forward network, and add the result "
          "back. Bottom, post-LN: each branch applies attention or the feed-forward network to the stream, adds, and "
          "the sum passes through a layer norm on the stream itself.",
          caption="The block in its two arrangements. In pre-LN the stream from $X$ to $Y$ passes only through "
                  "additions; in post-LN every path passes through both layer norms."))
