"""P15 A top-k router and a layer of SwiGLU experts, each run on the tokens gathered for it."""
import math

import numpy as np

from esm import check_close, glue, sigmoid, softmax


def swiglu(X, W_1, W_3, W_2):
    """One expert: the modern block's feed-forward layer."""
    A = X @ W_1
    return (A * sigmoid(A) * (X @ W_3)) @ W_2


def route(X, W_r, k):
    """Each token's k experts of largest logit, best first, and their weights: a softmax over those k."""
    logits = X @ W_r                                                    # (T, E)
    chosen = np.argsort(-logits, axis=1, kind="stable")[:, :k]          # (T, k)
    return chosen, softmax(np.take_along_axis(logits, chosen, axis=1), axis=1)


def moe(X, W_r, experts, k):
    """Each expert runs once, on the rows of the tokens that chose it, and adds its weighted output there."""
    chosen, gates = route(X, W_r, k)
    Y = np.zeros_like(X)
    for e, (W_1, W_3, W_2) in enumerate(experts):
        tokens, slot = np.nonzero(chosen == e)           # which tokens chose e, and in which of their k slots
        Y[tokens] += gates[tokens, slot, None] * swiglu(X[tokens], W_1, W_3, W_2)
    return Y


def moe_loop(X, W_r, experts, k):
    """The same, token by token: sort the logits in Python, keep k, exponentiate, add up."""
    Y = np.zeros_like(X)
    for t, x in enumerate(X):
        r = [float(x @ W_r[:, e]) for e in range(len(experts))]
        kept = sorted(range(len(r)), key=lambda e: -r[e])[:k]
        w = [math.exp(r[e] - r[kept[0]]) for e in kept]
        for e, w_e in zip(kept, w):
            Y[t] += w_e / sum(w) * swiglu(x[None], *experts[e])[0]
    return Y


# By pencil: 3 tokens, 4 experts, k = 2; with W_r = I the rows of Z are the router's logits.
Z = np.array([[2.0, 1.0, 0.0, -1.0], [0.0, 3.0, 1.0, 2.0], [2.0, -1.0, 2.0, 0.0]])
chosen, gates = route(Z, np.eye(4), 2)
print(check_close("pencil: kept logits 1 apart weigh e/(e+1) and 1/(e+1); equal ones 1/2 each", gates,
                  [[math.e / (math.e + 1), 1 / (math.e + 1)]] * 2 + [[0.5, 0.5]], atol=1e-15, eq="router"))
p_kept = np.take_along_axis(softmax(Z, axis=1), chosen, 1)              # the full softmax's kept probabilities
print(check_close("the softmax over the k kept logits = the full softmax's kept probabilities, renormalised", gates,
                  p_kept / p_kept.sum(1, keepdims=True), atol=1e-15, eq="router"))
print(glue("ex_hi", float(gates[0, 0]), ".3f"), glue("ex_lo", float(gates[0, 1]), ".3f"),
      glue("ex_mass", float(p_kept[0].sum()), ".3f"), glue("ex_t1", chosen[1].tolist()), glue("ex_t2", chosen[2].tolist()),
      glue("ex_load", np.bincount(chosen.ravel(), minlength=4).tolist()))

# At scale: T tokens of width d, E experts of width d_ff, k per token.
rng = np.random.default_rng(15)
T, d, E, k, d_ff = 64, 16, 8, 2, 32
X = rng.normal(size=(T, d))
W_r = rng.normal(size=(d, E)) / math.sqrt(d)
experts = [tuple(rng.normal(size=s) / math.sqrt(s[0]) for s in ((d, d_ff), (d, d_ff), (d_ff, d))) for _ in range(E)]
Y = moe(X, W_r, experts, k)
print(check_close(f"the layer, tokens gathered per expert = a loop over the {T} tokens", Y, moe_loop(X, W_r, experts, k),
                  atol=1e-12, eq="moe"))
