"""9.2 Dot product and cosine rank neighbours differently once norms differ."""
import numpy as np

from esm import check_equal, cosine, glue, table, top_k

rng = np.random.default_rng(92)
d = 8
E = rng.normal(0.0, 1.0, (6, d))
E *= np.sqrt(d) / np.linalg.norm(E, axis=1, keepdims=True)   # random directions, all of length sqrt(d)
u = E[2] / np.linalg.norm(E[2])
w = rng.normal(0.0, 1.0, d)
w -= (w @ u) * u
w /= np.linalg.norm(w)                         # a random unit direction orthogonal to row 2
E[5] = 5.0 * np.linalg.norm(E[2]) * (0.5 * u + np.sqrt(0.75) * w)   # row 5: cosine 0.5 with row 2, five times longer
q = E[2] + 0.2 * rng.normal(0.0, 1.0, d)       # a query that is a noisy copy of row 2
# Built from lengths and angles rather than from raw draws, both rankings hold in every draw (1000 seeds).

dots = E @ q
coss = np.array([cosine(q, e) for e in E])
print(table(("row", "norm", "dot with q", "cosine with q"),
            [(i, f"{np.linalg.norm(E[i]):.2f}", f"{dots[i]:.2f}", f"{coss[i]:.3f}") for i in range(len(E))]))
print(check_equal("wrong: ranking by dot product returns the large-norm row 5",
                  int(top_k(dots, 1)[0]), 5))
print(check_equal("right: ranking by cosine returns row 2, the row the query was made from",
                  int(top_k(coss, 1)[0]), 2))
norms = np.linalg.norm(E, axis=1)
print(glue("m2_ratio", norms[5] / norms[2], ".0f"), sep="")
