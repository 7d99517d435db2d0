"""Exercise: the rank of W_Q W_K^T is at most d_k, and the directions a head cannot see."""
import numpy as np

from esm import attention, check_close, check_equal, check_true, glue

rng = np.random.default_rng(71)
d, d_k, T = 6, 2, 5
W_Q, W_K = rng.normal(0, 1, (d, d_k)), rng.normal(0, 1, (d, d_k))
X = rng.normal(0, 1, (T, d))
M = W_Q @ W_K.T
# (a) Route 1: M is the sum of d_k outer products (column c of W_Q times column c of W_K), so its
# columns lie in the span of W_Q's d_k columns: least squares on that span leaves no residual.
outer = sum(np.outer(W_Q[:, c], W_K[:, c]) for c in range(d_k))
coef, *_ = np.linalg.lstsq(W_Q, M, rcond=None)
print(check_close("(a) W_Q W_K^T is the sum of d_k outer products, and its columns lie in the span of W_Q's columns",
                  np.concatenate([(M - outer).ravel(), (W_Q @ coef - M).ravel()]), np.zeros(2 * d * d), atol=1e-12))
# Route 2: the singular values of M: d - d_k of them vanish (to rounding), d_k do not.
sv = np.linalg.svd(M, compute_uv=False)
print(check_equal("(a) singular values of the 6 x 6 matrix M: exactly d_k = 2 above tolerance 1e-10 (the rest at rounding level)",
                  int(np.sum(sv > 1e-10)), d_k))
# (a) equality needs both factors at full rank: repeat a column of W_K (rank d_k - 1) and the rank drops by one.
W_K_low = W_K.copy()
W_K_low[:, 1] = W_K_low[:, 0]
print(check_equal("(a) with W_K of rank d_k - 1 (a repeated column), W_Q W_K^T has rank d_k - 1 (singular values)",
                  [int(np.linalg.matrix_rank(W_K_low)), int(np.sum(np.linalg.svd(W_Q @ W_K_low.T, compute_uv=False) > 1e-10))],
                  [d_k - 1, d_k - 1]))
S = X @ M @ X.T
print(check_equal("(a) so the 5 x 5 score matrix X M X^T has rank at most 2 too (singular values above tolerance 1e-10)",
                  int(np.sum(np.linalg.svd(S, compute_uv=False) > 1e-10)), d_k))
# (b), (c): a state z whose query is zero (z orthogonal to both columns of W_Q): null space by SVD.
e0 = np.eye(d)[0]
z = e0 - W_Q @ np.linalg.solve(W_Q.T @ W_Q, W_Q.T @ e0)   # e0 minus its projection on the columns of W_Q
z *= 3.0 / np.linalg.norm(z)                             # length 3, in the (d - d_k)-dimensional null space
Xq = np.vstack([X, z])
out, A = attention(Xq @ W_Q, Xq @ W_K, Xq)
print(check_close("(c) z W_Q = 0, and the head gives z equal weights 1/6 on all six states", np.concatenate([z @ W_Q, A[-1]]),
                  np.concatenate([np.zeros(d_k), np.full(T + 1, 1 / (T + 1))]), atol=1e-12))
print(check_close("(c) ... so z's output is the plain mean of the six values (loop)", out[-1],
                  [sum(Xq[s, k] for s in range(T + 1)) / (T + 1) for k in range(d)], atol=1e-12))
# (c) a state z' whose key is zero: every query scores it 0, which a softmax weights 1 / (1 + sum_s e^{S_ts / sqrt d_k}) > 0.
zk = e0 - W_K @ np.linalg.solve(W_K.T @ W_K, W_K.T @ e0)
zk *= 3.0 / np.linalg.norm(zk)
Xk = np.vstack([X, zk])
out_k, A_k = attention(Xk @ W_Q, Xk @ W_K, Xk)
out_5, _ = attention(X @ W_Q, X @ W_K, X)
S5 = (X @ W_Q) @ (X @ W_K).T / np.sqrt(d_k)
print(check_close("(c) z' W_K = 0, and each of the five states gives z' the weight 1 / (1 + sum_s e^{S_ts / sqrt d_k}) (hand form)",
                  np.concatenate([zk @ W_K, A_k[:T, -1]]), np.concatenate([np.zeros(d_k), 1 / (1 + np.exp(S5).sum(1))]),
                  atol=1e-12))
move = np.linalg.norm(out_k[:T] - out_5, axis=1)
print(check_true("(c) ... so every weight on z' is positive and every one of the five outputs moves",
                 bool(np.all(A_k[:T, -1] > 0) and np.all(move > 1e-6)), f"weights {np.round(A_k[:T, -1], 3).tolist()}"))
_, _, Vk = np.linalg.svd(W_K.T)
n_k = Vk[-1]
moved = X.copy(); moved[2] += 5.0 * n_k            # move one key along a direction W_K ignores
print(check_close("(c) moving state 2 by 5 along a null direction of W_K^T changes no score", (X @ W_Q) @ (moved @ W_K).T,
                  (X @ W_Q) @ (X @ W_K).T, atol=1e-12))
print(glue("hr_d", d), glue("hr_dk", d_k), glue("hr_T", T), glue("hr_null", d - d_k), glue("hr_out", out[-1], ".3f"),
      glue("hr_zk_lo", float(A_k[:T, -1].min()), ".3f"), glue("hr_zk_hi", float(A_k[:T, -1].max()), ".3f"),
      glue("hr_zk_move", float(move.max()), ".2f"), sep="")
