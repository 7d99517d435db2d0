"""5.1 Language-model loss gradients: every output row moves along h, by p_j - 1{j = y}."""
import math
from fractions import Fraction

import numpy as np

from esm import PALETTE, check_close, cross_entropy, figure, glue, numerical_grad, one_hot, shape_table, softmax, svg, table

# By hand first: three tokens in d = 2, with logits that are all equal, so p is (1/3, 1/3, 1/3).
def ftex(x):
    """A simple fraction as LaTeX."""
    x = Fraction(x)
    sign = "-" if x < 0 else ""
    x = abs(x)
    return f"{sign}{x.numerator}" if x.denominator == 1 else rf"{sign}\tfrac{{{x.numerator}}}{{{x.denominator}}}"


def vtex(v):
    return "(" + ",".join(ftex(x) for x in v) + ")"


W_h = [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)], [Fraction(-1), Fraction(2)]]
h_h, y_h, eta_h = [Fraction(1), Fraction(1)], 0, Fraction(3, 2)
z_h = [sum(a * b for a, b in zip(w, h_h)) for w in W_h]             # exact: every logit is 1
p_h = [Fraction(1, 3)] * 3                                          # equal logits, so equal probabilities
print(check_close("by hand: p = (1/3, 1/3, 1/3) vs esm.softmax of the logits", softmax(np.array(z_h, float)),
                  np.array(p_h, float), atol=1e-15))
print(check_close("by hand: loss = log 3 vs esm.cross_entropy", cross_entropy(np.array(z_h, float), y_h),
                  math.log(3), atol=1e-15, eq="lm-loss"))
coef_h = [p_h[j] - (j == y_h) for j in range(3)]                    # p_j - 1{j = y}, exact
gW_h = [[c * x for x in h_h] for c in coef_h]
gh_h = [sum(coef_h[j] * W_h[j][i] for j in range(3)) for i in range(2)]
Wf, hf = np.array(W_h, float), np.array(h_h, float)
print(check_close("by hand: row gradients (p_j - 1{j=y}) h in fractions vs finite differences", np.array(gW_h, float),
                  numerical_grad(lambda M: cross_entropy(M @ hf, y_h), Wf), atol=1e-8, eq="row-grad"))
print(check_close("by hand: grad on h = sum_j (p_j - 1{j=y}) w_j in fractions vs finite differences", np.array(gh_h, float),
                  numerical_grad(lambda v: cross_entropy(Wf @ v, y_h), hf), atol=1e-8, eq="hidden-grad"))
W_h1 = [[W_h[j][i] - eta_h * gW_h[j][i] for i in range(2)] for j in range(3)]
z_h1 = [sum(a * b for a, b in zip(w, h_h)) for w in W_h1]
print(check_close("by hand: after the step the logits are W' h, in fractions vs floats", np.array(z_h1, float),
                  (Wf - float(eta_h) * numerical_grad(lambda M: cross_entropy(M @ hf, y_h), Wf)) @ hf, atol=1e-8,
                  eq="lm-step"))
print(check_close("by hand: the mean row does not move", np.mean(np.array(W_h1, float), axis=0), Wf.mean(axis=0),
                  atol=1e-15))
# formulas are published whole ($...$), to be quoted outside math in the prose
print(table(["$j$", "$\\mathbf w_j$", "$p_j-\\mathbf 1\\{j=y\\}$", "$\\nabla_{\\mathbf w_j}\\ell$",
             f"$\\mathbf w_j$ after a step, $\\eta={ftex(eta_h)}$", "new $z_j$"],
            [(f"${j}$" + (" ($y$)" if j == y_h else ""), f"${vtex(W_h[j])}$", f"${ftex(coef_h[j])}$",
              f"${vtex(gW_h[j])}$", f"${vtex(W_h1[j])}$", f"${ftex(z_h1[j])}$") for j in range(3)]))
print(glue("h_h", f"$\\mathbf h={vtex(h_h)}$"), glue("y_h", y_h), glue("eta_h", f"$\\eta={ftex(eta_h)}$"),
      glue("W_h", "$" + ",\\ ".join(f"\\mathbf w_{j}={vtex(W_h[j])}" for j in range(3)) + "$"),
      glue("coef_h", f"${vtex(coef_h)}$"),
      glue("gh_h", "$\\nabla_{\\mathbf h}\\ell=" + "+".join(f"{ftex(coef_h[j])}\\mathbf w_{j}" for j in range(3))
           + f"={vtex(gh_h)}$"),
      glue("z1_h", f"${vtex(z_h1)}$"),
      glue("p_h_txt", "(" + ", ".join(str(x) for x in p_h) + ")"), glue("c0_txt", str(coef_h[0])),
      glue("c1_txt", str(coef_h[1])))                # plain-text forms, for the skill check

rng = np.random.default_rng(51)
V, d = 8, 4
W = rng.normal(0, 1, (V, d))                     # output matrix, one row w_j per token
h = rng.normal(0, 1, d)                          # final hidden state at one position
y = 5                                            # the token that actually came next

z = W @ h
p = softmax(z)
loss = cross_entropy(z, y)
grad_W = np.outer(p - one_hot(y, V), h)          # row j: (p_j - 1{j=y}) h
grad_h = W.T @ (p - one_hot(y, V))               # sum_j (p_j - 1{j=y}) w_j

print(shape_table({"V": V, "d": d}, [
    ("output matrix", "W", W, "V d", r"row $\mathbf w_j$ scores token $j$"),
    ("hidden state", r"\mathbf h", h, "d", "the vector $W$ scores"),
    ("probabilities", r"\mathbf p", p, "V", r"$\operatorname{softmax}(W\mathbf h)$"),
    ("gradient on W", r"\nabla_W\ell", grad_W, "V d", r"row $j$ is $(p_j-\mathbf 1\{j=y\})\mathbf h$"),
    ("gradient on h", r"\nabla_{\mathbf h}\ell", grad_h, "d", r"$W^\top(\mathbf p-\mathbf e_y)$"),
]))

by_hand = -z[y] + math.log(sum(math.exp(v) for v in z))
print(check_close("loss: esm.cross_entropy vs -z_y + log sum_j exp z_j", loss, by_hand, atol=1e-12, eq="lm-loss"))
print(check_close("d loss / d z_j = p_j - 1{j=y}, the formula vs central finite differences in the logits",
                  p - one_hot(y, V), numerical_grad(lambda v: cross_entropy(v, y), z), atol=1e-8, eq="logit-grad"))


fd_W = numerical_grad(lambda M: cross_entropy(M @ h, y), W)     # central finite differences
fd_h = numerical_grad(lambda v: cross_entropy(W @ v, y), h)
print(check_close("grad w.r.t. every row w_j vs central finite differences", grad_W, fd_W, atol=1e-8, eq="row-grad"))
print(check_close("grad w.r.t. h vs central finite differences", grad_h, fd_h, atol=1e-8, eq="hidden-grad"))
fd_err = max(np.abs(grad_W - fd_W).max(), np.abs(grad_h - fd_h).max())
fav = int(np.argmax(p))
print(glue("y_lm", y), glue("fav", fav), glue("coef_y", p[y] - 1, "+.3f"),
      glue("coef_fav", p[fav], "+.3f"))

eta = 0.05
W_step = W - eta * fd_W                          # a gradient step, with the gradient from finite differences
stated = W.copy()                                # the step as the prose states it, row by row
for j in range(V):
    stated[j] = W[j] + eta * (1 - p[j]) * h if j == y else W[j] - eta * p[j] * h
print(check_close("the step: w_y + eta (1 - p_y) h for the target, w_j - eta p_j h for the others",
                  stated, W_step, atol=1e-9, eq="lm-step"))
print(check_close("the mean of the rows does not move in the step", W_step.mean(axis=0), W.mean(axis=0), atol=1e-9))
h_stated = h + eta * (1 - p[y]) * W[y] - eta * sum(p[j] * W[j] for j in range(V) if j != y)
print(check_close("the step on h: h + eta (1 - p_y) w_y - eta sum_(j != y) p_j w_j", h_stated, h - eta * fd_h, atol=1e-9,
                  eq="lm-step-h"))
drop = loss - cross_entropy(W_step @ h, y)
first_order = eta * np.sum(fd_W ** 2)
print(check_close("one step on W lowers the loss by about eta * |grad|^2 (first order)", drop, first_order, rtol=0.05))
print(glue("eta", eta, ".2f"), glue("drop", drop, ".3f"), glue("first_order", first_order, ".3f"))

fig, ax = figure(size=(6.4, 2.6))
coef = p - one_hot(y, V)
ax.bar(range(V), coef, color=[PALETTE[1] if j == y else PALETTE[0] for j in range(V)])
ax.axhline(0, color=PALETTE[4], lw=0.8)
ax.set_xticks(range(V), [f"{j}" + (" (y)" if j == y else "") for j in range(V)])
ax.set_xlabel("token j")
ax.set_ylabel(r"$p_j-1\{j=y\}$")
print(svg(fig, alt=f"Bar chart of the gradient coefficient p_j - 1{{j = y}} of each of the {V} output rows: "
          f"{p[y] - 1:.3f} for the target {y}, and positive for the others, from {np.delete(p, y).min():.3f} to "
          f"{np.delete(p, y).max():.3f} (token {fav})",
          caption="The coefficient of $\\mathbf h$ in each row's gradient. "
          "Gradient descent moves the target row toward $\\mathbf h$ and every other row away, in "
          "proportion to its probability."))
