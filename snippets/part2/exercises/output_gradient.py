"""Exercise: the gradient of the LM loss with respect to each output row."""
import numpy as np

from esm import check_close, cross_entropy, glue, numerical_grad, shape_table, softmax

rng = np.random.default_rng(106)
V, d, y = 5, 3, 2
W = rng.normal(0.0, 1.0, (V, d))
h = rng.normal(0.0, 1.0, d)
p = softmax(W @ h)
G = np.outer(p - np.eye(V)[y], h)                # row j: (p_j - 1{j = y}) h

print(shape_table({"V": V, "d": d}, [
    ("head", "W", W, "V d", "one output row per token"), ("state", r"\mathbf h", h, "d", ""),
    ("probabilities", r"\mathbf p", p, "V", r"$\operatorname{softmax}(W\mathbf h)$"),
    ("gradient", r"\nabla_W\ell", G, "V d", r"row $j$ is $(p_j-\mathbf 1\{j=y\})\mathbf h$"),
]))
num = numerical_grad(lambda W_: cross_entropy(W_ @ h, y), W)   # central differences, entry by entry
print(check_close("(a) the closed form equals central finite differences", G, num, atol=1e-8))
print(check_close("(a) the rows of the gradient sum to zero (the p_j sum to 1)", G.sum(0), np.zeros(d), atol=1e-12))
print(check_close("(b) the target row's gradient has norm (1 - p_y) |h|", np.linalg.norm(num[y]),
                  (1 - p[y]) * np.linalg.norm(h), atol=1e-8))
# (c) a gradient step moves row j along -grad_j: toward h for the target (by 1 - p_y), away from h for the others.
step_dot_h = -num @ h                          # finite-difference gradients, projected on h
expected = np.array([(1 - p[j]) if j == y else -p[j] for j in range(V)]) * (h @ h)
print(check_close("(c) -grad_j . h is (1 - p_y)|h|^2 for the target and -p_j |h|^2 for the others", step_dot_h, expected,
                  atol=1e-8))
print(glue("e6_V", V), glue("e6_d", d), glue("e6_y", y), glue("e6_py", p[y], ".4f"),
      glue("e6_norm", float(np.linalg.norm(G[y])), ".4f"),
      glue("e6_rows", int(np.sum(np.abs(num).max(axis=1) > 1e-9))), sep="")
