"""9.7 A shared direction makes every cosine large and hides the true neighbours."""
import numpy as np

from esm import check_less, check_true, cosine_matrix, glue, mean_pairwise_cosine, table, top_k

rng = np.random.default_rng(97)
n, d = 200, 16
base = rng.normal(0.0, 1.0, (n // 2, d))
X = np.vstack([base, base + 0.5 * rng.normal(0.0, 1.0, base.shape)])   # row i and i+100 are pairs
scale = rng.uniform(0.25, 2.5, (n, 1))                                 # mixed norms
offset = 14.0 * rng.normal(0.0, 1.0, d)                                # the planted common offset
# These sizes keep every check below true with a margin in each of 500 draws (raw partner rate at most
# 0.765, centred at least 0.945); with pair noise 0.6, norms 0.5..2 and offset 8 the raw rate reached 0.805.
X = X * scale + offset

def nn_accuracy(M):
    C = cosine_matrix(M)
    partner = (np.arange(n) + n // 2) % n
    return float(np.mean([top_k(C[i], 1, exclude=[i])[0] == partner[i] for i in range(n)]))

Xc = X - X.mean(0)
print(table(("rows", "mean pairwise cosine", "partner is the nearest row"),
            [("raw", f"{mean_pairwise_cosine(X):.3f}", f"{nn_accuracy(X):.0%}"),
             ("centred", f"{mean_pairwise_cosine(Xc):.3f}", f"{nn_accuracy(Xc):.1%}")]))
print(check_less("wrong: on raw rows every cosine is large (mean above 0.9)", 0.9, mean_pairwise_cosine(X),
                 names=("0.9", "mean cosine")))
print(check_less("wrong: and the raw nearest row misses many partners", nn_accuracy(X), 0.8,
                 names=("partner found", "0.8")))
print(check_less("right: centring first finds almost every partner", 0.9, nn_accuracy(Xc),
                 names=("0.9", "partner found")))
# (Centred rows sum to zero by construction; what shows the direction is gone is each row's cosine with the
# planted offset, which the centring never saw.)
u_off = offset / np.linalg.norm(offset)
cos_off = {name: float(np.mean(np.abs(M @ u_off) / np.linalg.norm(M, axis=1))) for name, M in (("raw", X), ("centred", Xc))}
print(check_true("after centring, the rows no longer point along the planted offset: mean |cos(row, offset)| "
                 "above 0.9 raw, below 0.3 centred (random directions in d = 16: about 0.2)",
                 cos_off["raw"] > 0.9 and cos_off["centred"] < 0.3,
                 f"raw {cos_off['raw']:.3f}, centred {cos_off['centred']:.3f}"))
print(glue("m7_raw", mean_pairwise_cosine(X), ".3f"),
      glue("m7_raw_acc", nn_accuracy(X), ".0%"), glue("m7_cen", mean_pairwise_cosine(Xc), "+.3f"),
      glue("m7_cen_acc", nn_accuracy(Xc), ".1%"), sep="")
