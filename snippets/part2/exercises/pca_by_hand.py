"""Exercise: PCA of four points in the plane by hand, with and without centring."""
import numpy as np

from esm import check_close, check_true, glue

X = np.array([[2.0, 6.0], [4.0, 0.0], [0.0, 4.0], [6.0, 2.0]])
N = len(X)
mu = X.mean(0)
Xc = X - mu
# By hand: mean (3, 3); Sigma = [[5, -3], [-3, 5]]; eigenvalues 8 along (1, -1)/sqrt 2, 2 along (1, 1)/sqrt 2.
Sigma = sum(np.outer(x, x) for x in Xc) / N                               # a loop over the points
print(check_close("(a) mean and covariance, loop over the points, against the hand values",
                  np.concatenate([mu, Sigma.ravel()]), [3, 3, 5, -3, -3, 5], atol=1e-12))
lam, G = np.linalg.eigh(Sigma)
u1 = np.array([1.0, -1.0]) / np.sqrt(2)
print(check_close("(a) eigenvalues of Sigma (eigh) against 8 and 2, and Sigma u1 = 8 u1 for u1 = (1, -1)/sqrt 2",
                  np.concatenate([lam[::-1], Sigma @ u1]), np.concatenate([[8.0, 2.0], 8 * u1]), atol=1e-12))
_, D, Vt = np.linalg.svd(Xc, full_matrices=False)
print(check_close("(a) the SVD of the centred points gives the same: sigma_k^2 / N = (8, 2), first right singular "
                  "vector +-(1, -1)/sqrt 2", np.concatenate([D**2 / N, np.abs(Vt[0] @ u1) * np.ones(1)]),
                  [8.0, 2.0, 1.0], atol=1e-12))
coords = Xc @ u1
print(check_close("(a) coordinates on the first direction: -2 sqrt 2, 2 sqrt 2, -2 sqrt 2, 2 sqrt 2",
                  coords, 2 * np.sqrt(2) * np.array([-1, 1, -1, 1]), atol=1e-12))
share = lam[-1] / lam.sum()
# (a) the second coordinate in a unit half as large (doubled): Sigma becomes D Sigma D, D = diag(1, lambda).


def first_dir(lmb):
    Xs = X * np.array([1.0, lmb])                              # the points themselves, rescaled
    w, vecs = np.linalg.eigh(np.cov(Xs.T, bias=True))
    u = vecs[:, -1]
    return (u if u[0] >= 0 else -u), w[-1] / w.sum()


dir2, share2 = first_dir(2.0)
D2 = np.diag([1.0, 2.0])
print(check_close("(a) doubled second coordinate: the covariance of the rescaled points is D Sigma D = [[5, -6], [-6, 20]]",
                  np.cov((X * [1.0, 2.0]).T, bias=True), D2 @ Sigma @ D2, atol=1e-12))
lam2 = np.linalg.eigvalsh(D2 @ Sigma @ D2)[-1]
print(check_close("(a) ... its first direction (eigh of the rescaled points) satisfies (D Sigma D) u = lambda_max u, by hand "
                  "(eigenvalues (25 +- sqrt 369)/2)", [lam2, *(D2 @ Sigma @ D2 @ dir2 - lam2 * dir2)],
                  [(25 + np.sqrt(369)) / 2, 0.0, 0.0], atol=1e-12))
print(check_true("(a) ... and is not (1, -1)/sqrt 2", abs(dir2 @ u1) < 0.99, f"|u . u1| = {abs(dir2 @ u1):.3f}"))
print(check_close("(a) as lambda grows the first direction tends to the second axis (lambda = 10, 100, 1000)",
                  [abs(first_dir(l_)[0][1]) for l_ in (10.0, 100.0, 1000.0)], [1.0, 1.0, 1.0], atol=5e-3))
# (b) without centring: the first right singular vector of X, by power iteration on X^T X from (1, 0).
z = np.array([1.0, 0.0])
for _ in range(200):
    z = X.T @ (X @ z)
    z /= np.linalg.norm(z)
print(check_close("(b) uncentred: X^T X = N (Sigma + mu mu^T) = [[56, 24], [24, 56]] (hand), first direction "
                  "(1, 1)/sqrt 2 by power iteration", np.concatenate([(X.T @ X).ravel(), z]),
                  np.concatenate([[56, 24, 24, 56], np.ones(2) / np.sqrt(2)]), atol=1e-12))
print(check_close("(b) ... which is orthogonal to the centred first direction", z @ u1, 0.0, atol=1e-12))
# (b) slide the points along v = (1, 1)/sqrt 2 so that their mean is m v: the raw first direction is u1 while m^2 < 6.
v1 = np.ones(2) / np.sqrt(2)


def raw_first(m):
    Xm = Xc + m * v1                                           # the same cloud, mean m v
    return np.linalg.svd(Xm, full_matrices=False)[2][0]


ms = np.linspace(0.0, 4.0, 4001)
right = np.array([abs(raw_first(m) @ u1) > 0.5 for m in ms])
m_switch = float(ms[np.argmin(right)])                         # the first m at which the raw route turns to v
print(check_close("(b) slid along (1, 1): the raw route finds u1 up to m = sqrt 6 (scan of m in steps of 1/1000)",
                  m_switch, np.sqrt(6), atol=2e-3))
print(check_close("(b) ... because X^T X / 4 = Sigma + m^2 v v^T has eigenvalues 8 and 2 + m^2 (eigh at m = 1)",
                  np.linalg.eigvalsh((Xc + v1).T @ (Xc + v1) / N), [3.0, 8.0], atol=1e-12))
print(check_close("(b) the demo's mean (3, 3) is m = 3 sqrt 2 along v", mu @ v1, 3 * np.sqrt(2), atol=1e-12))
gap = np.linalg.norm(Xc[0] - Xc[2])
print(check_close("(c) points 0 and 2 share a coordinate on the first direction, yet lie sqrt 8 apart",
                  [coords[0] - coords[2], gap], [0.0, np.sqrt(8)], atol=1e-12))
print(glue("pca_share", share, ".0%"), glue("pca_dir2", dir2, ".2f"), glue("pca_share2", share2, ".0%"), glue("pca_coord", float(coords[1]), ".2f"),
      glue("pca_gap", float(gap), ".2f"), glue("pca_mcrit", float(np.sqrt(6)), ".3f"), glue("pca_m", float(mu @ v1), ".3f"),
      sep="")
