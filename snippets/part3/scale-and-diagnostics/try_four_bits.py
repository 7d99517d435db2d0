"""Try this: quantize the demo's table to 4-bit codes, -7 to 7, instead of int8's -127 to 127. Every entry still
misses by at most half its row's step, but the step is 127/7 times larger, and the cosine a row loses,
1 - cos, grows about with its square: some (127/7)^2 = 329 times."""
import numpy as np

from esm import check_less, check_true

rng = np.random.default_rng(82)
V, d = 1000, 64
size = np.exp(rng.normal(0.0, 0.5, (V, 1)))
E = rng.normal(0.0, 1.0, (V, d)) * size / np.sqrt(d)


def quantize_rows(X, top):
    """Per-row symmetric codes in -top..top; returns the dequantised rows and the steps kappa_i."""
    s = np.abs(X).max(axis=1, keepdims=True) / top
    return np.round(X / s) * s, s


def cos_lost(X_hat):
    return 1 - np.sum(E * X_hat, 1) / (np.linalg.norm(E, axis=1) * np.linalg.norm(X_hat, axis=1))


E8, _ = quantize_rows(E, 127)
E4, s4 = quantize_rows(E, 7)                     # changed: was 127 (int8)
print(f"    mean 1 - cos over the rows: int8 {cos_lost(E8).mean():.2e}, 4 bits {cos_lost(E4).mean():.2e}; "
      f"smallest cosine with 4 bits {1 - cos_lost(E4).max():.3f}")
print(check_less("4 bits: every entry still misses by at most half its row's step", np.max(np.abs(E - E4) / s4),
                 0.5 + 1e-12, names=("max |E_ij - x_hat_ij| / kappa_i", "1/2 (+1e-12)")))
ratio = cos_lost(E4).mean() / cos_lost(E8).mean()
print(check_true("mean 1 - cos grows (127/7)^2 = 329 times, to within 10%", abs(ratio / (127 / 7) ** 2 - 1) < 0.1,
                 f"{ratio:.0f} times"))
