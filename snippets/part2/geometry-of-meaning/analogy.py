"""4.1 Analogy directions: c - a + a* lands near the answer only once the inputs are excluded."""
import numpy as np
from matplotlib.text import Annotation

from esm import (PALETTE, check_close, check_equal, check_less, check_true, cosine, figure, glue, shape_table,
                 share_of_seeds, svg, top_k)

# By hand first: five words in d = 2. Gender is the offset (0, 1) from man to woman; queen is
# king + gender plus an own part (1, 0) of its own, as real rows have.
hand = {"man": (3, 0), "woman": (3, 1), "king": (0, 3), "queen": (1, 4), "apple": (4, -3)}
t_h = np.array(hand["king"]) - np.array(hand["man"]) + np.array(hand["woman"])
names_h = list(hand)
E_h = np.array([hand[w] for w in names_h], dtype=float)
dot_h = {w: int(np.dot(hand[w], t_h)) for w in names_h}
sq_h = {w: int(np.dot(hand[w], hand[w])) for w in names_h}
t2 = int(t_h @ t_h)
# king points exactly along the target: dot^2 = |king|^2 |t|^2, in integers (cosine 1)
print(check_equal("by hand: cos(king, target) = 1, since dot^2 = |king|^2 |target|^2 in integers",
                  dot_h["king"] ** 2, sq_h["king"] * t2))
best_all = names_h[int(top_k(E_h @ t_h / np.linalg.norm(E_h, axis=1), 1)[0])]
best_excl = names_h[int(top_k(E_h @ t_h / np.linalg.norm(E_h, axis=1), 1,
                              exclude=[names_h.index(w) for w in ("man", "woman", "king")])[0])]
loop_all = max(names_h, key=lambda w: dot_h[w] / np.sqrt(sq_h[w] * t2))
loop_excl = max((w for w in names_h if w not in ("man", "woman", "king")), key=lambda w: dot_h[w] / np.sqrt(sq_h[w] * t2))
print(check_equal("by hand: the analogy argmax with the inputs left in, and without them (esm.top_k vs a loop)",
                  (best_all, best_excl), (loop_all, loop_excl), eq="analogy"))


def vt(v):
    return "$(" + ",".join(str(int(x)) for x in v) + ")$"


print(glue("hand_rows", ", ".join(f"{w} {vt(hand[w])}" for w in names_h[:-1]) + f" and {names_h[-1]} {vt(hand['apple'])}"),
      glue("t_h", vt(t_h)), glue("best_all_h", best_all), glue("best_excl_h", best_excl),
      glue("cos_queen_h", f"$\\tfrac{{{dot_h['queen']}}}{{{int(np.sqrt(t2))}\\sqrt{{{sq_h['queen']}}}}}"
                          f"\\approx{dot_h['queen'] / np.sqrt(t2 * sq_h['queen']):.3f}$"))

# The parallelogram: the four words as arrows from the origin, the offset woman - man drawn
# twice, at man and at king; its second copy ends at the target, on king's own line.
fig, ax = figure(size=(4.6, 2.9))
offset = np.array(hand["woman"]) - np.array(hand["man"])


def arrow(start, end, colour, width):
    ax.annotate("", xy=end, xytext=start, arrowprops=dict(arrowstyle="-|>", color=colour, lw=width,
                                                          shrinkA=0, shrinkB=0, mutation_scale=10))


for w, colour in (("man", "#010101"), ("woman", "#010101"), ("king", "#010101"), ("queen", PALETTE[1])):
    arrow((0, 0), hand[w], colour, 1.2)
for start in (hand["man"], hand["king"]):                        # the offset, at man and at king
    arrow(start, np.array(start) + offset, PALETTE[0], 2.4)
ax.plot(*zip(hand["man"], hand["king"]), ":", *zip(hand["woman"], t_h), ":", color="#010101", lw=1)
ax.plot(*zip(t_h, hand["queen"]), "--", color=PALETTE[1], lw=1.2)
ax.plot(*t_h, "o", ms=6, mfc="none", mec=PALETTE[0], mew=1.5)
for w, (dx, ha) in {"man": (0.15, "left"), "woman": (0.15, "left"), "king": (-0.15, "right"),
                    "queen": (0.15, "left")}.items():
    ax.text(hand[w][0] + dx, hand[w][1], f"{w} {vt(hand[w]).strip('$')}", ha=ha, va="center", fontsize=9)
ax.text(t_h[0] - 0.15, t_h[1], f"king − man + woman {vt(t_h).strip('$')}", ha="right", va="center", fontsize=9,
        color=PALETTE[0])
ax.text(hand["man"][0] + 0.15, 0.5, "woman − man", va="center", fontsize=8, color=PALETTE[0])
ax.text(0.5, t_h[1] + 0.12, "own part", ha="center", va="bottom", fontsize=8, color=PALETTE[1])
ax.text(0, -0.12, "0", ha="center", va="top", fontsize=8)
ax.set_xlim(-3.2, 4.6)
ax.set_ylim(-0.4, 4.4)
ax.set_aspect("equal")
ax.axis("off")
drawn = [(tuple(float(x) for x in a.xyann), tuple(float(x) for x in a.xy)) for a in ax.findobj(Annotation)]
offset_hand = tuple(w - m for w, m in zip(hand["woman"], hand["man"]))     # by hand, in integers
print(check_equal("the figure's arrows, read back: the four words from the origin, then the offset woman - man "
                  "at man and at king, the second ending at king - man + woman",
                  [(start, end) for start, end in drawn],
                  [((0, 0), hand[w]) for w in ("man", "woman", "king", "queen")]
                  + [(hand["man"], tuple(m + o for m, o in zip(hand["man"], offset_hand))),
                     (hand["king"], tuple(k - m + w for k, m, w in zip(hand["king"], hand["man"], hand["woman"])))]))
print(svg(fig, alt=f"Arrows from the origin to man {vt(hand['man'])}, woman {vt(hand['woman'])}, king {vt(hand['king'])} "
          f"and queen {vt(hand['queen'])}. The offset woman minus man is drawn at man and again at king, two parallel "
          f"sides of a parallelogram whose fourth corner is the target {vt(t_h)}, on the line of king; queen lies "
          f"{vt(np.array(hand['queen']) - t_h)} away from the target.".replace("$", ""),
          caption="The worked example drawn: the offset $\\mathbf{woman}-\\mathbf{man}$ added at man and at king "
                  "gives two parallel sides; the target lands on king's own line, and queen sits its own part away."))

SEED = 40
d, sd_own = 128, 0.125
# A toy vocabulary built from three latent directions (royal, gender, young) plus a
# word-specific part, the "own" part of each row (squared length about d sd_own^2 = 2). The
# lengths make the claims below hold in most draws, not all: gender is short, so the planted
# relation is shorter than the own parts; young is long, so princess, which is queen plus young,
# rarely crowds queen out. Over seeds 0-2999 the two claims (queen found with the inputs excluded,
# an input on top with them left in) fail in 6: seeds 286 (prince), 430 (queen on top, just above
# king), 597 (princess), 1520, 2896 and 2943. The demo counts them over its own 500 draws below.
lengths = {"royal": 2.0, "gender": 0.5, "young": 4.0}
words = ["man", "woman", "king", "queen", "boy", "girl", "prince", "princess",
         "uncle", "aunt", "apple", "river", "stone", "music"]
traits = {"man": (0, 1, 0), "woman": (0, -1, 0), "king": (1, 1, 0), "queen": (1, -1, 0),
          "boy": (0, 1, 1), "girl": (0, -1, 1), "prince": (1, 1, 1), "princess": (1, -1, 1),
          "uncle": (0, 1, 0), "aunt": (0, -1, 0)}
V = len(words)
idx = {w: i for i, w in enumerate(words)}


def table_of(seed):
    """The table E and its own parts for one draw: three orthogonal latent directions of the
    lengths above, and a random own part for every word."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.normal(0, 1, (d, 3)))
    royal, gender, young = np.array(list(lengths.values()))[:, None] * Q.T
    own = rng.normal(0, sd_own, (V, d))                   # the word-specific part of every row
    E = own.copy()
    for i, w in enumerate(words):
        r, g, y = traits.get(w, (0, 0, 0))
        E[i] += r * royal + g * gender + y * young
    return E, own


def solve(a_w, a_star_w, c_w, E):
    """(analogy) for words: the best x outside the inputs, and the cosines of all words."""
    t = E[idx[c_w]] - E[idx[a_w]] + E[idx[a_star_w]]
    sc = E @ t / (np.linalg.norm(E, axis=1) * np.linalg.norm(t))
    return words[int(top_k(sc, 1, exclude=[idx[a_w], idx[a_star_w], idx[c_w]])[0])], sc


E, own = table_of(SEED)
a, a_star, c = idx["man"], idx["woman"], idx["king"]   # man : woman :: king : ?
inputs = ("man", "woman", "king")
target = E[c] - E[a] + E[a_star]
scores = E @ target / (np.linalg.norm(E, axis=1) * np.linalg.norm(target))

print(shape_table({"V": V, "d": d}, [
    ("embedding table", "E", E, "V d", "one row per word of the toy vocabulary"),
    ("offset target", r"\mathbf c-\mathbf a+\mathbf a^*", target, "d", "king - man + woman"),
    ("cosine scores", r"\cos(E_{x,:},\cdot)", scores, "V", "one score per candidate word"),
]))
print(glue("n_words", V))

answer = int(top_k(scores, 1, exclude=[a, a_star, c])[0])
best, best_x = -2.0, None                         # the same search as a plain loop
for x in range(V):
    if x in (a, a_star, c):
        continue
    cx = cosine(E[x], target)
    if cx > best:
        best, best_x = cx, x
print(check_equal("argmax over x not in {a, a*, c} (top_k vs a loop of cosines)",
                  words[answer], words[best_x], eq="analogy"))
print(check_equal("man : woman :: king : ? answers queen once the inputs are excluded",
                  words[answer], "queen"))

ranked = [words[i] for i in np.argsort(-scores, kind="stable")]
print(check_true("with the inputs left in, the top answer is an input word", ranked[0] in inputs,
                 f"top {ranked[0]}, cos = {scores[idx[ranked[0]]]:.3f}"))
queen_rank = ranked.index("queen") + 1
print(check_true("every word above queen is an input: queen loses only to the inputs",
                 queen_rank > 1 and set(ranked[:queen_rank - 1]) <= set(inputs),
                 f"ranking {ranked[:4]}; cos(target, king) = {scores[c]:.3f}, "
                 f"cos(target, woman) = {scores[a_star]:.3f}, cos(target, queen) = {scores[idx['queen']]:.3f}"))
print(glue("cos_king", scores[c], ".3f"), glue("cos_queen", scores[idx["queen"]], ".3f"),
      glue("queen_rank", queen_rank), glue("top_all", ranked[0]), glue("top_excl", words[answer]))

# The same two claims in other draws of the table (own parts, latent directions). They are not
# guaranteed by the construction: the demo counts the draws where they hold and names the others.
draws = range(SEED + 1, SEED + 501)


def claims_hold(seed):
    E_s, _ = table_of(seed)
    found, sc = solve("man", "woman", "king", E_s)
    return found == "queen" and words[int(np.argmax(sc))] in inputs


misses = [s for s in draws if not claims_hold(s)]
n_hold = len(draws) - len(misses)
# Measured on these 500 draws: 498 hold (misses 286, 430); the bound, 1% of the draws, sits above the
# measured 0.4% and the 0.2% of seeds 0-2999.
print(check_less(f"queen found, and an input on top with the inputs left in: the draws among {len(draws)} "
                 "where this fails, fewer than 1%", len(misses), 0.01 * len(draws),
                 names=(f"misses (seeds {', '.join(map(str, misses))})", "1% of the draws")))
# Independent of the count: one draw the construction does not save, seed 286, answers prince.
print(check_equal("not every draw: in seed 286's table man : woman :: king : ? answers prince",
                  solve("man", "woman", "king", table_of(286)[0])[0], "prince"))
print(glue("an_draws", len(draws)), glue("an_hold", n_hold))

# Why the input wins: the planted relation is shorter than what king and queen do not share.
planted = E - own                                     # the latent part of every row
relation_len = np.linalg.norm(planted[idx["queen"]] - planted[c])   # queen - king without own parts
own_gap = np.linalg.norm(own[idx["queen"]] - own[c])  # king's and queen's own parts differ by this
dist_king, dist_queen = np.linalg.norm(target - E[c]), np.linalg.norm(target - E[idx["queen"]])
print(check_close("the planted parts cancel: target - queen = (own(a*) - own(a)) + (own(c) - own(queen))",
                  target - E[idx["queen"]], own[a_star] - own[a] + own[c] - own[idx["queen"]], atol=1e-12))
print(check_less("the planted relation queen - king is shorter than the gap between their own parts",
                 relation_len, own_gap, names=("|relation|", "|own(queen) - own(king)|")))
print(check_less("so the target c - a + a* is nearer to king's row than to queen's (Euclidean, as a loop)",
                 float(np.sqrt(sum((t - e) ** 2 for t, e in zip(target, E[c])))),
                 float(np.sqrt(sum((t - e) ** 2 for t, e in zip(target, E[idx["queen"]])))),
                 names=("|target - king|", "|target - queen|")))
print(glue("relation_len", relation_len, ".2f"), glue("own_gap", own_gap, ".2f"))

# The same relation applied to other pairs of the table.
ans_prince, ans_uncle = solve("boy", "girl", "prince", E)[0], solve("man", "woman", "uncle", E)[0]
print(check_equal("boy : girl :: prince : ? (inputs excluded) answers princess", ans_prince, "princess"))
uncle_scores = {w: cosine(E[idx[w]], E[idx["uncle"]] - E[idx["man"]] + E[idx["woman"]]) for w in words}
print(check_equal("man : woman :: uncle : ? by a loop of cosines agrees with top_k",
                  max((w for w in words if w not in ("man", "woman", "uncle")), key=uncle_scores.get), ans_uncle))
# uncle and aunt differ by the short gender offset alone: whether it wins depends on the own parts.
print(check_true("in this draw man : woman :: uncle : ? misses aunt", ans_uncle != "aunt", f"answer {ans_uncle}"))
aunt_share = share_of_seeds(lambda s: solve("man", "woman", "uncle", table_of(s)[0])[0] == "aunt", draws)
print(glue("ans_uncle", ans_uncle), glue("ans_prince", ans_prince), glue("aunt_share", aunt_share, ".0%"))

order = np.argsort(-scores, kind="stable")
fig, ax = figure(size=(6.4, 2.9))
colours = [PALETTE[1] if i in (a, a_star, c) else PALETTE[0] for i in order]
ax.bar(range(V), scores[order], color=colours)
ax.set_xticks(range(V), [words[i] for i in order], rotation=50, ha="right")
ax.set_ylabel("cos(word, king - man + woman)")
ax.bar([0], [0], color=PALETTE[1], label="inputs (man, woman, king)")
ax.bar([0], [0], color=PALETTE[0], label="candidates")
ax.legend(loc="upper right", frameon=False)
above = queen_rank - 1
print(svg(fig, alt=f"Bar chart of the cosine between each of the {V} words and king minus man plus woman, highest first: "
          + ", ".join(f"{w} {scores[idx[w]]:.3f}" for w in ranked[:4]),
          caption="Every word's cosine with $\\mathbf c-\\mathbf a+\\mathbf a^*$. "
          + ("The highest bar is an input" if above == 1 else f"The {above} highest bars are inputs")
          + f"; {words[answer]} is the best of the rest."))
