"""P3 Self-attention from scratch in numpy: the four steps, each against a loop, with a
causal mask."""
import math

import numpy as np

from esm import attention, causal_mask, check_close, check_equal, check_true, figure, glue, shape_table, svg

rng = np.random.default_rng(5)
T, d, d_k, d_v = 6, 8, 4, 4
X = rng.normal(size=(T, d))                          # one row per token (embedding + position)
W_Q = rng.normal(size=(d, d_k)) / math.sqrt(d)
W_K = rng.normal(size=(d, d_k)) / math.sqrt(d)
W_V = rng.normal(size=(d, d_v)) / math.sqrt(d)

# Step 1: project every token to a query, a key and a value.
Q, K, V = X @ W_Q, X @ W_K, X @ W_V
# Step 2: every query against every key.
S = Q @ K.T
# Step 3: scale, mask the future, softmax along each row.
mask = causal_mask(T)
scaled = np.where(mask, S / math.sqrt(d_k), -np.inf)
A = np.exp(scaled - scaled.max(axis=1, keepdims=True))
A = A / A.sum(axis=1, keepdims=True)
# Step 4: each output is the weighted average of the values.
O = A @ V

print(shape_table({"T": T, "d": d, "d_k": d_k, "d_v": d_v}, [
    ("inputs", "X", X, "T d", "row $t$ is token $t$'s vector"),
    ("query weights", "W_Q", W_Q, "d d_k", "learned"),
    ("queries", "Q", Q, "T d_k", "what each token looks for"),
    ("keys", "K", K, "T d_k", "what each token offers to be found by"),
    ("values", "V", V, "T d_v", "what each token hands over"),
    ("scores", "S", S, "T T", "$S_{ts}=\\mathbf q_t^\\top\\mathbf k_s$"),
    ("weights", "A", A, "T T", "row $t$: how query $t$ splits its attention"),
    ("outputs", "O", O, "T d_v", "one context-aware vector per token"),
]))

loop_q = np.array([[sum(X[t, a] * W_Q[a, c] for a in range(d)) for c in range(d_k)] for t in range(T)])
print(check_close("Q = X W_Q: row t is x_t^T W_Q (loop over coordinates)", Q, loop_q, eq="qkv"))
loop_s = np.array([[sum(Q[i, c] * K[j, c] for c in range(d_k)) for j in range(T)] for i in range(T)])
print(check_close("S_ts = q_t . k_s (loop over queries and keys)", S, loop_s, eq="scores"))
loop_a = np.zeros((T, T))
for i in range(T):
    e = [math.exp(S[i, j] / math.sqrt(d_k)) for j in range(i + 1)]   # only keys j <= i
    for j in range(i + 1):
        loop_a[i, j] = e[j] / sum(e)
print(check_close("A = softmax(S / sqrt(d_k)) over the allowed keys s <= t (math.exp loop)", A, loop_a, eq="weights"))
loop_z = np.array([sum(A[i, j] * V[j] for j in range(T)) for i in range(T)])
print(check_close("o_t = sum_s A_ts v_s (loop over keys)", O, loop_z, eq="output"))
O_esm, _ = attention(Q, K, V, mask)            # esm's attention returns the outputs and the weights
print(check_close("the same result as esm.attention(Q, K, V, causal_mask(T))", O, O_esm))
print(check_equal("no weight on future keys: entries above the diagonal", A[np.triu_indices(T, 1)],
                  np.zeros(T * (T - 1) // 2)))
print(check_close("token 0 can only see itself: A_00 = 1", A[0, 0], 1.0))

# Context: the same input row in two different contexts gets two different outputs.
Y = X.copy()
Y[:3] = rng.normal(size=(3, d))                     # change the context before position 3 only
O2 = attention(Y @ W_Q, Y @ W_K, Y @ W_V, mask)[0]
# Token 3 keeps its input row: Y is a copy of X with rows 0..2 redrawn (so Y[3] is X[3] by construction).
gap = float(np.linalg.norm(O2[3] - O[3]))
print(check_true("token 3 keeps its own input row, but its output moves once the tokens before it change", gap > 0.1, f"|o_3 - o_3'| = {gap:.3f} > 0.1"))
print(glue("T", T), glue("d", d), glue("d_k", d_k), glue("context_gap", gap, ".2f"))

# Order without positions: no mask, attention is permutation-equivariant (chapter P2); with the causal
# mask it is not, because each query sees a different prefix. (The rows of X here carry no positions.)
perm = np.array([4, 0, 5, 2, 1, 3])
Pi = np.eye(T)[perm]


def attn(Xs, m=None):
    return attention(Xs @ W_Q, Xs @ W_K, Xs @ W_V, m)[0]


print(check_close("no mask: Attn(Pi X) = Pi Attn(X), the order of the rows is invisible", attn(Pi @ X), Pi @ attn(X),
                  atol=1e-12))
order_gap = float(np.abs(attn(Pi @ X, mask) - Pi @ attn(X, mask)).max())
print(check_true("causal mask: Attn(Pi X) != Pi Attn(X), the same tokens in another order give other outputs",
                 order_gap > 0.1, f"max difference {order_gap:.3f}"))
shuffle = np.array([2, 0, 4, 1, 3, 5])                # reorder tokens 0..4, keep the last one last
print(check_close("yet the last query sees its prefix as a set: reordering tokens 0..4 leaves o_5 unchanged",
                  attn(X[shuffle], mask)[-1], attn(X, mask)[-1], atol=1e-12))

fig, ax = figure(size=(3.6, 3.0))
im = ax.imshow(np.where(mask, A, np.nan), cmap="viridis", vmin=0, vmax=1)
ax.set_xlabel("key $s$")
ax.set_ylabel("query $t$")
ax.grid(False)
for i in range(T):
    for j in range(i + 1):
        ax.text(j, i, f"{A[i, j]:.2f}", ha="center", va="center", fontsize=7,
                color="white" if A[i, j] < 0.55 else "black")
print(svg(fig, alt="Lower-triangular heatmap of causal attention weights for six tokens, with the weight "
          "printed in each cell; the first row is a single 1.00",
          caption="Causal attention weights $A$: each row sums to 1; blank cells are the masked future."))
