"""Exercise: two heads of width 1 by hand, and the one head of width 2 that stacks them."""
import math

import numpy as np

from esm import attention, check_close, check_true, glue

ln2, ln3 = math.log(2), math.log(3)
q = [np.array([[1.0]]), np.array([[2.0]])]                        # the last position's query, per head
k = [np.array([[ln2], [0.0], [ln3]]), np.array([[0.0], [ln2], [0.0]])]
v = [np.array([[6.0], [0.0], [12.0]]), np.array([[0.0], [3.0], [6.0]])]
W_O = np.array([[1.0, 0.0], [1.0, 1.0]])                          # row h: what head h writes
outs, weights = zip(*(attention(q[h], k[h], v[h]) for h in range(2)))
print(check_close("(a) weights by hand: head 0 (2, 1, 3)/6, head 1 (1, 4, 1)/6",
                  np.concatenate([weights[0][0], weights[1][0]]), np.array([2, 1, 3, 1, 4, 1]) / 6, atol=1e-12))
o = np.array([outs[0][0, 0], outs[1][0, 0]])
print(check_close("(a) head outputs 8 and 3 by hand, and the layer's output o W_O = 8 (1, 0) + 3 (1, 1) = (11, 3)",
                  np.concatenate([o, o @ W_O]), [8.0, 3.0, 11.0, 3.0], atol=1e-12))
# (a) head 1 with any query: positions 0 and 2 share a key, so they share a weight w, and the output is 6 w + 3 (1 - 2 w) = 3.
queries = np.linspace(-5.0, 5.0, 21)
print(check_close("(a) head 1 outputs 3 for every query on a grid from -5 to 5 (attention itself)",
                  [attention(np.array([[qq]]), k[1], v[1])[0][0, 0] for qq in queries], [3.0] * len(queries), atol=1e-12))
# (b) One head of width 2 with the two queries and keys side by side: its scaled scores are the
# sum of the two heads' scores over sqrt 2, so its weights are proportional to the product of the
# two heads' weights to the power 1/sqrt 2.
_, merged = attention(np.hstack(q), np.hstack(k), np.hstack(v))
prod = (weights[0][0] * weights[1][0]) ** (1 / math.sqrt(2))
print(check_close("(b) the width-2 head's weights equal (a0 a1)^(1/sqrt 2), normalised, = (2, 4, 3)^(1/sqrt 2) normalised",
                  np.concatenate([merged[0], merged[0]]), np.concatenate([prod / prod.sum(),
                                                                          np.array([2, 4, 3]) ** (1 / math.sqrt(2))
                                                                          / np.sum(np.array([2, 4, 3]) ** (1 / math.sqrt(2)))]),
                  atol=1e-12))
# (c) one head of width 2 with value rows u_s = v0_s W_O[0] + v1_s W_O[1]: which weights give the layer's output?


def fit_weights(v1):
    """Solve sum_s a_s u_s = layer output, sum_s a_s = 1 (three equations, three unknowns)."""
    o1 = float(weights[1][0] @ v1)
    target = outs[0][0, 0] * W_O[0] + o1 * W_O[1]
    U = np.outer(v[0][:, 0], W_O[0]) + np.outer(v1, W_O[1])
    a = np.linalg.solve(np.vstack([U.T, np.ones(3)]), np.append(target, 1.0))
    return a, U, target


fit, U, target = fit_weights(v[1][:, 0])
print(check_close("(c) the value rows are (6, 0), (3, 3), (18, 6) and the weights (4, 1, 4)/9 give (11, 3) (by hand)",
                  np.concatenate([U.ravel(), np.array([4, 1, 4]) / 9 @ U]), [6, 0, 3, 3, 18, 6, 11, 3], atol=1e-12))
print(check_close("(c) the solved weights are (4, 1, 4)/9", fit, np.array([4, 1, 4]) / 9, atol=1e-12))
q_fit = np.array([[0.0, -2 * math.sqrt(2)]])
out_fit, w_fit = attention(q_fit, np.hstack(k), U)
print(check_close("(c) the query (0, -2 sqrt 2) with the keys of (b) gives those weights and the layer's output (11, 3)",
                  np.concatenate([w_fit[0], out_fit[0]]), np.concatenate([fit, [11.0, 3.0]]), atol=1e-12))
bad, U_bad, target_bad = fit_weights(np.array([0.0, 6.0, 0.0]))
print(check_close("(c) head 1 values (0, 6, 0): the layer outputs (12, 4), and the only weights are (-2/3, 2/3, 1)",
                  np.concatenate([target_bad, bad]), [12.0, 4.0, -2 / 3, 2 / 3, 1.0], atol=1e-12))
print(check_true("(c) ... so no weights (all >= 0) reach it: the system has one solution, and it has a negative entry",
                 bool(bad.min() < 0) and abs(np.linalg.det(np.vstack([U_bad.T, np.ones(3)]))) > 1e-9,
                 f"weights {np.round(bad, 4).tolist()}"))
print(glue("th_n_q", len(queries)), glue("th_q_lo", queries[0], "g"), glue("th_q_hi", queries[-1], "g"),
      glue("th_merged", merged[0], ".3f"), glue("th_fit", fit, ".3f"), glue("th_bad", bad, ".3f"), sep="")
