"""P3 Coreference with HAND-SET weights: 'it' attends to 'cat' because its query asks for an
animate noun. Nothing here is learned; the numbers are chosen to show the mechanism."""
import math

import numpy as np

from esm import PALETTE, attention, causal_mask, check_close, check_equal, check_less, cosine, figure, glue, svg, table

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
O, A = attention(X @ query_weights(3.0, 3.0), X @ W_K, X @ W_V, causal_mask(T))
_, A_noun = attention(X @ query_weights(3.0, 0.0), X @ W_K, X @ W_V, causal_mask(T))

# Independent: the weight on 'cat' from the scores written out by hand.
s = {"cat": (3 * 1 + 3 * 1) / math.sqrt(2), "mat": 3 / math.sqrt(2), "other": 0.0}
n_other = i_it + 1 - 2                               # keys 0..7 except cat and mat
w_cat = math.exp(s["cat"]) / (math.exp(s["cat"]) + math.exp(s["mat"]) + n_other * math.exp(0))
print(check_close("weight of 'it' on 'cat' = e^(6/sqrt 2) / (e^(6/sqrt 2) + e^(3/sqrt 2) + 6)", A[i_it, i_cat], w_cat, atol=1e-12))
print(check_equal("the token 'it' attends to most", tokens[int(np.argmax(A[i_it]))], "cat"))
print(glue("s_cat", s["cat"], ".2f"), glue("s_mat", s["mat"], ".2f"), glue("n_other", n_other),
      glue("w_cat", float(A[i_it, i_cat]), ".3f"), glue("w_mat", float(A[i_it, i_mat]), ".3f"),
      glue("w_tie", float(A_noun[i_it, i_cat]), ".3f"))
print(check_close("with the animacy part of the query removed, cat and mat tie",
                  A_noun[i_it, i_cat], A_noun[i_it, i_mat], atol=1e-12))
print(check_less("with the animate-noun query, the output of 'it' resembles the value of 'mat' less than that of 'cat'",
                 cosine(O[i_it], X[i_mat]), cosine(O[i_it], X[i_cat]), names=("cos(o_it, v_mat)", "cos(o_it, v_cat)")))
print(table(("key", "weight from 'it': query asks for an animate noun", "... for a noun only"),
            [(f"{j} {tokens[j]}", f"{A[i_it, j]:.3f}", f"{A_noun[i_it, j]:.3f}") for j in range(i_it + 1)]))

fig, ax = figure(size=(6.0, 2.6))
x = np.arange(i_it + 1)
ax.bar(x - 0.2, A[i_it, :i_it + 1], 0.4, color=PALETTE[0], label="asks for animate noun")
ax.bar(x + 0.2, A_noun[i_it, :i_it + 1], 0.4, color=PALETTE[1], label="asks for noun only")
ax.set_xticks(x, tokens[:i_it + 1])
ax.set_ylabel("weight from 'it'")
ax.legend(frameon=False)
print(svg(fig, alt="Bar chart of the attention weights of the token it over the tokens before it: with the "
          "animacy query, cat gets most of the weight; with the noun-only query, cat and mat tie",
          caption="Hand-set weights, not learned ones: the query of 'it' decides which earlier token it reads from."))
