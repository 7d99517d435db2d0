"""P15 The load-balancing loss alpha E sum_i f_i P_i (alpha = 1 here): against a loop, balanced, collapsed,
and below 1 for an unsure router."""
import math

import numpy as np

from esm import check_close, glue, softmax


def balance_loss(logits, k):
    """E sum_i f_i P_i: f_i the share of the k T assignments that go to expert i, P_i its mean probability."""
    T, E = logits.shape
    chosen = np.argsort(-logits, axis=1, kind="stable")[:, :k]
    f = np.bincount(chosen.ravel(), minlength=E) / (k * T)
    P = softmax(logits, axis=1).mean(axis=0)
    return E * float(f @ P), f, P


def balance_loop(logits, k):
    """The same in plain Python: count each expert's choices, add up its probabilities."""
    T, E = logits.shape
    f = [sum(e in sorted(range(E), key=lambda i: -z[i])[:k] for z in logits.tolist()) / (k * T) for e in range(E)]
    P = [sum(math.exp(z[e]) / sum(map(math.exp, z)) for z in logits.tolist()) / T for e in range(E)]
    return E * sum(a * b for a, b in zip(f, P))


Z = np.array([[2.0, 1.0, 0.0, -1.0], [0.0, 3.0, 1.0, 2.0], [2.0, -1.0, 2.0, 0.0]])     # the router's pencil example
aux, f, P = balance_loss(Z, 2)
print(check_close("pencil: E sum_i f_i P_i = the loop's, with f = (2, 2, 1, 1) / 6", [aux, *f], [balance_loop(Z, 2), 2 / 6, 2 / 6,
                  1 / 6, 1 / 6], atol=1e-12, eq="balance"))
E, k = 8, 2
# Balanced: token t's logit is 3 for expert t mod E, 0 for the others; by symmetry f_i = P_i = 1/E (k = 1).
print(check_close("balanced, f_i = P_i = 1/E: E E (1/E)^2 = 1", balance_loss(3.0 * np.eye(E)[np.arange(4 * E) % E], 1)[0], 1.0,
                  atol=1e-12, eq="balance"))
# Collapsed: every token puts the same k experts first, by a margin of 8 in its logits.
col = np.zeros((64, E))
col[:, :k] = [8.0, 8.001]
mass = float(softmax(col, axis=1)[0, :k].sum())
print(check_close(f"collapsed onto k = {k} experts: (E / k) times their probability, near the ceiling E / k",
                  balance_loss(col, k)[0], E / k * mass, atol=1e-12, eq="balance"))
# An unsure router, E = 2, k = 1: three tokens at (0, 0) go to expert 0 by the tie-break, one at (-30, 30) to
# expert 1: f = (3/4, 1/4), P = (3/8, 5/8) up to e^-60, and E sum f_i P_i = 7/8.
unsure = balance_loss(np.array([[0.0, 0.0]] * 3 + [[-30.0, 30.0]]), 1)[0]
print(check_close("an unsure router scores 7/8, below the balanced 1", unsure, 7 / 8, atol=1e-12, eq="balance"))
print(glue("bl_pencil", aux, ".2f"), glue("bl_P", P.tolist(), ".2f"), glue("bl_E", E), glue("bl_k", k),
      glue("bl_ceiling", E // k), glue("bl_collapsed", balance_loss(col, k)[0], ".3f"), glue("bl_unsure", unsure, ".3f"))
