"""3.5 Nearest neighbours: the k rows with the largest cosine to a query, on a small 2-D table."""
import numpy as np

from esm import PALETTE, check_close, check_equal, check_true, cosine_matrix, figure, glue, shape_table, svg, table, top_k

groups = {"animals": (["cat", "dog", "horse"], 20),      # name: (tokens, direction in degrees)
          "vehicles": (["car", "bus", "truck"], 110),
          "colours": (["red", "blue", "green"], 200),
          "numbers": (["one", "two", "three"], 290)}
offsets = (0, 25, -12)                                  # degrees, within a group
lengths = (1.0, 1.7, 0.6)
words, rows, colour = [], [], []
for g, (names, deg) in enumerate(groups.values()):
    for w, off, length in zip(names, offsets, lengths):
        a = np.radians(deg + off)
        words.append(w)
        rows.append(length * np.array([np.cos(a), np.sin(a)]))
        colour.append(PALETTE[g])
E = np.array(rows)
V, d = E.shape
k = 2

C = cosine_matrix(E)                                          # |V| x |V| cosines
nn = np.array([top_k(C[i], k, exclude=[i]) for i in range(V)])

print(shape_table({"V": V, "d": d, "k": k}, [
    ("embedding table", "E", E, "V d", "12 tokens in four groups, made for the demo"),
    ("cosine matrix", "", C, "V V", r"entry $(i,j)$ is $\cos(E_{i,:},E_{j,:})$"),
    ("neighbour ids", r"\mathrm{NN}_k", nn, "V k", "row $i$: the $k$ best $j\\ne i$, best first"),
]))


def brute_force(i):
    """Scan every other row, keep the k best cosines: no matrix products, no sorting library."""
    best = []
    for j in range(V):
        if j == i:
            continue
        c = float(E[i] @ E[j]) / (float(np.sqrt(E[i] @ E[i])) * float(np.sqrt(E[j] @ E[j])))
        best.append((-c, j))
    best.sort()
    return [j for _, j in best[:k]]


print(check_equal(f"top-k of the cosine matrix = a brute-force scan, for all {V} queries",
                  nn, np.array([brute_force(i) for i in range(V)]), eq="nearest-neighbours"))
same_group = all(i // 3 == j // 3 for i in range(V) for j in nn[i])
print(check_equal(f"every token's {k} nearest neighbours are in its own group", same_group, True))
raw_nn = [int(np.argmax(np.where(np.arange(V) == i, -np.inf, E @ E[i]))) for i in range(V)]
cat, dog, horse = (words.index(w) for w in ("cat", "dog", "horse"))
# Closed form: rows of one group differ only by their offsets, so cos = cos(offset difference).
print(check_close("cos(cat, horse) and cos(cat, dog) equal the cosines of their angle offsets",
                  [C[cat, horse], C[cat, dog]], np.cos(np.radians([offsets[0] - offsets[2], offsets[1] - offsets[0]])),
                  atol=1e-12, eq="nearest-neighbours"))
print(check_equal("'cat': nearest by cosine is 'horse', nearest by raw dot product is the longer 'dog'",
                  (words[nn[cat, 0]], words[raw_nn[cat]]), ("horse", "dog")))
print(check_true("... because dog's row is longer than horse's",
                 np.linalg.norm(E[dog]) > np.linalg.norm(E[horse]),
                 f"||dog|| = {np.linalg.norm(E[dog]):.3f} > ||horse|| = {np.linalg.norm(E[horse]):.3f}"))
print(table(("query", "1st neighbour (cos)", "2nd neighbour (cos)", "1st by raw dot product"),
            [(words[i], f"{words[nn[i, 0]]} ({C[i, nn[i, 0]]:.3f})", f"{words[nn[i, 1]]} ({C[i, nn[i, 1]]:.3f})",
              words[raw_nn[i]]) for i in range(V)]))

fig, ax = figure(size=(5.0, 5.0))
for x, y in E:                                            # faint rays: what the cosine sees
    ax.plot([0, x], [0, y], ":", lw=0.8, color=PALETTE[4], alpha=0.5)
for i in range(V):
    j = nn[i, 0]
    ax.annotate("", xy=E[j], xytext=E[i],
                arrowprops=dict(arrowstyle="->", color=colour[i], lw=1.1, alpha=0.8, shrinkA=4, shrinkB=4))
ax.scatter(E[:, 0], E[:, 1], c=colour, s=28, zorder=3)
for w, (x, y) in zip(words, E):
    ax.annotate(w, (x, y), xytext=(5, 4), textcoords="offset points", fontsize=9)
ax.scatter([0], [0], marker="+", s=60, color=PALETTE[4])
ax.set_aspect("equal")
ax.set_xlim(-2.0, 2.0)
ax.set_ylim(-2.0, 2.0)
print(svg(fig, alt=f"{V} points in {len(groups)} angular groups ("
                   + ", ".join(groups) + "), each with an arrow to its nearest neighbour by cosine; every "
                   "arrow stays within its group. " + ", ".join(f"{words[i]} to {words[nn[i, 0]]}" for i in range(V)) + ".",
          caption="Each token points to its nearest neighbour by cosine. Cosine looks only at the "
                  "direction from the origin (+), so neighbours share a direction, not a location."))

print(glue("nn_V", V))
print(glue("nn_groups", len(groups)))
print(glue("nn_k", k))
print(glue("nn_cos_cat_horse", C[cat, horse], ".3f"))
print(glue("nn_cos_cat_dog", C[cat, dog], ".3f"))
print(glue("nn_len_dog", float(np.linalg.norm(E[dog])), ".1f"))
print(glue("nn_len_horse", float(np.linalg.norm(E[horse])), ".1f"))
