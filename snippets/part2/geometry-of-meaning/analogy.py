"""4.1 Analogy directions: b - a + a* lands near the answer only once the inputs are excluded."""
import numpy as np

from esm import PALETTE, check_equal, check_true, cosine, figure, shape_table, svg, top_k

rng = np.random.default_rng(40)
d = 16
# A toy vocabulary built from three latent directions (royalty, gender, youth) plus a large
# word-specific part, as in trained tables where every word is mostly "itself".
words = ["man", "woman", "king", "queen", "boy", "girl", "prince", "princess",
         "uncle", "aunt", "apple", "river", "stone", "music"]
Q, _ = np.linalg.qr(rng.normal(0, 1, (d, 3)))
royal, gender, young = 2.0 * Q.T                     # three orthogonal latent directions, norm 2
traits = {"man": (0, 1, 0), "woman": (0, -1, 0), "king": (1, 1, 0), "queen": (1, -1, 0),
          "boy": (0, 1, 1), "girl": (0, -1, 1), "prince": (1, 1, 1), "princess": (1, -1, 1),
          "uncle": (0, 1, 0), "aunt": (0, -1, 0)}
E = rng.normal(0, 0.6, (len(words), d))              # the word-specific part of every row
for i, w in enumerate(words):
    r, g, y = traits.get(w, (0, 0, 0))
    E[i] += r * royal + 0.5 * g * gender + y * young
V = len(words)
idx = {w: i for i, w in enumerate(words)}

a, a_star, b = idx["man"], idx["woman"], idx["king"]   # man : woman :: king : ?
target = E[b] - E[a] + E[a_star]
scores = E @ target / (np.linalg.norm(E, axis=1) * np.linalg.norm(target))

print(shape_table({"V": V, "d": d}, [
    ("embedding table", "E", E, "V d", "one row per word of the toy vocabulary"),
    ("offset target", r"\mathbf b-\mathbf a+\mathbf a^*", target, "d", "king - man + woman"),
    ("cosine scores", r"\cos(E_{x,:},\cdot)", scores, "V", "one score per candidate word"),
]))

answer = int(top_k(scores, 1, exclude=[a, a_star, b])[0])
best, best_x = -2.0, None                         # the same search as a plain loop
for x in range(V):
    if x in (a, a_star, b):
        continue
    c = cosine(E[x], target)
    if c > best:
        best, best_x = c, x
print(check_equal("argmax over x not in {a, a*, b} (top_k vs a loop of cosines)",
                  words[answer], words[best_x], eq="analogy"))
print(check_equal("man : woman :: king : ? answers queen once the inputs are excluded",
                  words[answer], "queen"))

ranked = [words[i] for i in top_k(scores, 4)]
print(check_equal("with the inputs left in, the top answer is an input word", ranked[0], "king"))
print(check_true("queen only comes third when the inputs compete",
                 ranked.index("queen") == 2,
                 f"ranking {ranked}; cos(target, king) = {scores[b]:.3f}, "
                 f"cos(target, woman) = {scores[a_star]:.3f}, cos(target, queen) = {scores[idx['queen']]:.3f}"))

order = np.argsort(-scores, kind="stable")
fig, ax = figure(size=(6.4, 2.9))
colours = [PALETTE[1] if i in (a, a_star, b) else PALETTE[0] for i in order]
ax.bar(range(V), scores[order], color=colours)
ax.set_xticks(range(V), [words[i] for i in order], rotation=50, ha="right")
ax.set_ylabel("cos(word, king - man + woman)")
ax.bar([0], [0], color=PALETTE[1], label="inputs (man, woman, king)")
ax.bar([0], [0], color=PALETTE[0], label="candidates")
ax.legend(loc="upper right", frameon=False)
print(svg(fig, alt="Bar chart of the cosine between every word and king minus man plus woman; king and woman "
          "score above queen", caption="Every word's cosine with $\\mathbf b-\\mathbf a+\\mathbf a^*$. "
          "The two highest bars are inputs; queen is the best of the rest."))
