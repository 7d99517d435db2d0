"""Try this: the collapsed router with a margin of 0.01 in its logits instead of 8. Expect every token
still to go to the same two experts, yet the loss to fall almost to its balanced value 1 (alpha): the
router's probabilities are nearly even over all eight experts, and P, not f, is what the loss reads them from."""
import numpy as np

from esm import check_equal, check_less, softmax


def balance_loss(logits, k):
    """E sum_i f_i P_i: f_i the share of the k T assignments that go to expert i, P_i its mean probability."""
    T, E = logits.shape
    chosen = np.argsort(-logits, axis=1, kind="stable")[:, :k]
    f = np.bincount(chosen.ravel(), minlength=E) / (k * T)
    P = softmax(logits, axis=1).mean(axis=0)
    return E * float(f @ P), f, P


E, k = 8, 2
col = np.zeros((64, E))
col[:, :k] = [0.01, 0.01001]                              # changed: was [8.0, 8.001]
aux, f, P = balance_loss(col, k)
print(check_equal("every token still goes to experts 0 and 1: f = (1/2, 1/2, 0, ..., 0)", f.tolist(),
                  [0.5, 0.5] + [0.0] * (E - 2)))
print(check_less("... yet the loss is within 1% of the balanced value 1, far from the ceiling E / k = 4", aux, 1.01,
                 names=("E sum_i f_i P_i", "1.01")))
print(f"P = {np.round(P, 3).tolist()}")
