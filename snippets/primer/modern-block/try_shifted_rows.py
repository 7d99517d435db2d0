"""Try this: add 3 to every entry of the RMSNorm demo's rows, so that their mean is about 3.7 instead of
0.7. Layer norm subtracts the mean, so its output does not move; RMSNorm divides by sqrt(s^2 + mu^2),
so the larger mean squeezes each row's spread, s / sqrt(s^2 + mu^2), to about half."""
import numpy as np

from esm import check_close, check_less, layer_norm


def rms_norm(X, g, eps=1e-6):
    """g * x / sqrt(mean(x^2) + eps) over the last axis, as in the demo."""
    return X / np.sqrt((X * X).mean(-1, keepdims=True) + eps) * g


rng = np.random.default_rng(12)                              # the demo's rows
d, T = 48, 10
X = rng.normal(size=(T, d)) * 2 + 0.7
X_shift = X + 3.0                                            # changed: was X, rows of mean about 0.7
spread, spread_shift = rms_norm(X, 1.0, eps=0).std(-1), rms_norm(X_shift, 1.0, eps=0).std(-1)
print(f"row means {X.mean():.1f} -> {X_shift.mean():.1f}; spread of RMSNorm's rows: "
      f"{spread.min():.2f} to {spread.max():.2f} -> {spread_shift.min():.2f} to {spread_shift.max():.2f}")
print(check_close("layer norm of the shifted rows = layer norm of the rows: the centring removes the shift",
                  layer_norm(X_shift), layer_norm(X), atol=1e-12))
mu, s = X_shift.mean(-1), X_shift.std(-1)
print(check_close("each row's spread after RMSNorm (gain 1, eps 0) = s / sqrt(s^2 + mu^2), its mean and standard "
                  "deviation before", spread_shift, s / np.sqrt(s ** 2 + mu ** 2), atol=1e-12))
print(check_less("every shifted row comes out of RMSNorm with less spread than any unshifted row",
                 float(spread_shift.max()), float(spread.min()), names=("largest spread, shifted", "smallest, unshifted")))
