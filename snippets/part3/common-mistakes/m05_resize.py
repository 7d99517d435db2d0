"""9.5 New token ids need new rows in the input table and in the output head."""
import math

import numpy as np

from esm import check_close, check_true, softmax

rng = np.random.default_rng(95)
V, d, k = 8, 4, 2
E = rng.normal(0.0, 1.0, (V, d))
W = rng.normal(0.0, 1.0, (V, d))               # untied output head
new_ids = np.array([V, V + 1])                 # the tokenizer now emits ids 8 and 9

try:                                           # wrong: use the new ids with the old table
    E[new_ids]
    error = None
except IndexError as exc:
    error = str(exc)
print(check_true("wrong: looking up id 8 in an 8-row table fails", error is not None,
                 f"IndexError: {error}"))
h = rng.normal(0.0, 1.0, d)
try:                                           # wrong: ask the old head for the logit of id 8
    (W @ h)[new_ids[0]]
    head_error = None
except IndexError as exc:
    head_error = str(exc)
print(check_true("wrong: the old head has no logit for id 8, so ids 8 and 9 can never be predicted",
                 head_error is not None, f"IndexError: {head_error}"))

# Right: grow both tables, new rows at the mean row, and check every new id has a row and a logit.
E2 = np.vstack([E, np.tile(E.mean(0), (k, 1))])
W2 = np.vstack([W, np.tile(W.mean(0), (k, 1))])
p2 = softmax(W2 @ h)
z2 = [float(W2[j] @ h) for j in range(V + k)]                  # the logits by a loop over rows
p_new_loop = [math.exp(z2[j]) / sum(math.exp(z) for z in z2) for j in new_ids]
print(check_close("right: the resized head gives ids 8 and 9 a probability, exp(z_j) / sum_k exp(z_k) by a loop",
                  p2[new_ids], p_new_loop, atol=1e-12))
# (Old rows stay as they were: np.vstack copies them, so comparing E2[:V] with E would compare E with E.)
mean_loop = [sum(E[i, j] for i in range(V)) / V for j in range(d)]
print(check_close("right: the new rows of the input table are the mean of the old rows (a loop over rows)",
                  E2[new_ids], np.tile(mean_loop, (k, 1)), atol=1e-12))
