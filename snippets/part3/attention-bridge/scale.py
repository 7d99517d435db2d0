"""7.2 Why scores are divided by sqrt(d_k): the variance of a dot product of d_k independent
coordinates is d_k, so unscaled scores spread wider as heads get wider and the softmax saturates."""
import itertools

import numpy as np

from esm import check_close, check_equal, glue, softmax, table

# Exact: coordinates +1 or -1 with equal probability (mean 0, variance 1). Enumerate every
# query-key pair, so the variance is computed, not estimated.
rows, exact = [], []
for d_k in range(1, 7):
    signs = np.array(list(itertools.product((-1, 1), repeat=d_k)))
    dots = (signs @ signs.T).ravel()              # every q . k, each pair equally likely
    var = float(np.mean(dots.astype(float) ** 2) - np.mean(dots) ** 2)
    exact.append(var)
    rows.append((d_k, len(dots), f"{var:g}", f"{np.var(dots / np.sqrt(d_k)):g}"))
print(table(["d_k", "pairs (q, k)", "Var(q.k)", "Var(q.k / sqrt(d_k))"], rows))
print(check_equal("Var(q . k) = d_k for independent coordinates of variance 1 (all pairs enumerated, d_k = 1..6)",
                  exact, [float(d) for d in range(1, 7)]))

# The view at scale: one random query against 8 random keys, d_k = 64.
rng = np.random.default_rng(720)
d_k, T = 64, 8
q = rng.normal(size=d_k)
K = rng.normal(size=(T, d_k))
raw = K @ q
a_raw, a_scaled = softmax(raw), softmax(raw / np.sqrt(d_k))
print(table(["d_k = 64", "raw scores q.k", "softmax(q.k)", "softmax(q.k / 8)"],
            [(f"key {s}", f"{raw[s]:.1f}", f"{a_raw[s]:.4f}", f"{a_scaled[s]:.3f}") for s in range(T)]))
print(check_close("scaled weights equal softmax of the scores divided by sqrt(d_k), by a loop",
                  a_scaled, [np.exp(x / d_k ** 0.5) / sum(np.exp(y / d_k ** 0.5) for y in raw) for x in raw], atol=1e-12,
                  eq="soft-lookup"))
print(glue("sc_dk", d_k), glue("sc_T", T), glue("sc_sd", float(np.std(raw)), ".1f"), glue("sc_sqrt", int(round(d_k ** 0.5))),
      glue("sc_max_raw", a_raw.max(), ".3f"), glue("sc_max_scaled", a_scaled.max(), ".2f"), sep="")
