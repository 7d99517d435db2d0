"""Try this: divide the scores by d_k instead of by its square root: the scores then spread only about
1/sqrt(d_k) wide, and every query spreads its weight almost evenly over the 16 keys, so attention no longer
picks out any key. The square root is the power that keeps the spread near 1 at any width."""
import math

import numpy as np

from esm import check_close, check_true, softmax

rng = np.random.default_rng(4)
rng.normal(size=5)                                  # the page draws five scores for its Jacobian first
d_k, T, m = 512, 16, 500
Q, K = rng.normal(size=(m, d_k)), rng.normal(size=(T, d_k))

scaled = Q @ K.T / math.sqrt(d_k)                   # the page's scaling, for comparison
S = Q @ K.T / d_k                                   # changed: was Q @ K.T / math.sqrt(d_k)
A, A_page = softmax(S), softmax(scaled)
print(f"std of scores {S.std():.3f} (with the square root: {scaled.std():.2f}); largest weight of any query "
      f"{A.max():.3f} (with the square root: {A_page.max():.2f}); uniform 1/{T} = {1 / T:.4f}")
print(check_close("the scores now spread about 1/sqrt(d_k) wide", S.std(), 1 / math.sqrt(d_k), rtol=0.1, atol=0.0))
print(check_true(f"no query gives any of the {T} keys a weight above 0.1", A.max() < 0.1,
                 f"largest weight over all {m} queries {A.max():.4f}"))
print(check_true("on average the largest weight is within 20% of the uniform 1/16", A.max(axis=1).mean() < 1.2 / T,
                 f"mean largest weight {A.max(axis=1).mean():.4f} < {1.2 / T:.4f}"))
