"""2.4 Input, output and tied embeddings: logits z = W h; tying sets W = E.

One small case, end to end: a tied table of three rows in d = 2, input token 0 whose row is
h = (1, -1), target token 1. Logits, probabilities, both gradient terms, and finite differences.
"""
import math

import numpy as np

from esm import check_close, check_true, glue, numerical_grad, shape_table, softmax, table

E = np.array([[1.0, -1.0],
              [0.5, 0.5],
              [-1.0, 0.0]])             # |V| = 3 rows, d = 2; tied: W = E
V, d = E.shape
i, y = 0, 1                             # input token 0, target token 1
h = E[i]                                # a model with no layers: h = x = E[i]
z = E @ h                               # logits, z_j = w_j^T h with w_j = E[j]
p = softmax(z)

z_loop = np.array([sum(E[j, k] * h[k] for k in range(d)) for j in range(V)])
print(check_close("z = W h: logit j is the dot product of row j with h (loop)", z, z_loop, eq="output-logits"))
p_scalar = [math.exp(zj) / sum(math.exp(zk) for zk in z_loop) for zj in z_loop]
print(check_close("p = softmax(z), against exp(z_j) / sum_k exp(z_k) in scalar arithmetic", p, p_scalar,
                  atol=1e-12))


def loss(table):
    """Cross-entropy of the target after looking up token i and scoring with the same table."""
    x = table[i]
    logits = table @ x
    return -(logits[y] - np.log(np.sum(np.exp(logits))))


g = p - np.eye(V)[y]                    # dl/dz = p - e_y
G_out = np.outer(g, h)                  # through the output head: (p - e_y) h^T, every row
G_in = np.zeros_like(E)
G_in[i] = E.T @ g                       # through the lookup: row i only
G_fd = numerical_grad(loss, E)

print(shape_table({"V": V, "d": d}, [
    ("tied table", "E=W", E, "V d", "input lookup and output head"),
    ("hidden state", r"\mathbf h", h, "d", r"here $\mathbf h=\mathbf x=E_{0,:}$"),
    ("logits", r"\mathbf z", z, "V", r"$\mathbf z=E\mathbf h$"),
    ("output-side gradient", "", G_out, "V d", r"$(\mathbf p-\mathbf e_y)\mathbf h^\top$: every row"),
    ("input-side gradient", "", G_in, "V d", r"row $i$ only"),
]))
print(check_close("tied: finite differences equal output-side + input-side gradients",
                  G_fd, G_out + G_in, atol=1e-8, eq="tied-gradient"))
print(check_close(f"the output side alone misses row {i} by exactly the input side (finite differences)",
                  (G_fd - G_out)[i], G_in[i], atol=1e-8, eq="tied-gradient"))
print(check_true("the output side reaches every row (all rows of (p - e_y) h^T are nonzero)",
                 bool(np.all(np.abs(G_out).sum(axis=1) > 0)),
                 "row norms " + ", ".join(f"{v:.3f}" for v in np.linalg.norm(G_out, axis=1))))



def vec(v, fmt="g"):
    return "(" + ", ".join(format(x, fmt) for x in v).replace("-", "−") + ")"


print(table(["the worked example, step by step", "value"], [
    ("rows of the tied table $E=W$", ", ".join(vec(r) for r in E)),
    (f"input token $i={i}$: $\\mathbf h=E_{{{i},:}}$", vec(h)),
    ("logits $\\mathbf z=E\\mathbf h$", vec(z)),
    ("$\\mathbf p=\\operatorname{softmax}(\\mathbf z)$", vec(p, ".3f")),
    (f"target $y={y}$: $\\mathbf p-\\mathbf e_y$", vec(g, "+.3f")),
]))
for r in range(V):
    print(glue(f"tied_E{r}", E[r], "g"))
print(glue("tied_z", z, "g"))
print(glue("tied_p", p, ".3f"))
print(glue("tied_i", i))
print(glue("tied_y", y))
print(glue("tied_gout_i", G_out[i], "+.3f"))
print(glue("tied_gin_i", G_in[i], "+.3f"))
print(glue("tied_total_i", G_fd[i], "+.3f"))
print(glue("llama_head", 32_000 * 4_096, ","))         # Llama 2 7B: |V| = 32,000, d = 4,096
