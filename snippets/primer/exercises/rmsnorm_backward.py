"""Exercise: RMSNorm's backward pass, derived, written in numpy and checked against central
differences and against its Jacobian written entry by entry; what it keeps of layer norm's
backward (orthogonal to the row) and what it loses (the zero row sum)."""
import numpy as np


def rmsnorm(x, gamma, eps=1e-5):
    return gamma * x / np.sqrt((x ** 2).mean(-1, keepdims=True) + eps)


def rmsnorm_backward(dy, x, gamma, eps=1e-5):
    """Given dl/dy for y = gamma * x / r, r = sqrt(mean(x^2) + eps), return dl/dx and dl/dgamma."""
    r = np.sqrt((x ** 2).mean(-1, keepdims=True) + eps)
    xhat = x / r
    gh = dy * gamma                                                # dl/dxhat
    dx = (gh - xhat * (gh * xhat).mean(-1, keepdims=True)) / r
    return dx, (dy * xhat).sum(tuple(range(dy.ndim - 1)))


# ---- Below: the checks and the values the solution quotes. ----
import math  # noqa: E402

from esm import check_close, check_true, glue, numerical_grad  # noqa: E402

rng = np.random.default_rng(28)
T, d = 4, 6
x = rng.normal(size=(T, d)) * 2 + 1
gamma = 1 + 0.3 * rng.normal(size=d)
dy = rng.normal(size=(T, d))
dx, dgamma = rmsnorm_backward(dy, x, gamma)


def loss(x_, gamma_=gamma):
    return float((dy * rmsnorm(x_, gamma_)).sum())


print(check_close("(b) dl/dx = (gamma*dy - xhat mean(gamma*dy*xhat)) / r, against central differences", dx,
                  numerical_grad(loss, x), atol=1e-8))
print(check_close("(b) dl/dgamma = sum over rows of dy * xhat, against central differences", dgamma,
                  numerical_grad(lambda v: loss(x, v), gamma), atol=1e-8))
row = x[0]
r0 = math.sqrt(float((row ** 2).mean()) + 1e-5)
J = np.array([[((i == j) - (row[i] / r0) * (row[j] / r0) / d) / r0 for j in range(d)] for i in range(d)])
print(check_close("(a) row 0: the Jacobian (delta_ij - xhat_i xhat_j / d) / r, entry by entry, gives the same dl/dx",
                  dx[0], J.T @ (gamma * dy[0]), atol=1e-12))
sums = np.abs(dx.sum(-1))
along = np.abs((dx * x).sum(-1)) / (np.linalg.norm(dx, axis=-1) * np.linalg.norm(x, axis=-1))
print(glue("rn_sum", float(sums.max()), ".2f"))
print(check_true("(c) the rows of dl/dx do not sum to zero (RMSNorm does not remove the mean)", sums.max() > 0.1,
                 f"largest |row sum| {sums.max():.3g}"))
print(check_true("(c) but each row of dl/dx is orthogonal to its row of x, up to eps (cosine below 1e-5)",
                 along.max() < 1e-5, f"largest |cosine| {along.max():.2g}"))
