"""7.1 Attention by hand: three tokens, d = 2, integer queries, keys and values; the causal mask
as masked averaging (equal scores give the running mean)."""
import math
from fractions import Fraction

import numpy as np

from esm import attention, causal_mask, check_close, check_equal, glue, softmax, table

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
