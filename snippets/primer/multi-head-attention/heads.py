"""P5 One head of full width is single-head attention; several heads hold several patterns
at once (four heads with HAND-SET weights: previous token, self, first token, uniform)."""
import math

import numpy as np

from esm import (attention, causal_mask, check_close, check_equal, figure, multi_head_attention, shape_table,
                 split_heads, svg)

rng = np.random.default_rng(9)
T, d = 6, 16
X = rng.normal(size=(T, d))
W_Q, W_K, W_V, W_O = (rng.normal(size=(d, d)) / math.sqrt(d) for _ in range(4))
mask = causal_mask(T)
single = attention(X @ W_Q, X @ W_K, X @ W_V, mask)[0] @ W_O
print(check_close("H = 1 (one head of width d) equals single-head attention followed by W_O",
                  multi_head_attention(X, W_Q, W_K, W_V, W_O, 1, mask), single, eq="one-head", atol=1e-12))

# Hand-set heads. Inputs are one-hot positions (d = T); each head has width d_k = T and its own
# query matrix; the keys are the positions themselves. Large entries (10) make the patterns sharp.
H, d_k = 4, T
P = np.eye(T)                                        # row t: one-hot position t
shift = np.eye(T, k=-1)                              # query t asks for key t - 1
first = np.zeros((T, T))
first[:, 0] = 1.0                                    # every query asks for key 0
queries = [10 * shift, 10 * np.eye(T), 10 * first, np.zeros((T, T))]
names = ["previous token", "itself", "first token", "uniform (zero query)"]
W_Q_hand = np.concatenate(queries, axis=1)           # (d, H d_k): heads side by side
W_K_hand = np.tile(np.eye(T), (1, H))                # every head's keys are the positions
A = attention(split_heads(P @ W_Q_hand, H), split_heads(P @ W_K_hand, H), split_heads(P, 1).repeat(H, 0), mask)[1]
print(shape_table({"T": T, "d": T, "H": H, "Hd_k": H * d_k}, [
    ("inputs (one-hot positions)", "X", P, "T d", "hand-set"),
    ("query weights, 4 heads", "W_Q", W_Q_hand, "d Hd_k", "hand-set, one block per head"),
    ("attention weights", "A^{(0..H-1)}", A, "H T T", "one pattern per head"),
]))
print(check_equal("head 0 puts its largest weight on the previous token (queries 1..5)",
                  A[0, 1:].argmax(axis=1), np.arange(T - 1)))
print(check_equal("head 1 puts its largest weight on the query's own position (every query)",
                  A[1].argmax(axis=1), np.arange(T)))
print(check_equal("head 2 puts its largest weight on token 0 for every query", A[2].argmax(axis=1), np.zeros(T, dtype=int)))
print(check_close("head 3 (zero query) spreads evenly: row i is 1/(i+1) on keys 0..i", A[3],
                  np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None], atol=1e-12))

fig, axes = figure(1, 4, size=(7.6, 2.3))
for h, ax in enumerate(axes):
    ax.imshow(np.where(mask, A[h], np.nan), cmap="viridis", vmin=0, vmax=1)
    ax.set_title(names[h], fontsize=9)
    ax.set_xticks(range(T))
    ax.set_yticks(range(T))
    ax.tick_params(labelsize=7)
    ax.grid(False)
    ax.set_xlabel("key", fontsize=8)
axes[0].set_ylabel("query", fontsize=8)
print(svg(fig, alt="Four small causal attention heatmaps for hand-set heads: a sub-diagonal, the diagonal, the "
          "first column, and an even lower triangle",
          caption="Four hand-set heads of one layer, each with its own pattern, computed in the same pass."))
