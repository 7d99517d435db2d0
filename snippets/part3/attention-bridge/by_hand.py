"""7.1 Attention by hand: three tokens, d = 2, integer queries, keys and values; the causal mask
as masked averaging (equal scores give the running mean)."""
import math
import re
from fractions import Fraction

import numpy as np

from esm import PALETTE, attention, causal_mask, check_close, check_equal, drawing, glue, softmax, table

Q = np.array([[0, 1], [1, 1], [2, 0]])          # what positions 0, 1, 2 look for
K = np.array([[1, 0], [0, 1], [0, 1]])          # what they can be found by
V = np.array([[6, 0], [0, 6], [3, 0]])          # what they hand over
T, d_k = Q.shape
mask = causal_mask(T)                            # True where s <= t

S = Q @ K.T                                      # scores S_ts = q_t . k_s, integers
A = softmax(np.where(mask, S, -np.inf))          # masked softmax, row by row
O = A @ V                                        # outputs o_t = sum_s a_ts v_s


print(table(["t", "scores S[t, :]", "allowed s", "weights a[t, :]", "output o_t"],
            [(t, " ".join(f"{x:d}" for x in S[t]), ", ".join(str(s) for s in range(t + 1)),
              " ".join(f"{x:.3f}" for x in A[t]), " ".join(f"{x:.2f}" for x in O[t])) for t in range(T)]))

print(check_equal("S = Q K^T equals the table of dot products q_t . k_s, entry by entry",
                  S.tolist(), [[sum(int(Q[t, i]) * int(K[s, i]) for i in range(d_k)) for s in range(T)] for t in range(T)],
                  eq="by-hand"))

# Independent route 1: explicit loops with math.exp, only over the positions s <= t.
O_loop, A_loop = np.zeros((T, 2)), np.zeros((T, T))
for t in range(T):
    e = [math.exp(sum(Q[t, i] * K[s, i] for i in range(d_k))) for s in range(t + 1)]
    for s in range(t + 1):
        A_loop[t, s] = e[s] / sum(e)
        O_loop[t] += A_loop[t, s] * V[s]
print(check_close("masked softmax(S) V equals the loop sum_{s<=t} exp(S_ts) v_s / sum_{s<=t} exp(S_ts)",
                  np.concatenate([A.ravel(), O.ravel()]), np.concatenate([A_loop.ravel(), O_loop.ravel()]),
                  atol=1e-12, eq="masked-attention"))
# Independent route 2: the pencil's closed forms. Row 2 has scores (2, 0, 0): weights e^2/(e^2+2), 1/(e^2+2).
e2 = math.e ** 2
print(check_close("row 2: weights e^2/(e^2+2), 1/(e^2+2), 1/(e^2+2); output (6e^2+3, 6)/(e^2+2)",
                  np.concatenate([A[2], O[2]]),
                  [e2 / (e2 + 2), 1 / (e2 + 2), 1 / (e2 + 2), (6 * e2 + 3) / (e2 + 2), 6 / (e2 + 2)], atol=1e-12))
print(check_close("rows 0 and 1 (scores of the allowed keys equal): weight 1, then 1/2 and 1/2",
                  [A[0, 0], A[1, 0], A[1, 1]], [1.0, 0.5, 0.5], atol=1e-15))
# Without the mask position 0 would read the future: weights (1, e, e)/(1 + 2e).
A_open = softmax(S)
print(check_close("unmasked, row 0 would be (1, e, e)/(1+2e): most of its weight on later positions",
                  A_open[0], np.array([1, math.e, math.e]) / (1 + 2 * math.e), atol=1e-15))
# Route 3: the library's scaled attention(); multiplying Q by sqrt(d_k) undoes its 1/sqrt(d_k).
O_lib, A_lib = attention(Q * math.sqrt(d_k), K, V, mask=mask)
print(check_close("esm.attention with Q scaled by sqrt(d_k) gives the same weights and outputs",
                  np.concatenate([A_lib.ravel(), O_lib.ravel()]), np.concatenate([A.ravel(), O.ravel()]),
                  atol=1e-12))

# Equal scores (every query zero): causal attention is the running mean, weights 1, 1/2, 1/3.
A_eq = softmax(np.where(mask, np.zeros((T, T)), -np.inf))
running = np.cumsum(V, axis=0) / np.arange(1, T + 1)[:, None]
print(check_equal("equal scores: the weights of row t are exactly 1/(t+1) on s <= t (as fractions)",
                  [[str(Fraction(x).limit_denominator(100)) for x in row] for row in A_eq],
                  [[str(Fraction(1, t + 1)) if s <= t else "0" for s in range(T)] for t in range(T)]))
print(check_close("equal scores: the outputs are the running means of the value rows (cumsum / count)",
                  A_eq @ V, running, atol=1e-12))

print(*(glue(f"bh_S{t}{u}", int(S[t, u])) for t in range(T) for u in range(T)),
      *(glue(f"bh_run{T - 1}{c}", float(running[T - 1, c]), "g") for c in range(2)), glue("bh_A20", A[2, 0], ".2f"),
      glue("bh_A21", A[2, 1], ".2f"), glue("bh_O1", O[1], "g"), glue("bh_O0", O[0], "g"),
      glue("bh_open0", A_open[0, 0], ".2f"), sep="")

# The weights as a grid, query t by row, key s by column: shaded by weight where s <= t, grey where masked.
c = 36                                                  # a cell's side in points; the grid's corner is at (44, 30)
cell = lambda t, s: f'<rect x="{44 + s * c}" y="{30 + t * c}" width="{c}" height="{c}" '
grid = ('<text x="98" y="10" text-anchor="middle">key s</text><text x="62 98 134" y="25" text-anchor="middle">012'
        '</text><text transform="translate(14 84) rotate(-90)" text-anchor="middle">query t</text>'
        '<text x="36 36 36" y="51 87 123" text-anchor="end">012</text>'
        + "".join(cell(t, s) + 'fill-opacity="0.18"/>' for t in range(T) for s in range(t + 1, T))
        + "".join(cell(t, s) + f'fill="{PALETTE[0]}" fill-opacity="{0.1 + 0.7 * A[t, s]:.4f}"/><text x="{62 + s * c}" '
                  f'y="{51 + t * c}" text-anchor="middle" font-size="9">{A[t, s]:.2f}</text>'
                  for t in range(T) for s in range(t + 1))
        + '<path fill="none" stroke="currentColor" stroke-opacity="0.5" d="'
        + "".join(f"M44 {30 + k * c}h{T * c}M{44 + k * c} 30v{T * c}" for k in range(T + 1)) + '"/>')
# Read back from the drawing: each cell's place, and its shade (none for a grey cell).
drawn = {((int(y) - 30) // c, (int(x) - 44) // c): (float(o) - 0.1) / 0.7 if blue else None
         for x, y, blue, o in re.findall(r'<rect x="(\d+)" y="(\d+)" \S+ \S+ (fill="\S+" )?fill-opacity="([\d.]+)"', grid)}
shaded, grey = sorted(k for k in drawn if drawn[k] is not None), sorted(k for k in drawn if drawn[k] is None)
print(check_close("the grid, read back: each shaded cell's shade is its weight from the loop (to the 4 decimals drawn)",
                  [drawn[k] for k in shaded], [A_loop[k] for k in shaded], atol=1e-3))
print(check_equal("the grid, read back: shaded cells where s <= t, grey ones where s > t, and there the weight is exactly 0",
                  (shaded, grey, [float(A[k]) for k in grey]), ([(t, s) for t in range(T) for s in range(t + 1)],
                  [(t, s) for t in range(T) for s in range(t + 1, T)], [0.0] * 3), eq="masked-attention"))
print(drawing(grid, size=(156, 142), alt=f"A {T} by {T} grid of the example's causal attention weights, query t by row, "
              "key s by column. On and below the diagonal each cell is shaded by its weight and shows it: "
              + "; ".join(f"row {t}: " + ", ".join(f"{A[t, s]:.2f}" for s in range(t + 1)) for t in range(T))
              + ". The cells above the diagonal are grey and empty: masked.",
              caption="The masked weights of the example: each row's weights sum to 1 over the keys it may read; the "
                      "grey cells above the diagonal, the future, get nothing."))
