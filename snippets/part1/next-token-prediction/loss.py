"""0.1 Logits, softmax and cross-entropy: one prediction of a five-token model, by hand.

The model has no layers, so its final state h is the row of the last token it read, and every
number can be followed with a pencil. Layers change only how h is computed, not what follows.
"""
import math

import numpy as np

from esm import check_close, check_equal, check_less, cross_entropy, glue, shape_table, softmax, table

vocab = ["the", "cat", "sat", "on", "mat"]          # token ids 0 to 4
V, d = len(vocab), 2
# The input table E and the output matrix W: small integers, so that every logit is an integer.
E = np.array([[-1, -3], [1, 2], [0, 1], [-1, 1], [1, -1]], dtype=float)
W = np.array([[2, -1], [1, -1], [0, 1], [1, 0], [-2, 1]], dtype=float)

ids = np.array([vocab.index(w) for w in ["the", "cat"]])   # the text so far
y = vocab.index("sat")                                     # the token that came next in the text
T = len(ids)

h = E[ids[-1]]                  # no layers: the final state is the row of the last token
z = W @ h                       # the logits: one score per token of the vocabulary
p = softmax(z)                  # the probabilities of the next token
loss = -np.log(p[y])            # the cross-entropy of the true next token

print(shape_table({"V": V, "d": d, "T": T}, [
    ("token ids", r"\mathbf i", ids, "T", "the text so far: the, cat"),
    ("input table", "E", E, "V d", "one row per token"),
    ("final state", r"\mathbf h", h, "d", r"here the row of the last token, $E_{1,:}$"),
    ("output matrix", "W", W, "V d", r"row $\mathbf w_j$ scores token $j$"),
    ("logits", r"\mathbf z", z, "V", r"$\mathbf z=W\mathbf h$"),
    ("probabilities", r"\mathbf p", p, "V", r"$\operatorname{softmax}(\mathbf z)$"),
]))

# Second routes, in scalar arithmetic: a loop of products for the logits, math.exp for the softmax.
z_loop = [sum(W[j, k] * h[k] for k in range(d)) for j in range(V)]
print(check_close("z = W h: logit j is the dot product of row j of W with h (loop)", z, z_loop, eq="logits"))
print(check_equal("the logits are the integers worked by hand from W and h = (1, 2)",
                  z.astype(int).tolist(), [0, -1, 2, 1, 0], eq="by-hand"))
exps = [math.exp(zj) for zj in z_loop]
total = math.fsum(exps)
p_loop = [e / total for e in exps]
print(check_close("p = softmax(z), against exp(z_j) / sum_j' exp(z_j') term by term", p, p_loop,
                  atol=1e-12, eq="softmax"))
print(check_close("the probabilities sum to 1 (math.fsum)", math.fsum(p), 1.0, atol=1e-12, eq="softmax"))
# The helper's softmax subtracts the largest logit first, so softmax(z + 7) would be bitwise softmax(z)
# and could not test the shift; the shifted probabilities are formed here without any max shift.
exps_7 = [math.exp(zj + 7) for zj in z_loop]
p_shift = [e / math.fsum(exps_7) for e in exps_7]
print(check_close("adding 7 to every logit leaves every probability unchanged: exp(z_j + 7) / sum_j' exp(z_j' + 7) "
                  "(no max shift) vs exp(z_j) / sum_j' exp(z_j') above", p_shift, p_loop, atol=1e-12, eq="softmax"))
lse = -z_loop[y] + math.log(total)
print(check_close("cross-entropy: -log p_y equals the log-sum-exp form -z_y + log sum_j exp(z_j)",
                  loss, lse, atol=1e-12, eq="cross-entropy"))
print(check_close("the same loss from the max-shifted log-softmax of the helpers", cross_entropy(z, y), lse,
                  atol=1e-12, eq="cross-entropy"))

# Examples around the case: a model that knows nothing, and one that is sure of the wrong token.
loss_uniform = cross_entropy(np.zeros(V), y)
print(check_close("equal logits: every p_j = 1/|V| and the loss is log |V|", loss_uniform, math.log(V),
                  atol=1e-12, eq="cross-entropy"))
wrong = vocab.index("cat")
loss_wrong = -z_loop[wrong] + math.log(total)
print(check_less(f"the loss had the next token been '{vocab[wrong]}' (logit {z[wrong]:g}) exceeds the loss of 'sat'",
                 loss, loss_wrong))
best = max(range(V), key=lambda j: p_loop[j])
print(check_equal("the most probable next token (largest p_j, scalar route) is the true one, y", vocab[best], vocab[y]))

# The geometry of a logit: z_j = |w_j| |h| cos(angle), so the winner is the row best aligned with h,
# here not a long row. Cosines and lengths in scalar arithmetic.
norm = [math.sqrt(sum(W[j, k] ** 2 for k in range(d))) for j in range(V)]
cos_h = [z_loop[j] / (norm[j] * math.sqrt(sum(x * x for x in h))) for j in range(V)]
print(check_equal("the true token's row makes the smallest angle with h: largest cosine (loop)",
                  vocab[max(range(V), key=lambda j: cos_h[j])], vocab[y]))
print(check_equal("and it is one of the shortest rows: no row is shorter than w_y",
                  min(norm), norm[y]))


def vec(v, fmt="g"):
    return "(" + ", ".join(format(x, fmt) for x in v).replace("-", "−") + ")"


print(table(["token $j$", "id", r"$\mathbf w_j$", r"$z_j=\mathbf w_j^\top\mathbf h$", "$e^{z_j}$", "$p_j$"],
            [(w, j, vec(W[j]), f"{z[j]:g}".replace("-", "−"), f"{exps[j]:.3f}", f"{p[j]:.3f}")
             for j, w in enumerate(vocab)] + [("sum", "", "", "", f"{total:.3f}", f"{math.fsum(p):.3f}")]))

print(glue("ntp_h", h.astype(int)))
print(glue("ntp_z", z.astype(int)))
print(glue("ntp_zy", int(z[y])))
print(glue("ntp_sum", total, ".2f"))
print(glue("ntp_p", p, ".2f"))
print(glue("ntp_py", p[y], ".3f"))
print(glue("ntp_loss", loss, ".3f"))
print(glue("ntp_lse", math.log(total), ".3f"))
print(glue("ntp_uniform", loss_uniform, ".3f"))
print(glue("ntp_V", V))
print(glue("ntp_wrong", loss_wrong, ".3f"))
print(glue("ntp_best", vocab[best]))
print(glue("ntp_cos_y", cos_h[y], ".3f"))
print(glue("ntp_row_y", W[y].astype(int)))
