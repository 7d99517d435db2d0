"""P1 Analogies by offset, on vectors we construct from named directions (not trained ones)."""
import numpy as np

from esm import PALETTE, check_close, check_equal, check_less, cosine, figure, glue, shape_table, svg, table, top_k

rng = np.random.default_rng(7)
d = 32
concepts = ["person", "male", "female", "royal", "country", "city", "capital", "france",
            "germany", "verb", "walk", "swim", "past", "adjective", "positive", "negative", "strong"]
# One random unit direction per concept (nearly orthogonal in 32 dimensions).
C = rng.normal(size=(len(concepts), d))
C /= np.linalg.norm(C, axis=1, keepdims=True)
D = dict(zip(concepts, C))

recipe = {
    "man": "person male", "woman": "person female", "king": "person male royal",
    "queen": "person female royal", "boy": "person male", "girl": "person female",
    "France": "country france", "Germany": "country germany", "Paris": "city capital france",
    "Berlin": "city capital germany", "Lyon": "city france", "Munich": "city germany",
    "walk": "verb walk", "walked": "verb walk past", "swim": "verb swim", "swam": "verb swim past",
    "good": "adjective positive", "bad": "adjective negative",
    "terrible": "adjective negative strong", "wonderful": "adjective positive strong",
}
words = list(recipe)
# Each word: the sum of its concept directions plus a small word-specific random part.
E = np.array([sum(D[c] for c in recipe[w].split()) for w in words]) + 0.15 * rng.normal(size=(len(words), d))
row = {w: E[i] for i, w in enumerate(words)}

print(shape_table({"V": len(words), "d": d, "n_c": len(concepts)}, [
    ("concept directions", "C", C, "n_c d", "one random unit vector per named concept"),
    ("constructed table", "E", E, "V d", "row = sum of its concepts + noise of std 0.15"),
]))

u, v = row["king"], row["queen"]
loop = sum(a * b for a, b in zip(u, v)) / (sum(a * a for a in u) ** 0.5 * sum(b * b for b in v) ** 0.5)
print(check_close("cos(king, queen) from numpy equals the sums written out", cosine(u, v), loop, eq="cosine"))

def analogy(a, a_star, b, exclude=True):
    """b - a + a_star, then the word whose row has the largest cosine with it."""
    target = row[b] - row[a] + row[a_star]
    scores = np.array([cosine(target, E[i]) for i in range(len(words))])
    skip = [words.index(w) for w in (a, a_star, b)] if exclude else []
    best = int(top_k(scores, 1, exclude=skip)[0])
    return words[best], scores[best], scores

rows, found, raw_found, cos_found = [], {}, [], {}
for a, a_star, b, want in [("man", "woman", "king", "queen"), ("France", "Germany", "Paris", "Berlin"),
                           ("walk", "swim", "walked", "swam"), ("bad", "terrible", "good", "wonderful")]:
    got, score, scores = analogy(a, a_star, b)
    raw, raw_score, _ = analogy(a, a_star, b, exclude=False)
    found[want] = got
    raw_found.append(raw in (a, a_star, b))
    order = np.argsort(-scores)
    runner = next(words[i] for i in order if words[i] not in (a, a_star, b, got))
    cos_found[want] = (float(score), runner, float(scores[words.index(runner)]), raw, float(raw_score))
    rows.append((f"{b} - {a} + {a_star}", f"**{got}**", f"{score:.3f}", f"{runner} ({scores[words.index(runner)]:.3f})",
                 f"{raw} ({raw_score:.3f})"))
print(table(("offset vector", "nearest word, inputs excluded", "cosine", "runner-up",
             "nearest word, inputs allowed"), rows))

# Independent check of the arg max: a plain loop over the vocabulary, written out.
target = row["king"] - row["man"] + row["woman"]
best, best_cos = None, -2.0
for w in words:
    if w in ("king", "man", "woman"):
        continue
    c = float(np.dot(target, row[w]) / np.linalg.norm(target) / np.linalg.norm(row[w]))
    if c > best_cos:
        best, best_cos = w, c
print(check_equal("king - man + woman: the loop over the vocabulary also picks", best, found["queen"], eq="analogy"))
print(check_equal("all four analogies land on the intended word",
                  [found[w] for w in ("queen", "Berlin", "swam", "wonderful")], ["queen", "Berlin", "swam", "wonderful"]))
print(check_equal("with the inputs allowed, the nearest word is one of the three inputs, in all four",
                  raw_found, [True] * 4))
g1, g2 = row["woman"] - row["man"], row["queen"] - row["king"]
q = cos_found["queen"]
print(check_equal("king - man + woman: runner-up, and nearest word with the inputs allowed", (q[1], q[3]), ("girl", "woman")))
print(glue("n_words", len(words)), glue("d_an", d), glue("cos_queen", q[0], ".3f"), glue("cos_runner", q[2], ".3f"),
      glue("cos_raw", q[4], ".3f"), glue("cos_gender", cosine(g1, g2), ".2f"),
      glue("cos_gender_capital", cosine(g1, row["Paris"] - row["France"]), ".2f"))
print(check_less("the two gender offsets are closer to parallel than a gender and a capital offset",
                 cosine(g1, row["Paris"] - row["France"]), cosine(g1, g2),
                 names=("cos(woman - man, Paris - France)", "cos(woman - man, queen - king)")))

# Figure: the four person words projected on the plane of the 'female - male' and 'royal' directions.
axes2 = np.stack([D["female"] - D["male"], D["royal"]])
axes2 /= np.linalg.norm(axes2, axis=1, keepdims=True)
fig, ax = figure(size=(4.8, 3.4))
pts = {w: axes2 @ row[w] for w in ("man", "woman", "king", "queen")}
for (a, b), col in [(("man", "woman"), PALETTE[0]), (("king", "queen"), PALETTE[0]),
                    (("man", "king"), PALETTE[1]), (("woman", "queen"), PALETTE[1])]:
    ax.annotate("", xy=pts[b], xytext=pts[a], arrowprops=dict(arrowstyle="->", color=col, lw=1.8))
for w, p in pts.items():
    ax.plot(*p, "o", color=PALETTE[2])
    ax.annotate(w, p, textcoords="offset points", xytext=(6, 4))
ax.set_xlabel("coordinate along female - male")
ax.set_ylabel("coordinate along royal")
ax.set_xlim(-1.7, 1.7)
ax.set_ylim(-0.6, 1.6)
print(svg(fig, alt="Constructed vectors of man, woman, king and queen: the two gender arrows are parallel, "
          "and so are the two royalty arrows",
          caption="Projection of four constructed rows on two of the directions they were built from: "
                  "blue arrows are the gender offset, orange arrows the royalty offset."))
