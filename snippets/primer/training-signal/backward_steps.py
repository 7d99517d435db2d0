"""P9 Two backward steps the training code needs, written as a reader would write them: layer
norm (inputs, gain, shift) and GELU (exact and tanh forms), each checked against central
differences and against its Jacobian written out."""
from math import erf

import numpy as np


def layer_norm_backward(dy, x, g, eps=1e-5):
    """Given dl/dy for y = LN(x) = g * xhat + b (rows of x), return dl/dx, dl/dg, dl/db."""
    mu, sd = x.mean(-1, keepdims=True), np.sqrt(x.var(-1, keepdims=True) + eps)
    xhat = (x - mu) / sd
    gh = dy * g                                                     # dl/dxhat
    dx = (gh - gh.mean(-1, keepdims=True) - xhat * (gh * xhat).mean(-1, keepdims=True)) / sd
    rows = tuple(range(dy.ndim - 1))                                # every axis but the last
    return dx, (dy * xhat).sum(rows), dy.sum(rows)


def gelu_grad(x):
    """d/dx of x Phi(x) = Phi(x) + x phi(x)."""
    Phi = 0.5 * (1 + np.vectorize(erf)(x / np.sqrt(2)))          # the standard normal CDF
    return Phi + x * np.exp(-x ** 2 / 2) / np.sqrt(2 * np.pi)


def gelu_tanh_grad(x, c=0.044715):
    """d/dx of x (1 + tanh u) / 2 with u = sqrt(2/pi) (x + c x^3)."""
    th = np.tanh(np.sqrt(2 / np.pi) * (x + c * x ** 3))
    return 0.5 * (1 + th) + 0.5 * x * (1 - th ** 2) * np.sqrt(2 / np.pi) * (1 + 3 * c * x ** 2)


# ---- Everything above needs numpy only. Below: the checks and the values the text quotes. ----
import math  # noqa: E402

from esm import (check_close, check_true, gelu, gelu_tanh, glue, layer_norm, numerical_grad)  # noqa: E402

rng = np.random.default_rng(9)
T, d = 4, 6
x = rng.normal(size=(T, d)) * 2 + 1                                # rows of non-zero mean and non-unit spread
g, b = 1 + 0.3 * rng.normal(size=d), 0.3 * rng.normal(size=d)
dy = rng.normal(size=(T, d))                                       # an upstream gradient: l = sum(dy * LN(x))
dx, dg, db = layer_norm_backward(dy, x, g)


def loss(x_, g_=g, b_=b):
    return float((dy * layer_norm(x_, g_, b_)).sum())


print(check_close("layer-norm backward dl/dx = central differences of l = sum(dy * LN(x))", dx,
                  numerical_grad(loss, x), eq="ln-backward", atol=1e-8))
print(check_close("dl/dgamma = sum over rows of dy * xhat (central differences)", dg,
                  numerical_grad(lambda v: loss(x, v), g), eq="ln-backward", atol=1e-8))
print(check_close("dl/dbeta = sum over rows of dy (central differences)", db,
                  numerical_grad(lambda v: loss(x, g, v), b), eq="ln-backward", atol=1e-8))

# Another route: the d x d Jacobian of one row, dxhat_i/dx_j = (delta_ij - 1/d - xhat_i xhat_j / d) / sigma, built
# entry by entry, then dl/dx = J^T (g * dy).
row = x[0]
sigma = math.sqrt(row.var() + 1e-5)
xh = (row - row.mean()) / sigma
J = np.array([[((i == j) - 1 / d - xh[i] * xh[j] / d) / sigma for j in range(d)] for i in range(d)])
print(check_close("row 0: dl/dx = J^T (gamma * dy) with the Jacobian written entry by entry", dx[0], J.T @ (g * dy[0]),
                  eq="ln-jacobian", atol=1e-12))
print(check_close("the gradient of every row sums to zero: a shift of the whole row changes nothing", dx.sum(-1),
                  np.zeros(T), atol=1e-12))
scale = 10.0
print(check_close(f"scaling the input row by {scale:g} divides the gradient by {scale:g} (the output does not depend "
                  "on the scale, up to eps)",
                  layer_norm_backward(dy, scale * x, g)[0] * scale, dx, atol=1e-5))

# GELU: both derivatives against central differences on a grid, and the exact one by hand at 0.
xs = np.linspace(-5, 5, 201)
h = 1e-6
print(check_close("GELU'(x) = Phi(x) + x phi(x) (central differences of x Phi(x), 201 points on [-5, 5])", gelu_grad(xs),
                  (gelu(xs + h) - gelu(xs - h)) / (2 * h), eq="gelu-grad", atol=1e-8))
print(check_close("the tanh form's derivative (central differences of GPT-2's GELU)", gelu_tanh_grad(xs),
                  (gelu_tanh(xs + h) - gelu_tanh(xs - h)) / (2 * h), eq="gelu-tanh-grad", atol=1e-8))
print(check_close("by hand: GELU'(0) = Phi(0) = 1/2", float(gelu_grad(np.array(0.0))), 0.5, atol=1e-15))

# Where the derivative peaks, and its symmetry: GELU''(x) = phi(x) (2 - x^2) vanishes at +-sqrt 2, and
# Phi(x) + Phi(-x) = 1 gives GELU'(x) + GELU'(-x) = 1.
fine = np.linspace(-6, 6, 120001)
slope = gelu_grad(fine)
peak, low = int(np.argmax(slope)), int(np.argmin(slope))
print(glue("grad_peak", float(slope[peak]), ".3f"), glue("grad_min", float(slope[low]), ".3f"))
print(check_close("the derivative peaks at x = sqrt 2, where GELU'' = phi(x) (2 - x^2) vanishes (grid of step 1e-4)",
                  float(fine[peak]), math.sqrt(2), atol=1e-4))
print(check_close("GELU'(x) + GELU'(-x) = 1 on the grid (Phi(x) + Phi(-x) = 1)", slope + slope[::-1], np.ones_like(slope),
                  atol=1e-12))
print(check_close("so its minimum, at -sqrt 2, is 1 - its maximum", float(slope[low]), 1 - float(slope[peak]), atol=1e-12))
neg = fine[slope < 0]
print(check_true("the derivative is negative on one interval, left of GELU's minimum (one sign change for x < 0)",
                 int((np.diff(np.sign(slope[fine < 0])) != 0).sum()) == 1 and neg.max() < 0,
                 f"negative for x <= {neg.max():.4f}"))
tanh_gap = float(np.abs(gelu_tanh_grad(fine) - slope).max())
print(check_true("the two forms' derivatives differ by little on [-6, 6]", tanh_gap < 1e-2, f"largest gap {tanh_gap:.2g}"))
