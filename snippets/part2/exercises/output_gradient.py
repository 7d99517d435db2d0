"""Exercise: a bound on the whole output gradient by the target row's, and why a step on the head
of any size lowers the loss of its own example."""
import numpy as np

from esm import check_close, check_less, check_true, cross_entropy, glue, numerical_grad, shape_table, softmax

rng = np.random.default_rng(106)
V, d, y = 5, 3, 2
W = rng.normal(0.0, 1.0, (V, d))
h = rng.normal(0.0, 1.0, d)
p = softmax(W @ h)
G = np.outer(p - np.eye(V)[y], h)                # row j: (p_j - 1{j = y}) h, equation row-grad

print(shape_table({"V": V, "d": d}, [
    ("head", "W", W, "V d", "one output row per token"), ("state", r"\mathbf h", h, "d", ""),
    ("probabilities", r"\mathbf p", p, "V", r"$\operatorname{softmax}(W\mathbf h)$"),
    ("gradient", r"\nabla_W\ell", G, "V d", r"row $j$ is $(p_j-\mathbf 1\{j=y\})\mathbf h$"),
]))
num = numerical_grad(lambda W_: cross_entropy(W_ @ h, y), W)   # central differences, entry by entry
print(check_close("the closed form of every row equals central finite differences", G, num, atol=1e-8))
# (a) |grad_W|_F^2 = |h|^2 ((1 - p_y)^2 + sum_{j != y} p_j^2) <= 2 (1 - p_y)^2 |h|^2
frob = float(np.linalg.norm(num))
target = float(np.linalg.norm(num[y]))
bound = float(np.sqrt(2) * (1 - p[y]) * np.linalg.norm(h))
print(check_close("(a) |grad|_F^2 = |h|^2 ((1 - p_y)^2 + sum_{j != y} p_j^2) (finite differences vs formula)", frob ** 2,
                  (h @ h) * ((1 - p[y]) ** 2 + sum(p[j] ** 2 for j in range(V) if j != y)), atol=1e-8))
print(check_less("(b) |grad|_F < sqrt(2) (1 - p_y) |h|", frob, bound, names=("|grad|_F", "bound")))
share = target ** 2 / frob ** 2
print(check_true("(b) the target row carries at least half of the squared norm", share >= 0.5, f"share = {share:.4f}"))
# equality case V = 2: one other token, sum_{j != y} p_j^2 = (1 - p_y)^2
W2, y2 = W[:2], 0
p2 = softmax(W2 @ h)
n2 = numerical_grad(lambda W_: cross_entropy(W_ @ h, y2), W2)
print(check_close("(a) with two tokens the bound is reached", float(np.linalg.norm(n2)),
                  float(np.sqrt(2) * (1 - p2[y2]) * np.linalg.norm(h)), atol=1e-8))
# (b) scale h by t: the share of the target row tends to 1/2, for this target (p_y -> 0) and for the top token (p_y -> 1).


def share_at(t, target_):
    p_t = softmax(W @ (t * h))
    coef = p_t.copy()
    coef[target_] = -np.delete(p_t, target_).sum()             # p_y - 1 as minus the other tokens' mass (no cancellation)
    g_t = np.outer(coef, t * h)                                # the closed form, checked against finite differences above
    return float(np.sum(g_t[target_] ** 2) / np.sum(g_t ** 2))


top = int(np.argmax(W @ h))
print(check_true("(b) the target is not the top token", top != y, f"top token {top}, target {y}"))
print(check_close("(b) the target row's share at t = 30 and 100, for the target and for the top token, against 1/2",
                  [share_at(t, tg) for t in (30.0, 100.0) for tg in (y, top)], [0.5] * 4, atol=5e-3))
print(check_close("(b) at t = 10 the share from finite differences equals the closed form",
                  float(np.sum(numerical_grad(lambda W_: cross_entropy(W_ @ (10 * h), y), W)[y] ** 2)
                        / np.sum(numerical_grad(lambda W_: cross_entropy(W_ @ (10 * h), y), W) ** 2)), share_at(10.0, y),
                  atol=1e-6))
# (c) a step W <- W - eta grad changes logit j by -eta (p_j - 1{j=y}) |h|^2; every gap z_j - z_y shrinks.
etas = np.linspace(0.0, 10.0, 201)
losses = [cross_entropy((W - eta * G) @ h, y) for eta in etas]
dz = (W - 0.5 * G) @ h - W @ h
print(check_close("(c) logit changes after a step of 1/2: -eta (p_j - 1{j=y}) |h|^2", dz,
                  -0.5 * (p - np.eye(V)[y]) * (h @ h), atol=1e-12))
print(check_true("(c) the loss falls at every step of the grid of eta in [0, 10] (no step is too large)",
                 bool(np.all(np.diff(losses) < 0)), f"largest difference {np.diff(losses).max():.3g}"))
print(glue("e6_V", V), glue("e6_d", d), glue("e6_y", y), glue("e6_py", p[y], ".4f"),
      glue("e6_frob", frob, ".4f"), glue("e6_bound", bound, ".4f"), glue("e6_target", target, ".4f"),
      glue("e6_share", share, ".1%"), glue("e6_share10", share_at(10.0, y), ".1%"), glue("e6_top", top), glue("e6_l0", losses[0], ".3f"), glue("e6_l10", losses[-1], ".3f"),
      sep="")
