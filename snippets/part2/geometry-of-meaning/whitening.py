"""4.4 Centering and whitening: the covariance becomes the identity, and neighbours change."""
import numpy as np

from esm import (PALETTE, check_close, check_equal, check_less, check_true, cosine_matrix, figure, glue,
                 normalize_rows, shape_table, svg, top_k)

rng = np.random.default_rng(44)
N, d, k_nn = 200, 8, 5
scales = np.array([6.0, 3.0, 1.5, 1.0, 1.0, 0.8, 0.6, 0.5])       # a few dominant axes
R, _ = np.linalg.qr(rng.normal(0, 1, (d, d)))                       # at a random orientation
mu = 4.0 * R[:, 0] + 3.0 * R[:, 3]                                  # and a large common offset
X = rng.normal(0, 1, (N, d)) * scales @ R.T + mu

mean = X.mean(axis=0)
Xc = X - mean                                     # centred rows
Sigma = Xc.T @ Xc / N                             # covariance (1/N convention)
lam, Q = np.linalg.eigh(Sigma)
S_inv_half = Q @ np.diag(lam ** -0.5) @ Q.T       # Sigma^{-1/2}, symmetric
Xw = Xc @ S_inv_half                              # row i is Sigma^{-1/2}(x_i - mu) (S is symmetric)

print(shape_table({"N": N, "d": d}, [
    ("vectors", "X", X, "N d", "anisotropic cloud with a common offset"),
    ("mean row", r"\boldsymbol\mu", mean, "d", "subtracted by centering"),
    ("covariance", r"\Sigma", Sigma, "d d", r"$\frac1N\sum_i(\mathbf x_i-\boldsymbol\mu)(\mathbf x_i-\boldsymbol\mu)^\top$"),
    ("whitening map", r"\Sigma^{-1/2}", S_inv_half, "d d", "symmetric inverse square root"),
    ("whitened vectors", r"\tilde X", Xw, "N d", "covariance I"),
]))
print(glue("d_wh", d), glue("sd_max", scales.max(), ".0f"), glue("sd_min", scales.min(), ".1f"))

cov_w = np.zeros((d, d))                          # covariance of the whitened rows, by a loop
for row in Xw:
    cov_w += np.outer(row, row) / N
cov_err = np.abs(cov_w - np.eye(d)).max()
print(check_close("covariance of the whitened rows (loop over rows) = I", cov_w, np.eye(d),
                  atol=1e-10, eq="whitening"))
print(check_close("Sigma^{-1/2} Sigma^{-1/2} Sigma = I", S_inv_half @ S_inv_half @ Sigma, np.eye(d), atol=1e-10))


_, sig, Vct = np.linalg.svd(Xc, full_matrices=False)           # 4.4's SVD of the centred rows
print(check_close("sigma^2/N = eigenvalues, |V_c^T Gamma| = I", np.vstack([sig**2 / N, abs(Vct @ Q[:, ::-1])]),
                  np.vstack([lam[::-1], np.eye(d)]), atol=1e-8, eq="pca-svd"))

def neighbours(Y, k=k_nn):
    """Each row's k nearest rows by cosine (itself excluded), as sets."""
    C = cosine_matrix(Y)
    return [set(top_k(C[i], k, exclude=[i]).tolist()) for i in range(len(Y))]


def mean_cos(Y):
    C = cosine_matrix(Y)
    return (C.sum() - N) / (N * (N - 1))


raw, cen, whi = neighbours(X), neighbours(Xc), neighbours(Xw)
kept_c = np.mean([len(a & b) for a, b in zip(raw, cen)])
kept_w = np.mean([len(a & b) for a, b in zip(raw, whi)])   # both measured against the raw neighbours
print(check_less("mean pairwise cosine after centering < before", mean_cos(Xc), mean_cos(X),
                 names=("centred", "raw")))
print(check_true(f"cosine neighbours change: of the {k_nn} raw neighbours per row, fewer than 4 on average are still "
                 "neighbours after centring, and after whitening",
                 kept_c < 4 and kept_w < 4,
                 f"raw -> centred keeps {kept_c:.2f} of {k_nn} on average, raw -> whitened keeps {kept_w:.2f}; "
                 f"row 0: raw {sorted(raw[0])}, centred {sorted(cen[0])}, whitened {sorted(whi[0])}"))
print(glue("cos_raw", mean_cos(X), ".3f"), glue("cos_cen", mean_cos(Xc), ".3f"), glue("k_nn", k_nn),
      glue("kept_c", kept_c, ".2f"), glue("kept_w", kept_w, ".2f"))

# Non-example: unit-length rows. Mean and covariance change, cosines do not.
U = normalize_rows(X)
mean_u, Sigma_u = U.mean(axis=0), (U - U.mean(axis=0)).T @ (U - U.mean(axis=0)) / N
Su = U.sum(axis=0)
lengths = np.sqrt((X * X).sum(axis=1))
print(check_close(f"unit rows keep every cosine: all {N}x{N} dot products of the unit rows vs the raw rows' "
                  "dot products divided by both lengths", U @ U.T, (X @ X.T) / np.outer(lengths, lengths),
                  atol=1e-12))
print(check_close("unit rows keep the mean cosine: closed form (|sum of unit rows|^2 - N)/(N(N-1)) vs the mean "
                  "over pairs of the raw rows", (Su @ Su - N) / (N * (N - 1)), mean_cos(X), atol=1e-12))
print(check_true("... but their mean and covariance are not those of the raw rows",
                 np.linalg.norm(mean_u - mean) > 1 and abs(np.trace(Sigma_u) - np.trace(Sigma)) > 1,
                 f"|mean| {np.linalg.norm(mean):.3f} -> {np.linalg.norm(mean_u):.3f}; "
                 f"trace of the covariance {np.trace(Sigma):.3f} -> {np.trace(Sigma_u):.3f}"))

# Non-example: fewer vectors than dimensions. The covariance is singular.
few = X[:d // 2]
rank_few = int(np.linalg.matrix_rank((few - few.mean(axis=0)).T @ (few - few.mean(axis=0))))
print(check_equal(f"{len(few)} vectors in d = {d}: the centred covariance has rank at most {len(few) - 1}",
                  rank_few, len(few) - 1))
print(glue("n_few", len(few)), glue("rank_few", rank_few))

# Non-example: a random rotation changes coordinates but no cosine.
Rot, _ = np.linalg.qr(rng.normal(0, 1, (d, d)))
print(check_close("a random rotation leaves every cosine unchanged", cosine_matrix(X @ Rot.T), cosine_matrix(X),
                  atol=1e-12))

fig, axes = figure(1, 3, size=(7.2, 2.6))
for ax, Y, title in zip(axes, (X, Xc, Xw), ("raw", "centred", "whitened")):
    P2 = Y @ R[:, [0, 3]]                          # the axis with sd 6 and one with sd 1; mu lies in this plane
    ax.scatter(P2[:, 0], P2[:, 1], s=6, color=PALETTE[0], alpha=0.6)
    ax.scatter([0], [0], s=60, marker="+", color=PALETTE[1], linewidths=2)
    ax.set_title(title)
    ax.set_aspect("equal", adjustable="datalim")
for ax in axes[:2]:
    ax.set_xlim(-16, 20)
print(svg(fig, alt=f"Three scatter plots of the same {N} vectors in the plane of the largest axis and the offset: raw, "
          f"a long ellipse (standard deviation {scales[0]:.0f} along it) whose centre lies {np.linalg.norm(mu):.0f} "
          f"from the origin, mean cosine {mean_cos(X):.3f}; centred, the same ellipse around the origin, mean cosine "
          f"{mean_cos(Xc):.3f}; whitened, a round blob with covariance I",
          caption="The cloud in the plane of its largest axis "
          "and the offset; the cross marks the origin, from which cosines are measured."))
