"""Exercise: SwiGLU's backward pass, derived, written in numpy and checked against central
differences; the derivative of SiLU, which (unlike ReLU's) rises above 1 and dips below 0, its
extremes found from the derivative's own derivative and checked on a fine grid."""
import numpy as np


def silu(z):
    return z / (1 + np.exp(-z))


def swiglu(x, W1, W3, W2):
    return (silu(x @ W1) * (x @ W3)) @ W2


def swiglu_backward(dy, x, W1, W3, W2):
    """Given dl/dy for y = (SiLU(x W1) * (x W3)) W2, return dl/dx, dl/dW1, dl/dW3, dl/dW2."""
    a, b = x @ W1, x @ W3
    s = 1 / (1 + np.exp(-a))
    h = a * s * b                                              # the hidden layer
    dh = dy @ W2.T
    da = dh * b * s * (1 + a * (1 - s))                        # SiLU'(a) = s (1 + a (1 - s))
    db = dh * a * s
    flat = (lambda M: M.reshape(-1, M.shape[-1]))
    dW2 = flat(h).T @ flat(dy)
    dW1, dW3 = flat(x).T @ flat(da), flat(x).T @ flat(db)
    return da @ W1.T + db @ W3.T, dW1, dW3, dW2


# ---- Below: the checks and the values the solution quotes. ----
import math  # noqa: E402

from esm import check_close, check_less, glue, numerical_grad  # noqa: E402

rng = np.random.default_rng(37)
B, T, d, f = 2, 3, 4, 6
x = rng.normal(size=(B, T, d))
W1, W3, W2 = rng.normal(size=(d, f)), rng.normal(size=(d, f)), rng.normal(size=(f, d))
dy = rng.normal(size=(B, T, d))
grads = swiglu_backward(dy, x, W1, W3, W2)
args = [x, W1, W3, W2]
for i, name in enumerate(("x", "W1", "W3", "W2")):
    def loss(v, i=i):
        return float((dy * swiglu(*(v if j == i else a for j, a in enumerate(args)))).sum())
    print(check_close(f"(b) dl/d{name} against central differences of l = sum(dy * SwiGLU(x))", grads[i],
                      numerical_grad(loss, args[i]), atol=1e-7))

# (c) SiLU'(z) = s(1 + z(1 - s)); its derivative s(1 - s)(2 + z(1 - 2s)) vanishes where z (2s - 1) = 2.
# Newton's method on F(z) = z tanh(z/2) - 2 (since 2s - 1 = tanh(z/2)), from z = 2.
z = 2.0
for _ in range(30):
    t = math.tanh(z / 2)
    z -= (z * t - 2) / (t + z * (1 - t * t) / 2)
s = 1 / (1 + math.exp(-z))
peak = s * (1 + z * (1 - s))
grid = np.linspace(-10, 10, 2_000_001)
sg = 1 / (1 + np.exp(-grid))
dsilu = sg * (1 + grid * (1 - sg))
print(check_close("(c) SiLU' by its formula = central differences of SiLU, on the grid", dsilu[::1000],
                  (silu(grid[::1000] + 1e-6) - silu(grid[::1000] - 1e-6)) / 2e-6, atol=1e-8))
print(check_close("(c) the largest SiLU' on a grid of step 1e-5 over [-10, 10] = its value at the root z*", float(dsilu.max()),
                  peak, atol=1e-9))
print(check_close("(c) ... at the grid point nearest z*", float(grid[np.argmax(dsilu)]), z, atol=1e-5))
print(check_close("(c) the smallest SiLU' = 1 - (the largest), at -z*", float(dsilu.min()), 1 - peak, atol=1e-9))
print(check_less("(c) SiLU' rises above 1", 1.0, peak, names=("1", "largest")))
print(glue("sw_z", z, ".3f"), glue("sw_peak", peak, ".3f"), glue("sw_dip", 1 - peak, ".3f"))
