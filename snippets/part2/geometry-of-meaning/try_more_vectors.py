"""Try this: fit 4.2's probe on random labels with ten times as many vectors as dimensions
(n_small = d to 10 * d), and it can no longer score perfectly on its own training vectors: a
hyperplane no longer fits every random labelling, and held-out accuracy stays at chance."""
import numpy as np

from esm import check_less, check_true, sigmoid, table

rng = np.random.default_rng(42)
d, n_test = 16, 100
n_small = 10 * d                                  # changed: was n_small = d


def fit_probe(X, y, steps=2000, lr=0.5):
    """Logistic regression by full-batch gradient descent on the mean log-loss (the demo's)."""
    beta, b = np.zeros(X.shape[1]), 0.0
    for _ in range(steps):
        r = sigmoid(X @ beta + b) - y
        beta -= lr * X.T @ r / len(y)
        b -= lr * r.mean()
    return beta, b


def accuracy(beta, b, X, y):
    return float(np.mean((sigmoid(X @ beta + b) > 0.5) == y))


Xr, yr = rng.normal(0, 1, (n_small + n_test, d)), rng.integers(0, 2, n_small + n_test)   # random labels
beta_r, b_r = fit_probe(Xr[:n_small], yr[:n_small])
fit_acc = accuracy(beta_r, b_r, Xr[:n_small], yr[:n_small])
held_acc = accuracy(beta_r, b_r, Xr[n_small:], yr[n_small:])

print(table(("vectors", "accuracy"), [(f"{n_small} training vectors (their own random labels)", f"{fit_acc:.2f}"),
                                      (f"{n_test} held-out vectors", f"{held_acc:.2f}")]))
print(check_less(f"with {n_small} training vectors in d = {d} the probe no longer fits random labels: its training "
                 "accuracy is below 0.85", fit_acc, 0.85, names=("training accuracy", "0.85")))
print(check_true("held-out accuracy stays near chance (within 0.2 of 0.5)", abs(held_acc - 0.5) < 0.2,
                 f"held-out accuracy {held_acc:.2f}"))
