"""7.1 Query, key and value projections: three learned maps of the same hidden states."""
import numpy as np

from esm import check_close, check_equal, glue, shape_table

rng = np.random.default_rng(71)
B, T, d, H = 2, 4, 8, 2
d_k = d_v = d // H                              # 4 numbers per head, as in GPT-2 (768 / 12 = 64)
Hs = rng.normal(0.0, 1.0, (B, T, d))            # hidden states entering the layer
W_Q = rng.normal(0.0, d ** -0.5, (d, d_k))      # one head's projections
W_K = rng.normal(0.0, d ** -0.5, (d, d_k))
W_V = rng.normal(0.0, d ** -0.5, (d, d_v))

Q, K, V = Hs @ W_Q, Hs @ W_K, Hs @ W_V          # every position projected at once
S = Q @ np.swapaxes(K, -1, -2)                  # raw scores q_t^T k_s, one T x T matrix per sequence

print(shape_table({"B": B, "T": T, "d": d, "d_k": d_k, "d_v": d_v}, [
    ("states", "X", Hs, "B T d", r"row $\mathbf h_t$ per position, per sequence"),
    ("query map", "W_Q", W_Q, "d d_k", rf"learned; $d\,d_k={d * d_k}$ parameters"),
    ("key map", "W_K", W_K, "d d_k", "learned"),
    ("value map", "W_V", W_V, "d d_v", "learned"),
    ("queries", "Q", Q, "B T d_k", "what position $t$ looks for"),
    ("keys", "K", K, "B T d_k", "what position $s$ offers to be found by"),
    ("values", "V", V, "B T d_v", "what position $s$ hands over"),
    ("raw scores", r"S=QK^\top", S, "B T T", r"$S_{ts}=\mathbf q_t^\top\mathbf k_s$"),
]))

# Independent: project one state at a time, as column vectors q_t = W_Q^T h_t.
loop_Q = np.array([[W_Q.T @ Hs[b, t] for t in range(T)] for b in range(B)])
loop_K = np.array([[W_K.T @ Hs[b, t] for t in range(T)] for b in range(B)])
loop_V = np.array([[W_V.T @ Hs[b, t] for t in range(T)] for b in range(B)])
print(check_close("Q, K, V of the batch equal per-position projections W^T h_t",
                  np.stack([Q, K, V]), np.stack([loop_Q, loop_K, loop_V]), atol=1e-12, eq="qkv"))

# The score is a bilinear form of the states: q_t^T k_s = h_t^T (W_Q W_K^T) h_s.
M = W_Q @ W_K.T
bilinear = np.array([[[Hs[b, t] @ M @ Hs[b, s] for s in range(T)] for t in range(T)] for b in range(B)])
print(check_close("scores q_t^T k_s equal h_t^T (W_Q W_K^T) h_s", S, bilinear, atol=1e-12))
print(check_equal("W_Q W_K^T is d x d but has rank d_k only", int(np.linalg.matrix_rank(M)), d_k))
print(check_equal("the score matrix is not symmetric: t looking for s differs from s looking for t",
                  bool(np.allclose(S[0], S[0].T)), False))
n_params = sum(W.size for W in (W_Q, W_K, W_V))      # counted from the arrays themselves
print(glue("qkv_d", d), glue("qkv_heads", H), glue("qkv_dk", d_k),
      glue("qkv_params", n_params), glue("qkv_rank", int(np.linalg.matrix_rank(M))), sep="")
