"""4.5 Bias directions: projecting out b-hat zeroes every projection on it, and only on it."""
import numpy as np

from esm import PALETTE, check_close, check_true, figure, shape_table, svg

rng = np.random.default_rng(45)
d = 12
g = rng.normal(0, 1, d)
g /= np.linalg.norm(g)                               # the planted gender direction
v = rng.normal(0, 1, d)
v -= (v @ g) * g
v /= np.linalg.norm(v)                               # a second direction, orthogonal to g
pairs = [("he", "she"), ("man", "woman"), ("king", "queen"), ("father", "mother"), ("boy", "girl")]
jobs = ["nurse", "engineer", "doctor", "teacher", "pilot", "librarian"]
lean = np.array([-1.0, 1.0, 0.4, -0.6, 0.9, -0.8])  # planted stereotype: + male, - female
words = [w for p in pairs for w in p] + jobs
E = rng.normal(0, 0.5, (len(words), d))
for k, (m, f) in enumerate(pairs):
    E[2 * k] += 1.5 * g
    E[2 * k + 1] -= 1.5 * g
E[len(2 * pairs):] += np.outer(lean, g) + np.outer(lean, 0.8 * v)   # stereotype leaks into v too
n = len(words)

D = np.array([E[2 * k] - E[2 * k + 1] for k in range(len(pairs))])   # he - she, man - woman, ...
b_hat = np.linalg.svd(D, full_matrices=False)[2][0]                   # first principal direction
b_hat *= np.sign(b_hat @ g)
E_deb = E - np.outer(E @ b_hat, b_hat)                                # x' = x - (x^T b) b, every row

print(shape_table({"n": n, "p": len(pairs), "d": d}, [
    ("word vectors", "E", E, "n d", "10 gendered words and 6 occupations"),
    ("pair differences", "D", D, "p d", "he - she, man - woman, ..."),
    ("bias direction", r"\hat{\mathbf b}", b_hat, "d", "top right singular vector of D, unit norm"),
    ("debiased vectors", "E'", E_deb, "n d", r"rows $\mathbf x'=\mathbf x-(\mathbf x^\top\hat{\mathbf b})\hat{\mathbf b}$"),
]))

print(check_close("b-hat is a unit vector", np.linalg.norm(b_hat), 1.0, atol=1e-12))
print(check_true("b-hat recovers the planted direction", b_hat @ g > 0.95, f"cos(b_hat, g) = {b_hat @ g:.3f}"))
P_perp = np.eye(d) - np.outer(b_hat, b_hat)                           # the same map as a matrix
print(check_close("x - (x^T b)b equals (I - b b^T) x for every row", E_deb, E @ P_perp.T, atol=1e-12,
                  eq="debias"))
print(check_close("projection of every debiased row on b-hat is 0", E_deb @ b_hat, np.zeros(n), atol=1e-12))
B = np.linalg.qr(np.column_stack([b_hat, rng.normal(0, 1, (d, d - 1))]))[0][:, 1:]  # basis of b-hat's complement
print(check_close("coordinates orthogonal to b-hat are untouched", E_deb @ B, E @ B, atol=1e-12))

J = slice(len(2 * pairs), n)
before, after = E[J] @ b_hat, E_deb[J] @ b_hat
male, female = lean > 0, lean < 0
gap_v = (E_deb[J] @ v)[male].mean() - (E_deb[J] @ v)[female].mean()
print(check_true("the occupations still separate along v, a direction that was not removed", gap_v > 0.8,
                 f"mean v-coordinate of male-leaning minus female-leaning occupations = {gap_v:.3f}"))

fig, axes = figure(1, 2, size=(7.6, 2.8), sharey=True)
x = np.arange(len(jobs))
for ax, direction, name in zip(axes, (b_hat, v), (r"on $\hat b$ (removed)", r"on $v$ (kept)")):
    ax.bar(x - 0.2, E[J] @ direction, 0.4, color=PALETTE[0], label="before")
    ax.bar(x + 0.2, E_deb[J] @ direction, 0.4, color=PALETTE[1], label="after")
    ax.axhline(0, color=PALETTE[4], lw=0.8)
    ax.set_xticks(x, jobs, rotation=40, ha="right")
    ax.set_title("projection " + name)
axes[0].legend(loc="lower right", frameon=False)
print(svg(fig, alt="Bars of each occupation's projection before and after debiasing: on the bias direction all "
          "become zero, on a second direction they stay as they were",
          caption="Occupation vectors projected on $\\hat{\\mathbf b}$ (left) and on $\\mathbf v$ (right), "
          "before and after removing $\\hat{\\mathbf b}$."))
