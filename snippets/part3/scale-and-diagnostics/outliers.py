"""8.4 Outlier and special tokens: norm z-scores flag the odd rows; the padding row stays zero
because no gradient reaches it."""
import numpy as np

from esm import check_close, check_equal, shape_table, table

rng = np.random.default_rng(84)
V, d, PAD = 500, 32, 0
E = rng.normal(0.0, 1.0, (V, d)) / np.sqrt(d) * 3.0
E[PAD] = 0.0                                   # padding row initialised to zero
loud = [101, 202, 303]                         # rows blown up (e.g. a glitch token trained badly)
E[loud] *= 3.0
dead = [450]                                   # a row never updated since a tiny initialisation
E[dead] *= 0.05

norms = np.linalg.norm(E, axis=1)
real_rows = np.arange(V) != PAD                # the padding row is special: leave it out of the stats
m, sd = norms[real_rows].mean(), norms[real_rows].std()
z = (norms - m) / sd
flagged = sorted(int(i) for i in np.where(real_rows & (np.abs(z) > 3.0))[0])

# Independent z-scores: mean and standard deviation by explicit sums.
vals = [float(np.sqrt(sum(x * x for x in E[i]))) for i in range(1, V)]
mean_loop = sum(vals) / len(vals)
sd_loop = (sum((v - mean_loop) ** 2 for v in vals) / len(vals)) ** 0.5
print(check_close("z_i = (n_i - mean) / std, with mean and std by explicit sums",
                  z[1:], [(v - mean_loop) / sd_loop for v in vals], atol=1e-10, eq="zscore"))
print(check_equal("|z| > 3 flags exactly the three loud rows and the dead one", flagged,
                  sorted(loud + dead)))
print(table(("row", "norm", "z-score", "what it is"),
            [(i, f"{norms[i]:.2f}", f"{z[i]:+.2f}", "planted loud row" if i in loud else "planted dead row")
             for i in flagged] + [("median row", f"{np.median(norms[real_rows]):.2f}", f"{np.median(z[real_rows]):+.2f}", "typical")]))

# Padding. A batch of two sequences, the second padded; the loss reads only real positions.
ids = np.array([[5, 17, 17, 9], [42, 8, PAD, PAD]])
mask = (ids != PAD).astype(float)
B, T = ids.shape
w = rng.normal(0.0, 0.3, d)                    # a linear read-out standing in for the model
X = E[ids]

def loss(table_):
    Xs = table_[ids]
    return float(np.sum(mask * np.tanh(Xs @ w)) / mask.sum())

# Gradient of the loss with respect to each position's vector, then summed into rows.
G = (mask * (1 - np.tanh(X @ w) ** 2))[..., None] * w / mask.sum()      # (B, T, d)
grad_E = np.zeros_like(E)
np.add.at(grad_E, ids, G)                      # row v gets the sum over positions with i_t = v

print(shape_table({"B": B, "T": T, "d": d, "V": V}, [
    ("ids with padding", r"\mathbf i", ids, "B T", f"pad id {PAD}"),
    ("mask", "M", mask, "B T", "1 on real tokens"),
    ("position gradients", r"\partial\ell/\partial X", G, "B T d", "zero at padded positions"),
    ("table gradient", r"\partial\ell/\partial E", grad_E, "V d", "non-zero only on rows used"),
]))
eps, v, j = 1e-6, 17, 3                         # row 17 is used twice: its gradient is a sum
Ep, Em = E.copy(), E.copy(); Ep[v, j] += eps; Em[v, j] -= eps
print(check_close("row 17 (used at two positions): summed gradient equals finite differences",
                  grad_E[v, j], (loss(Ep) - loss(Em)) / (2 * eps), atol=1e-8, eq="row-grad"))
print(check_close("the padding row gets a zero gradient (its positions are masked)",
                  grad_E[PAD], np.zeros(d), atol=0.0))
E_after = E - 0.5 * grad_E
print(check_close("after an SGD step the padding row is still all zeros", E_after[PAD], np.zeros(d),
                  atol=0.0))
print(check_close("a row that no position uses (row 300) does not move either", E_after[300], E[300],
                  atol=0.0))
