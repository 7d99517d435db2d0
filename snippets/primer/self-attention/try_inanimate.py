"""Try this: let the pronoun ask for an INANIMATE noun, query weights (3, 3) changed to (3, -3): `cat` is now
penalised for being animate, its score drops to 0 like the non-nouns', and `it` attends most to `mat`."""
import math

import numpy as np

from esm import attention, causal_mask, check_close, check_equal

tokens = "the cat sat on the mat because it was tired".split()
features = ["noun", "animate", "pronoun", "verb", "function", "adjective"]
F = {f: i for i, f in enumerate(features)}
tags = {"the": "function", "cat": "noun animate", "sat": "verb", "on": "function", "mat": "noun",
        "because": "function", "it": "pronoun", "was": "verb function", "tired": "adjective"}
X = np.zeros((len(tokens), len(features)))           # hand-set rows: one feature = one coordinate
for t, w in enumerate(tokens):
    for f in tags[w].split():
        X[t, F[f]] = 1.0

d_k = 2
W_K = np.zeros((len(features), d_k))                 # hand-set: key coordinate 0 = noun, 1 = animate
W_K[F["noun"], 0] = W_K[F["animate"], 1] = 1.0
W_V = np.eye(len(features))                          # hand-set: values copy the features


def query_weights(noun, animate):
    W = np.zeros((len(features), d_k))               # hand-set: a pronoun asks for a noun (and animacy)
    W[F["pronoun"]] = [noun, animate]
    return W


T = len(tokens)
i_it, i_cat, i_mat = tokens.index("it"), tokens.index("cat"), tokens.index("mat")
_, A = attention(X @ query_weights(3.0, -3.0), X @ W_K, X @ W_V, causal_mask(T))  # changed: was (3.0, 3.0)

print("weights from 'it': " + ", ".join(f"{tokens[j]} {A[i_it, j]:.3f}" for j in range(i_it + 1)))
print(check_equal("the token 'it' attends to most", tokens[int(np.argmax(A[i_it]))], "mat"))
print(check_close("'cat' now gets the same weight as 'the' (score 3 - 3 = 0)", A[i_it, i_cat], A[i_it, 0], atol=1e-12))
others = i_it + 1 - 1                                 # keys 0..7 except mat, all at score 0
s_mat = 3 / math.sqrt(d_k)
print(check_close("weight on 'mat' = e^(3/sqrt 2) / (e^(3/sqrt 2) + 7)", A[i_it, i_mat],
                  math.exp(s_mat) / (math.exp(s_mat) + others), atol=1e-12))
