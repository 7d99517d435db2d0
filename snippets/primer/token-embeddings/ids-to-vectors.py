"""P1 The problem: an id is an address, a one-hot vector is equidistant from all others,
a row of E can put related tokens close together."""
import itertools

import numpy as np

from esm import check_close, check_equal, check_less, check_true, cosine, glue, one_hot, shape_table, share_of_seeds, table

vocab = ["cat", "dog", "quantum", "physics", "the"]
V, d = len(vocab), 8
ids = np.array([vocab.index(w) for w in ["the", "cat", "the", "dog"]])

# A table we construct: rows of "cat" and "dog" share an animal direction, "quantum" and
# "physics" a science direction; every row also gets its own random part, drawn with `seed`.
animal, science = np.zeros(d), np.zeros(d)
animal[0], science[1] = 1.0, 1.0


def table_of(seed):
    own = 0.3 * np.random.default_rng(seed).normal(size=(V, d))
    return own + np.array([animal, animal, science, science, np.zeros(d)])


E = table_of(1)                          # the draw shown

X_onehot = one_hot(ids, V) @ E           # e_i^T E for each position
X = E[ids]                               # row indexing
print(shape_table({"V": V, "d": d, "T": len(ids)}, [
    ("embedding table", "E", E, "V d", "one row per token id (constructed here)"),
    ("one-hot ids", r"[\mathbf e_{i_t}^\top]_t", one_hot(ids, V), "T V", "row $t$ is the one-hot vector of id $i_t$"),
    ("looked-up vectors", "X", X, "T d", r"row $t$ is $\mathbf x_t=E_{i_t,:}$"),
]))
loop = np.array([[sum(float(one_hot(i, V)[r]) * E[r, c] for r in range(V)) for c in range(d)] for i in ids])
print(check_close("one-hot times E equals row lookup (vs an explicit sum over rows)", X_onehot, loop, eq="lookup-onehot"))
print(check_equal("row indexing gives the same array as the one-hot product", X, X_onehot))

dists = [np.linalg.norm(one_hot(i, V) - one_hot(j, V)) for i, j in itertools.combinations(range(V), 2)]
print(check_close(f"all {len(dists)} pairs of distinct one-hot vectors are sqrt(2) apart",
                  np.array(dists), np.full(len(dists), np.sqrt(2.0))))

rows = []
for a, b in [("cat", "dog"), ("cat", "quantum"), ("quantum", "physics")]:
    i, j = vocab.index(a), vocab.index(b)
    rows.append((f"{a}, {b}", abs(i - j), f"{np.linalg.norm(one_hot(i, V) - one_hot(j, V)):.3f}",
                 f"{cosine(E[i], E[j]):.3f}"))
print(table(("pair", r"$\lvert i-j\rvert$ (ids)", "one-hot distance", "cosine of rows of $E$"), rows))
c = {r[0]: float(r[3]) for r in rows}
print(glue("d", d), glue("ids", ids),
      glue("cos_cat_dog", cosine(E[0], E[1]), ".2f"), glue("cos_cat_quantum", cosine(E[0], E[2]), ".2f"))
print(check_less("in this draw of E, cat is closer to dog than to quantum (cosine)", c["cat, quantum"], c["cat, dog"],
                 names=("cos(cat, quantum)", "cos(cat, dog)")))

# The shared direction makes that likely, not certain: the random parts can outweigh it.
draws = range(1000)
closer = share_of_seeds(lambda s: (lambda T: cosine(T[0], T[1]) > cosine(T[0], T[2]))(table_of(s)), draws)
print(glue("n_draws", len(draws)), glue("closer_share", closer, ".0%"))
print(check_true("over the draws, cat is closer to dog than to quantum in most but not all of them",
                 0.5 < closer < 1, f"share {closer:.3f} of {len(draws)} draws"))
