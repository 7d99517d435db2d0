"""Try this: add the same vector (5, -2) to every key of the by-hand example: the scores change, no weight does."""
import numpy as np

from esm import causal_mask, check_true, softmax

Q = np.array([[0, 1], [1, 1], [2, 0]])
K = np.array([[1, 0], [0, 1], [0, 1]])
K_new = K + [5, -2]                              # changed: was K (every key moved by the same vector)
S, S_new = Q @ K.T, Q @ K_new.T
A, A_new = (softmax(np.where(causal_mask(3), s, -np.inf)) for s in (S, S_new))
moves = (S_new - S)[:, :1] == [[q @ [5, -2]] for q in Q]   # each row's scores move by q_t . (5, -2)
print(check_true("each row's scores move by one number, q_t . (5, -2), and no weight changes",
                 bool(((S_new - S) == (S_new - S)[:, :1]).all() and moves.all()) and np.allclose(A_new, A, atol=1e-12),
                 f"score shifts by row {(S_new - S)[:, 0].tolist()}"))
