"""Exercise: mean pairwise cosine before and after centring, for the seed shown and over
50 seeds."""
import numpy as np

from esm import check_close, check_equal, cosine, glue, mean_pairwise_cosine, shape_table, share_of_seeds

N, d, MU = 50, 10, 1.5


def rows(seed):
    X = np.random.default_rng(seed).normal(0.0, 1.0, (N, d)) + MU
    return X, X - X.mean(0)


def mean_cos_loop(M):
    vals = [cosine(M[i], M[j]) for i in range(len(M)) for j in range(len(M)) if i != j]
    return sum(vals) / len(vals)


SEED = 105
X, Xc = rows(SEED)
mu = np.full(d, MU)
print(shape_table({"N": N, "d": d}, [("rows", "X", X, "N d", f"shared mean ({MU:g}, ..., {MU:g})"),
                                     ("centred", "X_c", Xc, "N d", "column means removed")]))
before, after = mean_pairwise_cosine(X), mean_pairwise_cosine(Xc)
print(check_close("(b) before centring: closed form equals the pair loop", before, mean_cos_loop(X), atol=1e-12))
print(check_close("(b) after centring: closed form equals the pair loop", after, mean_cos_loop(Xc), atol=1e-12))
rough = float(mu @ mu / (mu @ mu + d))
seeds = range(SEED, SEED + 50)
stats = [(mean_pairwise_cosine(A), mean_pairwise_cosine(Ac)) for A, Ac in (rows(s) for s in seeds)]
above = share_of_seeds(lambda k: stats[k - SEED][0] > 0.5, seeds)
# Centred rows sum to zero, so the sum of their unit vectors is small: the mean cosine of N
# centred rows of equal norm would be exactly -1/(N-1); with unequal norms it scatters around it.
spread = max(abs(s[1] + 1 / (N - 1)) for s in stats)
print(check_equal("(c) over 50 seeds the raw mean cosine is above 1/2 every time", above, 1.0))
print(glue("e5_N", N), glue("e5_d", d), glue("e5_mu", MU, "g"), glue("e5_before", before, ".3f"),
      glue("e5_after", after, "+.4f"), glue("e5_rough", rough, ".3f"), glue("e5_mu2", float(mu @ mu), "g"),
      glue("e5_ref", -1 / (N - 1), ".4f"), glue("e5_lo", min(s[0] for s in stats), ".3f"),
      glue("e5_hi", max(s[0] for s in stats), ".3f"), 
      glue("e5_after_lo", min(s[1] for s in stats), "+.3f"), glue("e5_after_hi", max(s[1] for s in stats), "+.3f"),
      sep="")
