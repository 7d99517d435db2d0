"""7.3 Layer-wise contextualization: the same token id starts from the same row in two
contexts and drifts apart, layer by layer, through residual attention and MLP updates."""
import numpy as np

import re

from esm import (PALETTE, attention, causal_mask, check_close, check_less, check_true, cosine, drawing, glue,
                 figure, layer_norm, shape_table, sinusoidal_positions, svg, table)

rng = np.random.default_rng(73)
Vsz, d, d_ff, L, T = 12, 16, 32, 4, 3
E = rng.normal(0.0, 1.0, (Vsz, d))
P = sinusoidal_positions(T, d)
layers = [dict(WQ=rng.normal(0, d ** -0.5, (d, d)), WK=rng.normal(0, d ** -0.5, (d, d)),
               WV=rng.normal(0, d ** -0.5, (d, d)), WO=rng.normal(0, d ** -0.5, (d, d)),
               W1=rng.normal(0, d ** -0.5, (d, d_ff)), W2=rng.normal(0, d_ff ** -0.5, (d_ff, d)))
          for _ in range(L)]

def block(Hm, p):
    """One pre-norm block: X~ = X + Attn(LN X), then X~ + MLP(LN X~)."""
    Z = layer_norm(Hm)
    A, _ = attention(Z @ p["WQ"], Z @ p["WK"], Z @ p["WV"], mask=causal_mask(len(Hm)))
    Ht = Hm + A @ p["WO"]
    return Ht + np.tanh(layer_norm(Ht) @ p["W1"]) @ p["W2"]

ctx = {"text A": np.array([0, 3, 7]), "text B": np.array([0, 4, 7])}   # ids; they differ only at position 1
states = {}
for name, ids in ctx.items():
    Hm = E[ids] + P                              # X^(0): rows plus positions
    seq = [Hm]
    for p in layers:
        Hm = block(Hm, p)
        seq.append(Hm)
    states[name] = np.stack(seq)                 # (L+1, T, d)
a, b = states["text A"], states["text B"]

print(shape_table({"(L+1)": L + 1, "T": T, "d": d, "V": Vsz}, [
    ("token table", "E", E, "V d", "static rows, one per id"),
    ("states of one text", r"X^{(0)},\dots,X^{(L)}", a, "(L+1) T d", "one $T\\times d$ matrix per layer"),
    ("state of id 7", r"\mathbf h^{(L)}_2", a[-1, 2], "d", "position 2 after the last layer"),
]))

# Independent: a block position by position with explicit sums; it also returns the weights of the
# last position's query.
def block_loop(H0, p):
    Z = layer_norm(H0)
    rows = []
    for t in range(T):
        q = Z[t] @ p["WQ"]
        sc = [q @ (Z[s] @ p["WK"]) / np.sqrt(d) for s in range(t + 1)]      # only s <= t
        w = np.exp(np.array(sc) - max(sc)); w /= w.sum()
        att = sum(w[s] * (Z[s] @ p["WV"]) for s in range(t + 1)) @ p["WO"]
        ht = H0[t] + att
        z2 = (ht - ht.mean()) / np.sqrt(((ht - ht.mean()) ** 2).mean() + 1e-5)
        rows.append(ht + np.tanh(z2 @ p["W1"]) @ p["W2"])
    return np.array(rows), w


rows, _ = block_loop(a[0], layers[0])
print(check_close("layer 1 equals X + Attn(LN X) followed by + MLP(LN .), computed position by position",
                  a[1], rows, atol=1e-12, eq="residual-update"))

# The block as the stream sees it: a line running up (x = 124), and two sublayers, each reading at one
# height (y, in points, downwards), going through its box on the right and adding back at a plus.
sublayers = [("Attn", 178, 126, PALETTE[0]), ("MLP", 106, 54, PALETTE[1])]
path, pic = "M124 204V132M124 120V60M124 48V8m-4 5l4 -5l4 5", ""
for name, read, add, col in sublayers:
    m = (read + add) // 2
    path += (f"M124 {read}H205V{m + 9}m-4 5l4 -5l4 5M205 {m - 9}V{add}H130m5 -4l-5 4l5 4"       # out, and back in
             f"M118 {add}a6 6 0 1 0 12 0a6 6 0 1 0 -12 0M120 {add}h8M124 {add - 4}v8")           # the plus
    pic += (f'<rect x="165" y="{m - 9}" width="80" height="18" rx="3" fill="{col}" fill-opacity="0.3" stroke="{col}"/>'
            f'<text x="205" y="{m + 3.5}" text-anchor="middle" font-size="9">LN, then {name}</text>')
pic += (f'<path fill="none" stroke="currentColor" stroke-width="1.2" d="{path}"/><rect x="114" y="38" width="143" '
        'height="152" rx="4" fill="none" stroke="currentColor" stroke-opacity="0.45" stroke-dasharray="3 3"/>'
        '<text x="253" y="50" text-anchor="end" font-size="8">block ℓ</text><text x="116" y="186" text-anchor="end">x'
        '</text><text x="116" y="94" text-anchor="end">x̃ = x + Attn(LN x)</text><text x="116" y="30" '
        'text-anchor="end">x̃ + MLP(LN x̃)</text><text x="132" y="203" font-size="8">from block ℓ − 1</text>'
        '<text x="132" y="14" font-size="8">to block ℓ + 1</text>')
# Read back: the sublayers in the order the stream meets them (bottom first), each run on the stream
# through LN and added to it, give layer 1 of the demo.
run = {"Attn": lambda H, p: attention(*(layer_norm(H) @ p[w] for w in ("WQ", "WK", "WV")), mask=causal_mask(len(H)))[0] @ p["WO"],
       "MLP": lambda H, p: np.tanh(layer_norm(H) @ p["W1"]) @ p["W2"]}
drawn = [name for y, name in sorted(re.findall(r'y="([\d.]+)"[^>]*>LN, then (\w+)<', pic), key=lambda m: -float(m[0]))]
x = a[0]                                             # layer 0 of text A, every position
for name in drawn:
    x = x + run[name](x, layers[0])
print(check_close(f"the stream as drawn ({' then '.join(drawn)}, each read through LN and added back) gives layer 1 "
                  "of the position-by-position loop", x, np.array(rows), atol=1e-12, eq="residual-update"))
print(drawing(pic, size=(263, 210),
              alt="The residual stream of one block as a vertical line going up through it, from block l minus 1 to "
                  "block l plus 1. Near the bottom a branch reads the stream x, passes it through a layer norm and "
                  "attention, and adds the result back at a plus sign, giving x tilde equal to x plus Attn of LN x; "
                  "above it a second branch does the same with the MLP, giving x tilde plus MLP of LN x tilde.",
              caption="One block as the stream sees it: attention, then the MLP, each reads the stream through a "
                      "layer norm and adds its output back; nothing else changes the stream."))

cos_last = np.array([cosine(a[l, 2], b[l, 2]) for l in range(L + 1)])
# At layer 0 position 2 is E[7] + P[2] in both texts (same id, same position): the same sum twice, so not a check.
loop, read1 = {}, {}                             # both texts, every block by the loop; w[1]: weight on position 1
for name, ids in ctx.items():
    Hm, read1[name] = E[ids] + P, []
    for p in layers:
        Hm, w = block_loop(Hm, p)
        read1[name].append(w[1])
    loop[name] = Hm[2]
print(check_close(f"cos at position 2 after {L} blocks, each block rerun position by position", cos_last[-1],
                  cosine(loop["text A"], loop["text B"]), atol=1e-12))
drops = -np.diff(cos_last)
print(check_true("the cosine falls at every block, least in block 1", bool(np.all(drops > 0) and np.argmin(drops) == 0),
                 "drops " + ", ".join(f"{x:.4f}" for x in drops)))
w_first = max(read1[n][0] for n in ctx)
print(check_less("position 2's weight on position 1, both texts: block 1 < block 2", w_first,
                 min(read1[n][1] for n in ctx), names=("block 1", "block 2")))
print(check_close("position 0 (id 0) is identical in both texts at every layer: it cannot see ahead",
                  a[:, 0], b[:, 0], atol=0.0))
print(table(["layer"] + [str(l) for l in range(L + 1)], [["cos, position 2"] + [f"{c:.3f}" for c in cos_last]]))
print(glue("ctx_cos_last", cos_last[-1], ".2f"), glue("ctx_d", d), glue("ctx_L", L), sep="")

fig, ax = figure(size=(5.2, 2.8))
ax.plot(range(L + 1), cos_last, "o-", color=PALETTE[0], label="id 7 (position 2)")
ax.plot(range(L + 1), [cosine(a[l, 0], b[l, 0]) for l in range(L + 1)], "s--",
        color=PALETTE[1], label="id 0 (position 0)")
ax.set_xlabel(r"layer $\ell$")
ax.set_ylabel("cosine across the two texts")
ax.set_xticks(range(L + 1))
ax.legend(fontsize=8, loc="lower left", frameon=False)
print(svg(fig, alt="Cosine between the two texts' states of id 7 at position 2 by layer: "
                   + ", ".join(f"{c:.3f}" for c in cos_last) + "; position 0 stays at 1 at every layer",
          caption=f"Same id, two texts: the state at position 2 starts identical and drifts apart block by "
                  f"block, least in block 1, where it gives position 1, the one that differs, at most "
                  f"{w_first:.2f} of its weight; position 0, which sees nothing of the difference, stays identical."))
