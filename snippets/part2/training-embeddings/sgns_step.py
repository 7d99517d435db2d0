"""5.2 Skip-gram's softmax and negative sampling: two steps by hand in d = 2, then the gradients at scale."""
import math
from fractions import Fraction

import numpy as np

from esm import (check_close, check_equal, cosine, cross_entropy, glue, log_sigmoid, numerical_grad, one_hot,
                 shape_table, sigmoid, softmax, table)

# By hand first: five words in d = 2. The context table starts at zero, as in word2vec's code, so
# every score in these two steps is 0 and every sigmoid is sigma(0) = 1/2.
half = Fraction(1, 2)
SIGMA = {Fraction(0): half}                      # the only value the example needs (any other score: KeyError)


def dot(u, v):
    return sum(a * b for a, b in zip(u, v))


def sgns_step(C, Ct, i, o, noise_ids, eta):
    """One SGD step of (sgns) on the pair (centre i, context o) with noise words noise_ids, in place,
    in exact fractions; returns the scores z_o and z_jk."""
    c = list(C[i])                               # the centre row before the step
    z_o, z_n = dot(Ct[o], c), [dot(Ct[j], c) for j in noise_ids]
    g_o, g_n = SIGMA[z_o] - 1, [SIGMA[z] for z in z_n]     # sigma(z_o) - 1 and sigma(z_jk)
    grad_c = [g_o * Ct[o][a] + sum(g * Ct[j][a] for g, j in zip(g_n, noise_ids)) for a in range(2)]
    C[i] = [c[a] - eta * grad_c[a] for a in range(2)]
    Ct[o] = [Ct[o][a] - eta * g_o * c[a] for a in range(2)]
    for g, j in zip(g_n, noise_ids):
        Ct[j] = [Ct[j][a] - eta * g * c[a] for a in range(2)]
    return z_o, z_n


words_h = ["cat", "dog", "fed", "car", "sky"]
w = {x: k for k, x in enumerate(words_h)}
F0, F1 = Fraction(0), Fraction(1)
C_h = [[F1, F0], [F0, F1], [F0, F0], [F0, F0], [F0, F0]]   # centre rows: cat and dog orthogonal
Ct_h = [[F0, F0] for _ in words_h]                          # context rows: all zero
eta_h = F1
steps_h = [("cat", "fed", ["car"]), ("dog", "fed", ["sky"])]
shown = ["cat", "dog"], ["fed", "car", "sky"]               # the centre and the context rows of the table
columns, scores = [[list(C_h[w[x]]) for x in shown[0]] + [list(Ct_h[w[x]]) for x in shown[1]]], []
for centre, context, noise_words in steps_h:
    z_o, z_n = sgns_step(C_h, Ct_h, w[centre], w[context], [w[x] for x in noise_words], eta_h)
    scores.append([z_o, *z_n])
    columns.append([list(C_h[w[x]]) for x in shown[0]] + [list(Ct_h[w[x]]) for x in shown[1]])


def tex(x):
    """A fraction, or a vector of fractions, as LaTeX."""
    if isinstance(x, list):
        return "(" + ",".join(tex(v) for v in x) + ")"
    s, x = "-" * (x < 0), abs(x)
    return s + (f"{x.numerator}" if x.denominator == 1 else rf"\tfrac{{{x.numerator}}}{{{x.denominator}}}")


names = [rf"$C_{{\text{{{x}}},:}}$" for x in shown[0]] + [rf"$\tilde C_{{\text{{{x}}},:}}$" for x in shown[1]]
heads = ["row", "start"] + [f"after step {n + 1}: ({c}, {o}), noise {', '.join(ns)}"
                            for n, (c, o, ns) in enumerate(steps_h)]
rows = [[names[r]] + [f"${tex(col[r])}$" for col in columns] for r in range(len(names))]
rows.append([r"scores $(z_o,z_{j_1})$ in the step", "—"] + [f"${tex(s)}$" for s in scores])
print(table(heads, rows))

# The same two steps in floats, with the gradient formulas vectorised, and each gradient against
# central finite differences of the loss.


def sgns_loss(c, ctx, negs):
    """-log sigma(ctx . c) - sum_k log sigma(-negs_k . c): one pair's loss (sgns)."""
    return float(-log_sigmoid(ctx @ c) - np.sum(log_sigmoid(-(negs @ c))))


def sgns_grads(c, ctx, negs):
    """The gradients of sgns_loss with respect to the centre row, the context row and the noise rows."""
    g_o, g_n = sigmoid(ctx @ c) - 1.0, sigmoid(negs @ c)
    return g_o * ctx + g_n @ negs, g_o * c, np.outer(g_n, c)


Cf, Ctf = np.zeros((5, 2)), np.zeros((5, 2))
Cf[w["cat"]], Cf[w["dog"]] = (1.0, 0.0), (0.0, 1.0)
by_formula, by_fd = [], []
for centre, context, noise_words in steps_h:
    i, o, js = w[centre], w[context], [w[x] for x in noise_words]
    c, ctx, negs = Cf[i].copy(), Ctf[o].copy(), Ctf[js].copy()
    gc, go, gn = sgns_grads(c, ctx, negs)
    fd = (numerical_grad(lambda v: sgns_loss(v, ctx, negs), c), numerical_grad(lambda v: sgns_loss(c, v, negs), ctx),
          numerical_grad(lambda M: sgns_loss(c, ctx, M), negs))
    by_formula.append(np.concatenate([gc, go, gn.ravel()]))
    by_fd.append(np.concatenate([f.ravel() for f in fd]))
    Cf[i] -= float(eta_h) * gc
    Ctf[o] -= float(eta_h) * go
    Ctf[js] -= float(eta_h) * gn
print(check_close("by hand: both steps' gradients (formulas, floats) vs central finite differences of the loss",
                  np.array(by_formula), np.array(by_fd), atol=1e-8, eq="sgns-grad-centre"))
exact = np.array([[float(v) for v in C_h[k]] + [float(v) for v in Ct_h[k]] for k in range(5)])
print(check_close("by hand: the rows after two steps, fractions in a loop vs the vectorised formulas in floats",
                  np.hstack([Cf, Ctf]), exact, atol=1e-15))
cos_h = cosine(Cf[w["cat"]], Cf[w["dog"]])
print(check_close("by hand: cos(cat, dog) after the steps = (1/4) / sqrt(1/16 + 1) = 1/sqrt(17)", cos_h,
                  1 / math.sqrt(17), atol=1e-12))
print(check_equal("by hand: step 1 leaves cat's row where it was (every context row was 0)",
                  tex(columns[1][0]), tex(columns[0][0])))
print(glue("dog_h", f"$C_{{\\text{{dog}},:}}={tex(C_h[w['dog']])}$"), glue("fed1_h", f"${tex(columns[1][2])}$"),
      glue("cos_h", cos_h, ".3f"))

# At scale: a random draw, |V| = 12, d = 4. Skip-gram's softmax (skipgram) is 5.1's loss with h = C_i
# and W = C~, so every context row gets a gradient; negative sampling gives one to N_neg + 1 rows.
rng = np.random.default_rng(521)
V, d, N_neg = 12, 4, 3
C = rng.normal(0, 0.5, (V, d))                  # centre table
Ct = rng.normal(0, 0.5, (V, d))                 # context table
i, o = 3, 7                                     # one (centre, context) pair
negs = rng.choice([j for j in range(V) if j != o], size=N_neg, replace=False)   # noise words, none equal to o

z = Ct @ C[i]                                   # the scores of every context row: 5.1's logits with h = C_i
p = softmax(z)                                  # p(j | i) for every j
grad_Ct_soft = np.outer(p - one_hot(o, V), C[i])  # 5.1's (row-grad)
grad_C_soft = Ct.T @ (p - one_hot(o, V))          # 5.1's (hidden-grad)
gc, go, gn = sgns_grads(C[i], Ct[o], Ct[negs])
grad_Ct_ns = np.zeros((V, d))
grad_Ct_ns[o] += go
np.add.at(grad_Ct_ns, negs, gn)

print(shape_table({"V": V, "d": d, r"N_{\text{neg}}": N_neg}, [
    ("centre table", "C", C, "V d", r"row $C_{i,:}$; the embeddings kept"),
    ("context table", r"\tilde C", Ct, "V d", r"row $\tilde C_{j,:}$ scores word $j$ as a context"),
    ("scores", r"\mathbf z", z, "V", r"$z_j=\tilde C_{j,:}^\top C_{i,:}$"),
    ("softmax gradient on the context table", r"\nabla_{\tilde C}\ell_{\text{sg}}", grad_Ct_soft, "V d",
     "every row nonzero"),
    ("negative-sampling gradient on the context table", r"\nabla_{\tilde C}\ell", grad_Ct_ns, "V d",
     r"$N_{\text{neg}}+1$ rows nonzero"),
    ("noise words", r"j_1,\dots,j_{N_{\text{neg}}}", negs, r"N_{\text{neg}}", r"drawn once each, none equal to $o$"),
]))

p_loop = [math.exp(z[j]) / sum(math.exp(v) for v in z) for j in range(V)]
print(check_close("p(o | i): esm.softmax of the scores vs exp(z_o) / sum_j exp(z_j) in a loop", p[o], p_loop[o],
                  atol=1e-12, eq="skipgram"))
print(check_close("skip-gram's softmax gradients (5.1's formulas with h = C_i) vs central finite differences",
                  np.concatenate([grad_Ct_soft.ravel(), grad_C_soft]),
                  np.concatenate([numerical_grad(lambda M: cross_entropy(M @ C[i], o), Ct).ravel(),
                                  numerical_grad(lambda v: cross_entropy(Ct @ v, o), C[i])]), atol=1e-8,
                  eq="skipgram"))
loop = (-math.log(1 / (1 + math.exp(-float(Ct[o] @ C[i]))))
        - sum(math.log(1 / (1 + math.exp(float(Ct[j] @ C[i])))) for j in negs))
print(check_close("negative-sampling loss: vectorised vs math.log/math.exp in a loop", sgns_loss(C[i], Ct[o], Ct[negs]),
                  loop, atol=1e-12, eq="sgns"))
print(check_close("gradient on the centre row vs central finite differences", gc,
                  numerical_grad(lambda v: sgns_loss(v, Ct[o], Ct[negs]), C[i]), atol=1e-8, eq="sgns-grad-centre"))


def ns_loss_of_table(M):
    return sgns_loss(C[i], M[o], M[negs])


print(check_close("gradient on the whole context table vs central finite differences", grad_Ct_ns,
                  numerical_grad(ns_loss_of_table, Ct), atol=1e-8, eq="sgns-grad-context"))
# A noise word drawn twice, and one equal to o: each such row gets the sum of its terms.
twice = np.array([negs[0], negs[0], o])
gc2, go2, gn2 = sgns_grads(C[i], Ct[o], Ct[twice])
grad_twice = np.zeros((V, d))
grad_twice[o] += go2
np.add.at(grad_twice, twice, gn2)
print(check_close("noise words (j1, j1, o): the terms of a repeated row summed, vs central finite differences of the "
                  "loss over the whole context table", grad_twice,
                  numerical_grad(lambda M: sgns_loss(C[i], M[o], M[twice]), Ct), atol=1e-8, eq="sgns-grad-context"))
touched = int(np.sum(np.any(grad_Ct_soft != 0, axis=1))), int(np.sum(np.any(grad_Ct_ns != 0, axis=1)))
print(check_equal("context rows with a nonzero gradient (softmax, negative sampling) = (|V|, N_neg + 1)", touched,
                  (V, N_neg + 1)))

V_cited, N_neg_cited = 692_000, 5              # Mikolov et al. (2013b): a 692K-word vocabulary; k = 5 negatives
print(glue("V_h", V), glue("N_neg_h", N_neg), glue("touched_soft", touched[0]), glue("touched_ns", touched[1]),
      glue("cost_ratio", int(round(V_cited / (N_neg_cited + 1), -3)), ","))
