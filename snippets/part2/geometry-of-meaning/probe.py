"""4.2 Subspaces and probes: a logistic probe finds a planted feature; a projector removes it."""
import math

import numpy as np

from esm import check_close, check_less, check_true, cosine, shape_table, sigmoid

rng = np.random.default_rng(42)
n, d, k = 400, 16, 2
u = rng.normal(0, 1, d)
u /= np.linalg.norm(u)                            # the planted feature direction
y = rng.integers(0, 2, n)                         # a binary property of each token
X = rng.normal(0, 1, (n, d)) + np.outer(1.2 * (2 * y - 1), u)
train, test = slice(0, 300), slice(300, n)


def fit_probe(X, y, steps=300, lr=0.5):
    """Logistic regression by full-batch gradient descent on the mean log-loss."""
    w, b = np.zeros(X.shape[1]), 0.0
    for _ in range(steps):
        r = sigmoid(X @ w + b) - y                # d loss / d logit, one per example
        w -= lr * X.T @ r / len(y)
        b -= lr * r.mean()
    return w, b


def accuracy(w, b, X, y):
    return float(np.mean((sigmoid(X @ w + b) > 0.5) == y))


w, b = fit_probe(X[train], y[train])
p_hat = sigmoid(X[test] @ w + b)
acc = accuracy(w, b, X[test], y[test])

U, _ = np.linalg.qr(np.column_stack([u, rng.normal(0, 1, d)]))   # orthonormal basis, k = 2
P = U @ U.T                                       # projector onto span(U)
X_removed = X - X @ P                             # every row minus its part in the subspace

print(shape_table({"n": n, "d": d, "k": k, "m": n - 300}, [
    ("token vectors", "X", X, "n d", "one row per example, planted feature along u"),
    ("probe weights", r"\mathbf w", w, "d", "fitted on the first 300 rows"),
    ("probe outputs", r"\hat{\mathbf y}", p_hat, "m", "probability of the property, held-out rows"),
    ("subspace basis", "U", U, "d k", "orthonormal columns; the first spans u"),
    ("projector", r"UU^\top", P, "d d", "symmetric, idempotent, rank k"),
]))

loop = np.array([1.0 / (1.0 + math.exp(-(float(np.dot(w, x)) + b))) for x in X[test]])
print(check_close("probe output sigma(w^T x + b) vs math.exp in a loop", p_hat, loop,
                  atol=1e-12, eq="probe"))
bayes = 0.5 * (1 + math.erf(1.2 / math.sqrt(2)))   # best possible: Phi(margin / noise std)
print(check_close("held-out accuracy of the probe vs the Bayes rate Phi(1.2)", acc, bayes, atol=0.05))
print(check_true("the probe's weight vector points along the planted direction",
                 abs(cosine(w, u)) > 0.9, f"|cos(w, u)| = {abs(cosine(w, u)):.3f}"))

x = X[0]
by_loop = sum(float(U[:, j] @ x) * U[:, j] for j in range(k))
print(check_close("UU^T x = sum_j (u_j^T x) u_j", P @ x, by_loop, atol=1e-12, eq="projector"))
print(check_close("P is idempotent: P P = P", P @ P, P, atol=1e-12))
print(check_close("trace P = k (the rank of the subspace)", np.trace(P), k, atol=1e-12))

w2, b2 = fit_probe(X_removed[train], y[train])
acc2 = accuracy(w2, b2, X_removed[test], y[test])
print(check_less("after projecting the subspace out, a retrained probe is near chance", acc2, 0.65,
                 names=("accuracy", "bound")))
