"""5.3 Co-occurrence ratios on a tiny corpus: P(j | ice) / P(j | steam) tells the test words apart where
P(j | ice) alone does not; under GloVe's log-bilinear model the log ratio is a difference of dot products."""
import math
from fractions import Fraction

import numpy as np

from esm import check_close, check_equal, glue, shape_table, table

corpus = """ice is a solid . solid ice is cold . ice stays solid when cold . a solid block of ice .
ice can sublimate into gas . ice melts into water . ice floats on water . water freezes into ice .
ice cools the water . ice sculptures are in fashion .
steam is a gas . steam is hot gas . steam stays gas when hot . a gas cloud of steam .
steam can freeze into solid . steam condenses into water . steam rises from water . water boils into steam .
steam heats the water . steam irons are in fashion ."""
sentences = [s.split() for s in corpus.replace("\n", " ").split(" . ")]
sentences[-1].remove(".")                        # the last sentence keeps its full stop: drop it
vocab = sorted({x for s in sentences for x in s})
idx = {x: k for k, x in enumerate(vocab)}
V = len(vocab)

counts = np.zeros((V, V), dtype=int)             # #_ij: every pair of words in the same sentence
for s in sentences:
    for a, x in enumerate(s):
        for b, y in enumerate(s):
            if a != b:
                counts[idx[x], idx[y]] += 1
totals = counts.sum(axis=1)                      # #_i = sum_j #_ij

ice, steam = idx["ice"], idx["steam"]
probes = ["solid", "gas", "water", "fashion"]
p_ice = {j: Fraction(int(counts[ice, idx[j]]), int(totals[ice])) for j in probes}      # p^(j | ice)
p_steam = {j: Fraction(int(counts[steam, idx[j]]), int(totals[steam])) for j in probes}
ratio = {j: p_ice[j] / p_steam[j] for j in probes}


def frac(x):
    return str(x.numerator) if x.denominator == 1 else rf"$\tfrac{{{x.numerator}}}{{{x.denominator}}}$"


print(table(["test word $j$", r"$\#_{\text{ice},j}$", r"$\#_{\text{steam},j}$", r"$\hat p(j\mid\text{ice})$",
             r"$\hat p(j\mid\text{steam})$", "ratio"],
            [(j, int(counts[ice, idx[j]]), int(counts[steam, idx[j]]), frac(p_ice[j]), frac(p_steam[j]),
              frac(ratio[j])) for j in probes]))
print(shape_table({"V": V}, [
    ("co-occurrence counts", r"\#_{ij}", counts, "V V", "pairs of words in the same sentence"),
    ("row totals", r"\#_i", totals, "V", r"$\sum_j\#_{ij}$"),
]))

# The counts again, by a second route: each sentence's words as a 0/1 row, pairs = B^T B without the diagonal.
B = np.zeros((len(sentences), V), dtype=int)
for n, s in enumerate(sentences):
    B[n, [idx[x] for x in s]] = 1
print(check_equal("no word occurs twice in a sentence, so the pair counts are the 0/1 occurrence rows' B^T B "
                  "off the diagonal", counts, B.T @ B - np.diag(np.diag(B.T @ B))))
pairs = B.T @ B - np.diag(np.diag(B.T @ B))                 # the counts by the second route
by_pairs = [str(Fraction(int(pairs[ice, idx[j]]), int(pairs[ice].sum()))
                / Fraction(int(pairs[steam, idx[j]]), int(pairs[steam].sum()))) for j in probes]
print(check_equal("the ratios of solid, gas, water and fashion, from the B^T B counts in exact fractions", by_pairs,
                  [str(ratio[j]) for j in probes]))
print(check_equal("water and fashion have the same ratio", ratio["water"], ratio["fashion"]))
print(check_equal("p^(solid | ice) = p^(water | ice): the probability alone does not tell the ice-only word from "
                  "the shared one", p_ice["solid"], p_ice["water"]))
print(check_equal("ice and steam have as many context words in all: #_ice = #_steam", int(totals[ice]),
                  int(totals[steam])))
print(glue("n_sentences", len(sentences)), glue("tot_ice", int(totals[ice])), glue("r_solid", str(ratio["solid"])), glue("r_gas", str(ratio["gas"])),
      glue("r_water", str(ratio["water"])),
      glue("p_solid_ice", str(p_ice["solid"])))

# The log-bilinear model (glove-model) turns every ratio into a difference of dot products (glove-ratio):
# log p^(j|i) - log p^(j|i') = (C_i - C_i') . C~_j + a term without j. Any tables give such a model;
# its ratios, computed from the counts it implies by a loop, minus the dot products, are one number.
rng = np.random.default_rng(531)
d = 2
C, Ct = rng.normal(0, 1, (V, d)), rng.normal(0, 1, (V, d))
b, bt = rng.normal(0, 1, V), rng.normal(0, 1, V)
# (exp-ratio) as the text uses it: shares proportional to exp(C_i . C~_j), normalised by a loop.
Z_ice, Z_steam = (math.fsum(math.exp(float(C[i] @ Ct[k])) for k in range(V)) for i in (ice, steam))
shares = [math.exp(float(C[ice] @ Ct[j])) / Z_ice / (math.exp(float(C[steam] @ Ct[j])) / Z_steam) for j in range(V)]
print(check_close("if p(j|i) is proportional to exp(C_i . C~_j), p(j|ice) / p(j|steam) = exp((C_ice - C_steam) . C~_j) "
                  "times Z_steam / Z_ice for every j", shares, np.exp((C[ice] - C[steam]) @ Ct.T) * Z_steam / Z_ice,
                  atol=0.0, rtol=1e-12, eq="exp-ratio"))
model = np.exp(C @ Ct.T + b[:, None] + bt[None, :])          # the counts the model implies, exp(log #_ij)
left, log_ratio = [], []
for j in range(V):
    p_i = model[ice, j] / sum(model[ice, k] for k in range(V))
    p_s = model[steam, j] / sum(model[steam, k] for k in range(V))
    log_ratio.append(np.log(p_i / p_s))
    left.append(log_ratio[-1] - (C[ice] - C[steam]) @ Ct[j])
c_is = b[ice] - b[steam] - np.log(model[ice].sum() / model[steam].sum())
print(check_close("under the model, log(p(j|ice) / p(j|steam)) - (C_ice - C_steam) . C~_j is the same for every j: "
                  "b_ice - b_steam - log(#_ice / #_steam)", np.array(left), np.full(V, c_is), atol=1e-10,
                  eq="glove-ratio"))

# The projections are ordered like the ratios, but where a ratio of 1 falls is not fixed: adding u to
# every context row and -C_i . u to every b_i leaves every fitted log count, so every ratio, as it was,
# and moves every projection on C_ice - C_steam by the same amount, (C_ice - C_steam) . u.
u = rng.normal(0, 1, d)
moved = [[math.exp(float(C[i] @ (Ct[j] + u)) + b[i] - float(C[i] @ u) + bt[j]) for j in range(V)] for i in range(V)]
print(check_close("shifting every context row by u and each b_i by -C_i . u leaves every fitted count (by math.exp)",
                  moved, model, atol=0.0, rtol=1e-12, eq="glove-model"))
print(check_equal("solid, gas, water and fashion in the order of their ratio under the model (a loop over its counts) "
                  "are in the order of their context rows' projections on C_ice - C_steam",
                  sorted(probes, key=lambda j: log_ratio[idx[j]]),
                  sorted(probes, key=lambda j: float(Ct[idx[j]] @ (C[ice] - C[steam]))), eq="glove-ratio"))
