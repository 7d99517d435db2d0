"""Try this: in the memory exercise's (a), draw the batch's ids from a Zipf law (the k-th id with probability
proportional to 1/k) instead of uniformly. Frequent ids repeat, so the batch reads fewer than half as many distinct
rows and the row-sparse gradient shrinks with them; the count still follows the expectation sum_k 1 - (1 - p_k)^BT."""
import numpy as np

from esm import check_less, check_true

V, d, B, T = 50257, 768, 8, 1024                 # GPT-2 small's table, a batch of 8 sequences of 1,024 tokens
p = 1 / np.arange(1, V + 1)
p /= p.sum()                                     # Zipf: the k-th id (k = 1, 2, ...) with probability ~ 1/k
uniform = len(np.unique(np.random.default_rng(113).integers(0, V, size=(B, T))))
zipf = len(np.unique(np.random.default_rng(113).choice(V, size=(B, T), p=p)))  # changed: was .integers(0, V, (B, T))
expected = float(np.sum(1 - (1 - p) ** (B * T)))
print(f"    distinct rows read: uniform {uniform:,}, Zipf {zipf:,}; sparse gradient {uniform * (4 * d + 8):,} bytes, "
      f"Zipf {zipf * (4 * d + 8):,}")
print(check_less("Zipf ids read fewer than half as many distinct rows as uniform ids", zipf, uniform / 2,
                 names=("Zipf", "half of uniform")))
print(check_true("the Zipf count is within 5% of its expectation sum_k 1 - (1 - p_k)^BT",
                 abs(zipf / expected - 1) < 0.05, f"{zipf:,} against {expected:,.0f}"))
