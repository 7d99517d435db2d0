"""7.1 Query, key and value projections: three learned maps of the same hidden states."""
import numpy as np

import re

from esm import PALETTE, check_close, check_equal, drawing, glue, shape_table

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

# The shapes as blocks, one square a number, for the first sequence: X times the three maps side by side
# (GPT-2 keeps its maps so, in one matrix) gives Q, K, V side by side, and Q K^T gives S.
# Each group: its left edge, its blocks.
u, mid = 9, 58                                   # a square's side and the blocks' middle line, in points
sub = "W<tspan dy='2' font-size='7'>{}</tspan>".format
groups = [(10, [("X", Hs[0])]), (112, [(sub("Q"), W_Q), (sub("K"), W_K), (sub("V"), W_V)]),
          (252, [("Q", Q[0]), ("K", K[0]), ("V", V[0])]), (406, [("S", S[0])])]
pic, lines = "", ""
for x, blocks in groups:
    for i, (name, arr) in enumerate(blocks):
        (r, k), col = arr.shape, PALETTE[i] if len(blocks) > 1 else "currentColor"
        y = mid - r * u / 2
        pic += (f'<rect x="{x}" y="{y:g}" width="{k * u}" height="{r * u}" fill="{col}" fill-opacity="0.3" '
                f'stroke="{col}"/><text x="{x + k * u / 2:g}" y="{y - 5:g}" text-anchor="middle">{name}</text>')
        lines += "".join(f"M{x} {y + j * u:g}h{k * u}" for j in range(1, r))        # the squares' edges
        lines += "".join(f"M{x + j * u} {y:g}v{r * u}" for j in range(1, k))
        x += k * u
    pic += f'<text x="{x - k * u * len(blocks) / 2:g}" y="{mid + r * u / 2 + 12:g}" text-anchor="middle" font-size="9">' \
           f'{"each " if len(blocks) > 1 else ""}{r} × {k}</text>'
pic += (f'<path fill="none" stroke="currentColor" stroke-opacity="0.25" d="{lines}"/>'
        '<text x="97" y="62" text-anchor="middle">×</text><text x="226" y="62" text-anchor="middle">=</text>'
        '<text x="379" y="52" text-anchor="middle" font-size="9">Q K<tspan dy="-4" font-size="7">T</tspan></text>'
        f'<path fill="none" stroke="currentColor" d="M368 {mid}h30m-5 -3l5 3l-5 3"/>')
# Read back each block's size in squares from the drawing, against the shapes the symbols say.
sizes = [(int(h) // u, int(w) // u) for w, h in re.findall(r'<rect [^>]*width="(\d+)" height="(\d+)"', pic)]
print(check_equal("the figure's blocks, read back in squares: X is T x d, W_Q, W_K, W_V d x d_k, Q, K, V T x d_k, "
                  "S T x T", sizes, [(T, d), (d, d_k), (d, d_k), (d, d_v), (T, d_k), (T, d_k), (T, d_v), (T, T)]))
print(drawing(pic, size=(452, 112),
              alt=f"Blocks of squares, one square a number, for one sequence: X, {T} rows by {d} columns, times the "
                  f"three maps W_Q, W_K and W_V side by side, each {d} by {d_k}, equals Q, K and V side by side, each "
                  f"{T} by {d_k}; Q times K transposed gives the scores S, {T} by {T}.",
              caption="One head of the demo, one sequence of its batch, one square a number: the states times the "
                      "three maps set side by side (GPT-2 keeps its maps so, in one matrix) give the queries, keys and "
                      "values side by side; queries times keys transposed give one score per pair of positions."))
