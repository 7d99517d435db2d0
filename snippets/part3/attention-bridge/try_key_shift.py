"""Try this: add the same vector (5, -2) to every key of the by-hand example: the scores change, no weight does."""
import numpy as np

from esm import causal_mask, check_close, check_equal, softmax

Q = np.array([[0, 1], [1, 1], [2, 0]])
K = np.array([[1, 0], [0, 1], [0, 1]])
K_new = K + [5, -2]                              # changed: was K (every key moved by the same vector)
S, S_new = Q @ K.T, Q @ K_new.T
A, A_new = (softmax(np.where(causal_mask(3), s, -np.inf)) for s in (S, S_new))
print(check_equal("row t of the scores moves by one number, q_t . (5, -2)", (S_new - S).tolist(),
                  [[int(q @ [5, -2])] * 3 for q in Q]))
print(check_close("yet no weight changes, so no output does", A_new, A, atol=1e-12))
