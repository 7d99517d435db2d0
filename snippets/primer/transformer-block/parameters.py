"""P6 Parameters per block: count a built block's arrays and compare with 12 d^2 + 13 d."""
import numpy as np

from esm import PALETTE, check_equal, figure, glue, svg, table


def build_block(d, dtype=np.float32):
    """The arrays of one pre-norm block with biases and d_ff = 4d (uninitialised: only sizes matter)."""
    d_ff = 4 * d
    return {
        "attention": [np.empty((d, d), dtype) for _ in range(4)] + [np.empty(d, dtype) for _ in range(4)],
        "feed-forward": [np.empty((d, d_ff), dtype), np.empty(d_ff, dtype), np.empty((d_ff, d), dtype), np.empty(d, dtype)],
        "layer norms": [np.empty(d, dtype) for _ in range(4)],          # gamma and beta, twice
    }


def count(block):
    return sum(a.size for arrays in block.values() for a in arrays)


widths = [16, 64, 768]
counted = [count(build_block(d)) for d in widths]
print(check_equal("counted arrays of a built block equal 12 d^2 + 13 d for d = 16, 64, 768", counted,
                  [12 * d * d + 13 * d for d in widths], eq="block-params"))

d = widths[-1]
parts = {k: sum(a.size for a in v) for k, v in build_block(d).items()}
total = counted[-1]
print(glue("d_big", d), glue("n_block", total, ","),
      glue("n_ln", parts["layer norms"], ","),
      glue("attn_frac", parts["attention"] / total, ".1%"), glue("ffn_frac", parts["feed-forward"] / total, ".1%"))
print(table(("component", "closed form", f"parameters at $d={d}$", "share"),
            [(k, f, f"{parts[k]:,}", f"{parts[k] / total:.2%}") for k, f in
             zip(parts, ("$4d^2+4d$", "$8d^2+5d$", "$4d$"))] + [("block", "$12d^2+13d$", f"{total:,}", "100%")]))

fig, ax = figure(size=(5.4, 1.6))
left = 0
for (k, v), col in zip(parts.items(), PALETTE):
    ax.barh([0], [v / 1e6], height=0.5, left=left, color=col, label=f"{k} ({v / total:.2%})")
    left += v / 1e6
ax.set_yticks([])
ax.set_ylim(-0.5, 0.5)
ax.set_xlabel(f"parameters per block at $d={d}$ (millions)")
ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.7), ncol=3, fontsize=8, frameon=False)
ax.grid(False, axis="y")
print(svg(fig, alt=f"Stacked bar of one block's {total / 1e6:.2f} million parameters at width {d}: "
          f"{parts['attention'] / total:.0%} attention, {parts['feed-forward'] / total:.0%} feed-forward, a sliver of "
          "layer norm",
          caption="Two thirds of a block's parameters sit in the feed-forward network."))
