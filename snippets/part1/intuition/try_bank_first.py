"""Try this: let the word that tells the two banks apart come after "bank": "the bank flooded" and "the bank
closed" instead of "the river bank flooded" and "the money bank closed". A causal layer lets "bank" read only the
tokens up to it, so its two states stay equal at every layer."""
import math

import numpy as np

from esm import attention, causal_mask, check_close, check_less, cosine

vocab = {"the": 0, "river": 1, "bank": 2, "money": 3, "flooded": 4, "closed": 5}
V, d, L = len(vocab), 16, 3
SEED = 4


def draw(seed):
    """The table E and the L layers' (W_Q, W_K, W_V), as in the demo of 1.4."""
    rng = np.random.default_rng(seed)
    E = rng.normal(0.0, 1.0, (V, d))
    return E, [tuple(rng.normal(0.0, 0.5 / math.sqrt(d), (d, d)) for _ in range(3)) for _ in range(L)]


def states(words, E, layers):
    """h^(0), ..., h^(L) for one text: each layer adds one causal attention head to the states."""
    H = [E[[vocab[w] for w in words]]]
    for WQ, WK, WV in layers:
        out, _ = attention(H[-1] @ WQ, H[-1] @ WK, H[-1] @ WV, mask=causal_mask(len(words)))
        H.append(H[-1] + out)
    return np.stack(H)


def bank_cosines(a, b, seed=SEED):
    """Cosine of the two 'bank' states at layers 0..L."""
    E, layers = draw(seed)
    Ha, Hb = states(a.split(), E, layers), states(b.split(), E, layers)
    t = a.split().index("bank")
    return [cosine(Ha[l, t], Hb[l, t]) for l in range(L + 1)], Ha[:, t], Hb[:, t]


texts = ("the bank flooded", "the bank closed")     # changed: was "the river bank flooded", "the money bank closed"
cos_new, bank_a, bank_b = bank_cosines(*texts)
cos_old, _, _ = bank_cosines("the river bank flooded", "the money bank closed")
print("cosine of the two 'bank' states, layers 0 to 3: " + ", ".join(f"{c:.4f}" for c in cos_new)
      + "  (the page's texts: " + ", ".join(f"{c:.4f}" for c in cos_old) + ")")
print(check_close("'bank' before the telling word: its two states are equal at every layer 0 to 3",
                  bank_a, bank_b, atol=1e-12))
print(check_less("while with the telling word before it (the page's texts) they part after the first layer",
                 max(cos_old[1:]), 0.999, names=("max cos, layers 1..3", "0.999")))
