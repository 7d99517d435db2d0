"""Exercise 10.5: mean pairwise cosine before and after centring."""
import numpy as np

from esm import check_close, check_less, cosine, mean_pairwise_cosine, shape_table

rng = np.random.default_rng(105)
n, d = 50, 10
mu = np.full(d, 1.5)
X = rng.normal(0.0, 1.0, (n, d)) + mu
Xc = X - X.mean(0)

def mean_cos_loop(M):
    vals = [cosine(M[i], M[j]) for i in range(len(M)) for j in range(len(M)) if i != j]
    return sum(vals) / len(vals)

print(shape_table({"n": n, "d": d}, [("rows", "X", X, "n d", "shared mean (1.5, ..., 1.5)"),
                                     ("centred", "X_c", Xc, "n d", "column means removed")]))
before, after = mean_pairwise_cosine(X), mean_pairwise_cosine(Xc)
print(check_close("(b) before centring: closed form equals the pair loop", before, mean_cos_loop(X), atol=1e-12))
print(check_close("(b) after centring: closed form equals the pair loop", after, mean_cos_loop(Xc), atol=1e-12))
print(check_less("(b) centring brings the mean cosine near zero", abs(after), 0.05,
                 names=("|after|", "0.05")))
# Expected raw value: |mu|^2 / (|mu|^2 + d) for Gaussian rows, roughly.
print(f"\nbefore {before:.3f} (rough expectation |mu|^2/(|mu|^2+d) = {mu @ mu / (mu @ mu + d):.3f}); "
      f"after {after:.4f}.")
