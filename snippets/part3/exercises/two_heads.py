"""Exercise: two heads of width 1 by hand, and the one head of width 2 that stacks them."""
import math

import numpy as np

from esm import attention, check_close, glue

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
print(glue("th_merged", merged[0], ".3f"))
