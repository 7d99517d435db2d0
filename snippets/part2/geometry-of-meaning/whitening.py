"""4.4 Centering and whitening: the covariance becomes the identity, and neighbours change."""
import numpy as np

from esm import PALETTE, check_close, check_less, check_true, cosine_matrix, figure, shape_table, svg, top_k

rng = np.random.default_rng(44)
n, d = 200, 8
scales = np.array([6.0, 3.0, 1.5, 1.0, 1.0, 0.8, 0.6, 0.5])       # a few dominant axes
R, _ = np.linalg.qr(rng.normal(0, 1, (d, d)))                       # at a random orientation
mu = 4.0 * R[:, 0] + 3.0 * R[:, 3]                                  # and a large common offset
X = rng.normal(0, 1, (n, d)) * scales @ R.T + mu

mean = X.mean(axis=0)
Xc = X - mean                                     # centred rows
Sigma = Xc.T @ Xc / n                             # covariance (1/n convention)
lam, Q = np.linalg.eigh(Sigma)
S_inv_half = Q @ np.diag(lam ** -0.5) @ Q.T       # Sigma^{-1/2}, symmetric
Xw = Xc @ S_inv_half                              # row t is Sigma^{-1/2}(x_t - mu) (S is symmetric)

print(shape_table({"n": n, "d": d}, [
    ("vectors", "X", X, "n d", "anisotropic cloud with a common offset"),
    ("mean row", r"\boldsymbol\mu", mean, "d", "subtracted by centering"),
    ("covariance", r"\Sigma", Sigma, "d d", r"$\frac1n\sum_t(\mathbf x_t-\boldsymbol\mu)(\mathbf x_t-\boldsymbol\mu)^\top$"),
    ("whitening map", r"\Sigma^{-1/2}", S_inv_half, "d d", "symmetric inverse square root"),
    ("whitened vectors", r"\tilde X", Xw, "n d", "covariance I"),
]))

cov_w = np.zeros((d, d))                          # covariance of the whitened rows, by a loop
for row in Xw:
    cov_w += np.outer(row, row) / n
print(check_close("covariance of the whitened rows (loop over rows) = I", cov_w, np.eye(d),
                  atol=1e-10, eq="whitening"))
print(check_close("Sigma^{-1/2} Sigma^{-1/2} Sigma = I", S_inv_half @ S_inv_half @ Sigma, np.eye(d), atol=1e-10))
print(check_close("centred rows have mean 0", Xc.mean(axis=0), np.zeros(d), atol=1e-12))


def neighbours(Y, k=5):
    """Each row's k nearest rows by cosine (itself excluded), as sets."""
    C = cosine_matrix(Y)
    return [set(top_k(C[i], k, exclude=[i]).tolist()) for i in range(len(Y))]


def mean_cos(Y):
    C = cosine_matrix(Y)
    return (C.sum() - n) / (n * (n - 1))


raw, cen, whi = neighbours(X), neighbours(Xc), neighbours(Xw)
kept_c = np.mean([len(a & b) for a, b in zip(raw, cen)])
kept_w = np.mean([len(a & b) for a, b in zip(cen, whi)])
print(check_less("mean pairwise cosine after centering < before", mean_cos(Xc), mean_cos(X),
                 names=("centred", "raw")))
print(check_true("cosine neighbours change: of 5 neighbours per row, how many survive each step",
                 kept_c < 4 and kept_w < 4,
                 f"raw -> centred keeps {kept_c:.2f} of 5 on average, centred -> whitened keeps {kept_w:.2f}; "
                 f"row 0: raw {sorted(raw[0])}, centred {sorted(cen[0])}, whitened {sorted(whi[0])}"))

fig, axes = figure(1, 3, size=(7.2, 2.6))
for ax, Y, title in zip(axes, (X, Xc, Xw), ("raw", "centred", "whitened")):
    P2 = Y @ R[:, [0, 3]]                          # the axis with sd 6 and one with sd 1; mu lies in this plane
    ax.scatter(P2[:, 0], P2[:, 1], s=6, color=PALETTE[0], alpha=0.6)
    ax.scatter([0], [0], s=60, marker="+", color=PALETTE[1], linewidths=2)
    ax.set_title(title)
    ax.set_aspect("equal", adjustable="datalim")
for ax in axes[:2]:
    ax.set_xlim(-16, 20)
print(svg(fig, alt="Three scatter plots of the same cloud: raw, a long ellipse off the origin; centred, the same "
          "ellipse around the origin; whitened, a round blob", caption="The cloud in the plane of its largest axis "
          "and the offset; the cross marks the origin, from which cosines are measured."))
