"""P6 Parameters per block: count a built block's arrays and compare with 12 d^2 + 13 d; then
GPT-2 small and GPT-3 175B against their published totals."""
import numpy as np

from esm import PALETTE, check_close, check_equal, figure, svg, table


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

d = 768
parts = {k: sum(a.size for a in v) for k, v in build_block(d).items()}
print(table(("component", "closed form", "parameters at $d=768$", "share"),
            [(k, f, f"{parts[k]:,}", f"{parts[k] / counted[-1]:.2%}") for k, f in
             zip(parts, ("$4d^2+4d$", "$8d^2+5d$", "$4d$"))] + [("block", "$12d^2+13d$", f"{counted[-1]:,}", "100%")]))

# Whole models: blocks + token table + position table + final layer norm (output head tied to E).
def gpt_params(L, d, V=50257, T_max=1024):
    return L * (12 * d * d + 13 * d) + V * d + T_max * d + 2 * d


gpt2 = gpt_params(12, 768)
print(check_equal("GPT-2 small: 12 blocks at d = 768 plus tables give the published 124,439,808", gpt2, 124_439_808))
gpt3 = gpt_params(96, 12288, T_max=2048)
print(check_close("GPT-3 (96 blocks, d = 12,288) comes to 174.6 billion, within 0.3 % of the published 175 billion",
                  gpt3 / 1e9, 175.0, rtol=0.003, atol=0))
print(table(("model", "$L$", "$d$", "blocks $L(12d^2+13d)$", "tables and final norm", "total"), [
    ("GPT-2 small", 12, 768, f"{12 * counted[-1]:,}", f"{gpt2 - 12 * counted[-1]:,}", f"{gpt2:,}"),
    ("GPT-3 175B", 96, "12,288", f"{96 * (12 * 12288 ** 2 + 13 * 12288):,}", f"{gpt3 - 96 * (12 * 12288 ** 2 + 13 * 12288):,}",
     f"{gpt3:,}"),
]))

fig, ax = figure(size=(5.4, 1.6))
left = 0
for (k, v), col in zip(parts.items(), PALETTE):
    ax.barh([0], [v / 1e6], height=0.5, left=left, color=col, label=f"{k} ({v / counted[-1]:.2%})")
    left += v / 1e6
ax.set_yticks([])
ax.set_ylim(-0.5, 0.5)
ax.set_xlabel("parameters per block at $d=768$ (millions)")
ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.7), ncol=3, fontsize=8, frameon=False)
ax.grid(False, axis="y")
print(svg(fig, alt="Stacked bar of one block's 7.09 million parameters at width 768: one third attention, two "
          "thirds feed-forward, a sliver of layer norm",
          caption="Two thirds of a block's parameters sit in the feed-forward network."))
