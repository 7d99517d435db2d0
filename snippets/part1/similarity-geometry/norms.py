"""3.4 Norms and frequency effects: a logit is ||h|| ||w_j|| cos(theta_j), so long rows win.

The vocabulary, its counts and the rows are made up for the demo, with integer coordinates so
that every logit can be checked by hand; frequent tokens get long rows. The point is what a
length difference does to scores, whatever its cause.
"""
import math

import numpy as np

from esm import PALETTE, check_close, check_equal, check_less, check_true, figure, glue, shape_table, softmax, svg, table

words = ["the", "of", "and", "river", "creek", "delta"]
counts = np.array([5000, 3000, 2500, 40, 5, 3])              # a Zipf-like frequency profile
W = np.array([[2, 9], [-1, 8], [0, 7],
              [3, 4], [1, 0], [0, 1]], dtype=float)           # output rows w_j (|V| x 2), integers
norm = np.linalg.norm(W, axis=1)
h = np.array([2.0, 0.0])                                      # a state pointing at "water" words
r = float(np.linalg.norm(h))
z = W @ h
cos_j = (W @ h) / (norm * r)
degrees = np.degrees(np.arctan2(W[:, 1], W[:, 0]))            # direction of each row; h is at 0 degrees
print(check_true("row lengths never decrease as the counts grow (frequent tokens have long rows)",
                 bool(np.all(np.diff(norm[np.argsort(counts)]) >= 0)),
                 "lengths by increasing count: " + ", ".join(f"{x:.2f}" for x in norm[np.argsort(counts)])))

V, d = W.shape
print(shape_table({"V": V, "d": d}, [
    ("output rows", "W", W, "V d", r"$\lVert\mathbf w_j\rVert$ grows with the token's count"),
    ("hidden state", r"\mathbf h", h, "d", rf"$\lVert\mathbf h\rVert={r:g}$, direction $0^\circ$"),
    ("logits", r"\mathbf z", z, "V", r"$z_j=\mathbf w_j^\top\mathbf h$"),
]))
# Independent route: the polar form, with the angle of each row measured by atan2 (not from the dot product).
print(check_close("z_j = ||h|| ||w_j|| cos(theta_j) for all 6 tokens, theta_j from atan2 of the row",
                  z, r * norm * np.cos(np.radians(degrees)), atol=1e-12, eq="norm-logit"))
print(check_equal("by hand with h = (2, 0): z_j = 2 x (first coordinate of w_j)", z.tolist(),
                  [4.0, -2.0, 0.0, 6.0, 2.0, 0.0], eq="norm-logit"))
print(check_equal("the largest cosine belongs to the row with the smallest angle to h ('creek')",
                  words[int(np.argmax(cos_j))], words[int(np.argmin(np.abs(degrees)))]))
print(check_equal("'creek' is the row with the smallest angle", words[int(np.argmin(np.abs(degrees)))], "creek"))
print(check_equal("the largest logit belongs to 'river', whose row is longer", words[int(np.argmax(z))], "river"))
print(check_less(f"'the' points {degrees[0]:.0f} degrees away, yet outscores 'creek' by length alone",
                 z[words.index("creek")], z[words.index("the")], names=("z_creek", "z_the")))
p1, p3 = softmax(z), softmax(3 * z)


def entropy(p):
    """H(p) = -sum_j p_j log p_j, in nats."""
    return float(-(p * np.log(p)).sum())


print(check_less("tripling ||h|| sharpens the distribution (entropy in nats)", entropy(p3), entropy(p1),
                 names=("entropy at 3||h||", "entropy at ||h||")))
# Independent route for the entropy: H = log sum_j e^{z_j} - sum_j p_j z_j, in scalar arithmetic.
print(check_close("entropy at ||h||, against log(sum e^z) - sum p z in scalar arithmetic",
                  entropy(p1), math.log(sum(math.exp(v) for v in z)) - sum(pj * v for pj, v in zip(p1, z)),
                  atol=1e-12))
print(table(("token", "count", r"$\lVert\mathbf w_j\rVert$", r"$\cos\theta_j$", "$z_j$", r"$z_j$ with unit rows"),
            [(w, c, f"{n_:.3f}", f"{cj:.3f}", f"{zj:.3f}", f"{r * cj:.3f}")
             for w, c, n_, cj, zj in zip(words, counts, norm, cos_j, z)]))

fig, ax = figure(size=(5.4, 3.0))
sc = ax.scatter(cos_j, z, s=30 + 40 * norm, c=[PALETTE[1] if c > 100 else PALETTE[0] for c in counts])
points = {}                                   # tokens on the same point share one label ("and, delta": cos 0, logit 0)
for w, x, y in zip(words, cos_j, z):
    points.setdefault((round(float(x), 9), round(float(y), 9)), []).append(w)
for (x, y), ws in points.items():
    ax.annotate(", ".join(ws), (x, y), xytext=(4, 3), textcoords="offset points", fontsize=8)
grid = np.linspace(0.1, 1.0, 50)
for s in (norm.min(), norm.max()):
    ax.plot(grid, r * s * grid, "--", lw=1, color=PALETTE[2], alpha=0.7)
ax.set_xlabel("cosine with h")
ax.set_ylabel("logit")
order = np.argsort(-z)
print(svg(fig, alt=f"Scatter of logit against cosine with h for {V} tokens: "
                   + ", ".join(f"{words[j]} (cos {cos_j[j]:.2f}, logit {z[j]:.2f})" for j in order)
                   + ". Long frequent rows sit above short rare ones at similar cosine.",
          caption="Each token's cosine with $\\mathbf h$ against its logit. Dashed lines: "
                  "$z=\\lVert\\mathbf h\\rVert\\,\\lVert\\mathbf w\\rVert\\cos\\theta$ with $\\lVert\\mathbf w\\rVert$ "
                  "the shortest and the longest row length. "
                  "Orange: frequent tokens."))

j_creek, j_river = (words.index(w) for w in ("creek", "river"))
for name, j in (("creek", j_creek), ("river", j_river)):   # "the" is quoted by the table above
    print(glue(f"nrm_row_{name}", W[j].astype(int)), glue(f"nrm_z_{name}", int(z[j])))
    print(glue(f"nrm_cos_{name}", cos_j[j], "g"))
    print(glue(f"nrm_len_{name}", norm[j], ".3g"))
print(glue("nrm_hvec", h.astype(int)))
print(glue("nrm_unit_creek", r * cos_j[j_creek], "g"))
print(glue("nrm_unit_river", r * cos_j[j_river], "g"))
print(glue("nrm_H1", entropy(p1), ".3f"))
print(glue("nrm_H3", entropy(p3), ".3f"))
