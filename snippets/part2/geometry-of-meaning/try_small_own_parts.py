"""Try this: shrink the own parts of 4.1's toy table (sd_own = 0.125 to 0.03), and man : woman ::
king : ? answers queen even with the inputs left in the search: the planted relation is now longer
than what king and queen do not share."""
import numpy as np

from esm import check_equal, check_less, table, top_k

SEED = 40
d, sd_own = 128, 0.03                             # changed: was sd_own = 0.125
lengths = {"royal": 2.0, "gender": 0.5, "young": 4.0}
words = ["man", "woman", "king", "queen", "boy", "girl", "prince", "princess",
         "uncle", "aunt", "apple", "river", "stone", "music"]
traits = {"man": (0, 1, 0), "woman": (0, -1, 0), "king": (1, 1, 0), "queen": (1, -1, 0),
          "boy": (0, 1, 1), "girl": (0, -1, 1), "prince": (1, 1, 1), "princess": (1, -1, 1),
          "uncle": (0, 1, 0), "aunt": (0, -1, 0)}
idx = {w: i for i, w in enumerate(words)}

rng = np.random.default_rng(SEED)                 # the demo's table_of(SEED), with the smaller own parts
Q, _ = np.linalg.qr(rng.normal(0, 1, (d, 3)))
royal, gender, young = np.array(list(lengths.values()))[:, None] * Q.T
own = rng.normal(0, sd_own, (len(words), d))
E = own.copy()
for i, w in enumerate(words):
    r, g, y = traits.get(w, (0, 0, 0))
    E[i] += r * royal + g * gender + y * young

target = E[idx["king"]] - E[idx["man"]] + E[idx["woman"]]
scores = E @ target / (np.linalg.norm(E, axis=1) * np.linalg.norm(target))
ranked = [words[i] for i in np.argsort(-scores, kind="stable")]
planted = E - own
relation_len = np.linalg.norm(planted[idx["queen"]] - planted[idx["king"]])
own_gap = np.linalg.norm(own[idx["queen"]] - own[idx["king"]])

print(table(("rank", "word", "cos(word, king - man + woman)"),
            [(k + 1, w, f"{scores[idx[w]]:.3f}") for k, w in enumerate(ranked[:3])]))
print(check_less("with small own parts the gap between king's and queen's own parts is shorter than the planted "
                 "relation queen - king", own_gap, relation_len, names=("|own(queen) - own(king)|", "|relation|")))
print(check_equal("so man : woman :: king : ? answers queen with the inputs left in the search (no exclusion)",
                  words[int(top_k(scores, 1)[0])], "queen"))
