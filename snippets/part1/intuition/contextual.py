"""1.4 Static versus contextual meaning: one id, one row, but different states after a layer.

The contextual layer here is made by hand (one causal attention head with a residual
connection, random weights); it is not a trained model. It only has to read the neighbours.
"""
import numpy as np

from esm import PALETTE, attention, causal_mask, check_close, check_equal, check_less, cosine, figure, glue, one_hot, shape_table, svg, table

vocab = {"the": 0, "river": 1, "bank": 2, "money": 3, "flooded": 4, "closed": 5}
V, d, L = len(vocab), 4, 3
rng = np.random.default_rng(4)
E = rng.normal(0.0, 1.0, (V, d))
layers = [tuple(rng.normal(0.0, 0.8, (d, d)) for _ in range(3)) for _ in range(L)]


def layer(H, weights):
    """f_l: H + one causal attention head over all positions (the hand-made contextual layer)."""
    WQ, WK, WV = weights
    out, _ = attention(H @ WQ, H @ WK, H @ WV, mask=causal_mask(len(H)))
    return H + out


def states(words):
    """h^(0), ..., h^(L) for one text; no position vectors, so h^(0)_t = x_t."""
    H = [E[[vocab[w] for w in words]]]
    for weights in layers:
        H.append(layer(H[-1], weights))
    return np.stack(H)                       # (L+1, T, d)


a = "the river bank flooded".split()
b = "the money bank closed".split()
Ha, Hb = states(a), states(b)
T = len(a)

print(shape_table({"(L+1)": L + 1, "T": T, "d": d, "V": V}, [
    ("embedding table", "E", E, "V d", "static: one row per id"),
    ("states of text A", r"\mathbf h^{(\ell)}_t", Ha, "(L+1) T d", r"layer $\ell=0..L$, position $t$"),
    ("states of text B", "", Hb, "(L+1) T d", "same ids at positions 0 and 2"),
]))

t = a.index("bank")   # "bank" sits at the same position in both texts
print(check_equal("'bank' is at the same position in both texts", b.index("bank"), t))


def states_by_loop(words):
    """The same L layers written out position by position, from h^(0)_t = e_{i_t}^T E (the one-hot
    product of 2.2) and explicit causal sums over s <= t: no esm.attention, no mask matrix."""
    Hs = [[sum(one_hot(vocab[w], V)[m] * E[m] for m in range(V)) for w in words]]
    for WQ, WK, WV in layers:
        prev, nxt = Hs[-1], []
        for tt in range(len(words)):
            s = np.array([(prev[tt] @ WQ) @ (prev[j] @ WK) / np.sqrt(d) for j in range(tt + 1)])
            w = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
            nxt.append(prev[tt] + sum(w[j] * (prev[j] @ WV) for j in range(tt + 1)))
        Hs.append(nxt)
    return np.array(Hs)


print(check_close("all states of text A, every layer and position, vs the loop written position by position",
                  Ha, states_by_loop(a), atol=1e-12, eq="contextual-states"))
print(check_close("all states of text B, every layer and position, vs the same loop",
                  Hb, states_by_loop(b), atol=1e-12, eq="contextual-states"))
cos_by_layer = [cosine(Ha[l, t], Hb[l, t]) for l in range(L + 1)]
cos_the = [cosine(Ha[l, 0], Hb[l, 0]) for l in range(L + 1)]
print(check_less("after every layer the two 'bank' states differ (largest cosine over layers 1..L)",
                 max(cos_by_layer[1:]), 0.999, names=("max cos, layers 1..L", "0.999")))
print(check_close("position 0 ('the') sees only itself, so its states stay equal in both texts (all layers)",
                  Ha[:, 0], Hb[:, 0], atol=1e-12))
print(glue("ctx_L", L))
print(glue("ctx_pos_bank", t))
print(glue("ctx_text_a", " ".join(a)))
print(glue("ctx_text_b", " ".join(b)))
for l, c in enumerate(cos_by_layer):
    print(glue(f"ctx_cos_bank_{l}", c, ".4f"))
print(glue("ctx_cos_the_min", min(cos_the), ".4f"))
nonmonotone = any(np.diff(cos_by_layer[1:]) > 0)
print(glue("ctx_depth_note", "though not by an amount that grows with depth" if nonmonotone
           else "further with every layer"))

fig, ax = figure(size=(5.2, 2.8))
ax.plot(range(L + 1), cos_by_layer, "o-", color=PALETTE[0], label="'bank' (position 2)")
ax.plot(range(L + 1), cos_the, "s--", color=PALETTE[1], label="'the' (position 0)")
ax.set_xticks(range(L + 1))
ax.set_xlabel("layer ℓ")
ax.set_ylabel("cosine between the two texts")
ax.set_ylim(0.5, 1.05)
ax.legend(loc="lower left")
print(svg(fig, alt=f"Line chart of the cosine between the two texts' states by layer 0 to {L}: 'bank' goes "
                   + ", ".join(f"{c:.2f}" for c in cos_by_layer) + f"; 'the' stays at {min(cos_the):.2f}.",
          caption=r"The same id in two texts: identical at $\ell=0$, apart once the hand-made layers "
                  r"have read the context. 'the' comes first and has no context to read."))
print(table(("layer", "cos, 'bank' in A vs B", "cos, 'the' in A vs B"),
            [(l, f"{c:.4f}", f"{c0:.4f}") for l, (c, c0) in enumerate(zip(cos_by_layer, cos_the))]))
