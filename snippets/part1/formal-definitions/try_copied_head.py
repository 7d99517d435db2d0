"""Try this: instead of tying, give the model its own output head initialised as a copy of E (W = E.copy()). At
that point the logits and the loss are the same, but one gradient step moves the two tables differently: the
lookup's step reaches row i of E only, the head's step every row of W, so the copy stops being a copy."""
import numpy as np

from esm import check_close, check_equal, check_true, cross_entropy, numerical_grad

E = np.array([[1.0, -1.0],
              [0.5, 0.5],
              [-1.0, 0.0]])             # the tied table of 2.4
V, d = E.shape
i, y = 0, 1                             # input token 0, target token 1
W = E.copy()                            # changed: was W = E, one shared table (tied)


def loss(E_in, W_out):
    """Cross-entropy of the target after looking up token i in E_in and scoring with W_out."""
    return cross_entropy(W_out @ E_in[i], y)


g_E = numerical_grad(lambda T: loss(T, W), E.copy())      # the input table's gradient
g_W = numerical_grad(lambda T: loss(E, T), W.copy())      # the head's gradient
g_tied = numerical_grad(lambda T: loss(T, T), E.copy())   # the tied model's, for comparison
eta = 0.5
E1, W1 = E - eta * g_E, W - eta * g_W                     # one step of plain gradient descent on each table
moved_E = [int(k) for k in np.flatnonzero(np.abs(E1 - E).max(axis=1) > 1e-9)]
moved_W = [int(k) for k in np.flatnonzero(np.abs(W1 - W).max(axis=1) > 1e-9)]

print(f"rows moved by the step: E {moved_E}, W {moved_W};  largest |E - W| after it: {np.abs(E1 - W1).max():.3f}")
print(check_close("before the step the copy scores like the tied table: the same loss", loss(E, W), loss(E, E),
                  atol=0.0))
print(check_close("and the two gradients add up to the tied one (finite differences)", g_E + g_W, g_tied, atol=1e-8))
print(check_equal("the step moves row i of E only, and every row of W", [moved_E, moved_W], [[i], list(range(V))]))
print(check_true("so after one step the head is no longer a copy of E: every row differs",
                 bool(np.all(np.abs(E1 - W1).max(axis=1) > 1e-3)),
                 "largest difference per row " + ", ".join(f"{x:.3f}" for x in np.abs(E1 - W1).max(axis=1))))
