"""5.1 Language-model loss gradients: every output row moves along h, by p_j - 1{j = y}."""
import math

import numpy as np

from esm import PALETTE, check_close, cross_entropy, figure, numerical_grad, one_hot, shape_table, softmax, svg

rng = np.random.default_rng(51)
V, d = 8, 4
W = rng.normal(0, 1, (V, d))                     # output head, one row w_j per token
h = rng.normal(0, 1, d)                          # final hidden state at one position
y = 5                                            # the token that actually came next

z = W @ h
p = softmax(z)
loss = cross_entropy(z, y)
grad_W = np.outer(p - one_hot(y, V), h)          # row j: (p_j - 1{j=y}) h
grad_h = W.T @ (p - one_hot(y, V))               # sum_j (p_j - 1{j=y}) w_j

print(shape_table({"V": V, "d": d}, [
    ("output head", "W", W, "V d", r"row $\mathbf w_j$ scores token $j$"),
    ("hidden state", r"\mathbf h", h, "d", "the vector the head reads"),
    ("probabilities", r"\mathbf p", p, "V", r"$\operatorname{softmax}(W\mathbf h)$"),
    ("gradient on W", r"\nabla_W\ell", grad_W, "V d", r"row $j$ is $(p_j-\mathbf 1\{j=y\})\mathbf h$"),
    ("gradient on h", r"\nabla_{\mathbf h}\ell", grad_h, "d", r"$W^\top(\mathbf p-\mathbf e_y)$"),
]))

by_hand = -z[y] + math.log(sum(math.exp(v) for v in z))
print(check_close("loss: esm.cross_entropy vs -z_y + log sum_j exp z_j", loss, by_hand, atol=1e-12, eq="lm-loss"))


print(check_close("grad w.r.t. every row w_j vs central finite differences",
                  grad_W, numerical_grad(lambda M: cross_entropy(M @ h, y), W), atol=1e-8, eq="row-grad"))
print(check_close("grad w.r.t. h vs central finite differences",
                  grad_h, numerical_grad(lambda v: cross_entropy(W @ v, y), h), atol=1e-8, eq="hidden-grad"))
print(check_close("the coefficients p_j - 1{j=y} sum to 0", (p - one_hot(y, V)).sum(), 0.0, atol=1e-12))

lr = 0.05
print(check_close("one SGD step on W lowers the loss by about lr * |grad|^2",
                  loss - cross_entropy((W - lr * grad_W) @ h, y), lr * np.sum(grad_W ** 2), rtol=0.05))

fig, ax = figure(size=(6.4, 2.6))
coef = p - one_hot(y, V)
ax.bar(range(V), coef, color=[PALETTE[1] if j == y else PALETTE[0] for j in range(V)])
ax.axhline(0, color=PALETTE[4], lw=0.8)
ax.set_xticks(range(V), [f"{j}" + (" (y)" if j == y else "") for j in range(V)])
ax.set_xlabel("token j")
ax.set_ylabel(r"$p_j-1\{j=y\}$")
print(svg(fig, alt="Bar chart of the gradient coefficient of each output row: negative for the target, "
          "small and positive for the others", caption="The coefficient of $\\mathbf h$ in each row's gradient. "
          "Gradient descent moves the target row toward $\\mathbf h$ and every other row away, in "
          "proportion to its probability."))
