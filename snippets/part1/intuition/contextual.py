"""1.4 Static versus contextual meaning: one id, one row, but different states after a layer.

The contextual layer here is made by hand (one causal attention head with a residual
connection, random weights); it is not a trained model. It only has to read the neighbours.
"""
import numpy as np

from esm import PALETTE, attention, causal_mask, check_close, check_less, cosine, figure, shape_table, svg, table

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

t = 2   # "bank" in both texts
print(check_close("layer 0: 'bank' has the same state in both texts (it is just the row E[bank])",
                  Ha[0, t], E[vocab["bank"]], eq="contextual-states"))
# f_l at position t, one position at a time: causal, so it only sees positions <= t.
WQ, WK, WV = layers[0]
H0 = Ha[0]
s = np.array([H0[t] @ WQ @ (H0[j] @ WK) / np.sqrt(d) for j in range(t + 1)])
w = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
h1_loop = H0[t] + sum(w[j] * (H0[j] @ WV) for j in range(t + 1))
print(check_close("layer 1 at t=2 recomputed from h^(0)_{0..2} by a loop", Ha[1, t], h1_loop,
                  eq="contextual-states"))
cos_by_layer = [cosine(Ha[l, t], Hb[l, t]) for l in range(L + 1)]
print(check_close("layer 0: cosine between the two 'bank' states", cos_by_layer[0], 1.0, atol=1e-12))
print(check_less("layer 1: the two 'bank' states now differ",
                 cos_by_layer[1], 0.999, names=("cos at layer 1", "0.999")))
print(check_close("position 0 ('the') sees only itself, so its states stay equal in both texts",
                  Ha[:, 0], Hb[:, 0], atol=1e-12))

fig, ax = figure(size=(5.2, 2.8))
ax.plot(range(L + 1), cos_by_layer, "o-", color=PALETTE[0], label="'bank' (position 2)")
cos_the = [cosine(Ha[l, 0], Hb[l, 0]) for l in range(L + 1)]
ax.plot(range(L + 1), cos_the, "s--", color=PALETTE[1], label="'the' (position 0)")
ax.set_xticks(range(L + 1))
ax.set_xlabel("layer ℓ")
ax.set_ylabel("cosine between the two texts")
ax.set_ylim(0.5, 1.05)
ax.legend(loc="lower left")
print(svg(fig, alt="Cosine between the states of 'bank' in two texts, equal at layer 0, lower after each layer",
          caption=r"The same id in two texts: identical at $\ell=0$, apart once the hand-made layers "
                  r"have read the context. 'the' comes first and has no context to read."))
print(table(("layer", "cos, 'bank' in A vs B", "cos, 'the' in A vs B"),
            [(l, f"{c:.4f}", f"{c0:.4f}") for l, (c, c0) in enumerate(zip(cos_by_layer, cos_the))]))
