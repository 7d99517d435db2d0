"""P15 The load-balancing loss alpha E sum_i f_i P_i (alpha = 1 here): the pencil example, balanced, collapsed,
and below 1 when f and P disagree."""
import math

import numpy as np

from esm import check_close, check_less, glue, softmax


def balance_loss(logits, k):
    """E sum_i f_i P_i: f_i the share of the k T assignments that go to expert i, P_i its mean probability."""
    T, E = logits.shape
    chosen = np.argsort(-logits, axis=1, kind="stable")[:, :k]
    f = np.bincount(chosen.ravel(), minlength=E) / (k * T)
    P = softmax(logits, axis=1).mean(axis=0)
    return E * float(f @ P), f, P


Z = np.array([[2.0, 1.0, 0.0, -1.0], [0.0, 3.0, 1.0, 2.0], [2.0, -1.0, 2.0, 0.0]])     # the router's pencil example
aux, f, P = balance_loss(Z, 2)
print(check_close("pencil: f = the hand count (2, 2, 1, 1) / 6", f, np.array([2, 2, 1, 1]) / 6, atol=1e-15, eq="balance"))
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
# Below the balanced value, E = 2, k = 1: three tokens lean barely towards expert 0 (no tie to break), one is
# sure of expert 1. f = (3/4, 1/4), P close to (3/8, 5/8), and E sum f_i P_i close to 2 (9/32 + 5/32) = 7/8.
lean = 0.01
unsure, f2, _ = balance_loss(np.array([[lean, 0.0]] * 3 + [[-30.0, 30.0]]), 1)
P_0 = 3 / 4 / (1 + math.exp(-lean))                     # expert 0's mean probability: 3 tokens of 4 at the logistic of the lean
print(check_close("f = (3/4, 1/4) and the loss = 2 (3/4 P_0 + 1/4 (1 - P_0))", [*f2, unsure],
                  [3 / 4, 1 / 4, 2 * (3 / 4 * P_0 + 1 / 4 * (1 - P_0))], atol=1e-12, eq="balance"))
print(check_less("... below the balanced value 1", unsure, 1.0, names=("E sum_i f_i P_i", "1")))
print(glue("bl_pencil", aux, ".2f"), glue("bl_P", P.tolist(), ".2f"), glue("bl_E", E), glue("bl_k", k),
      glue("bl_ceiling", E // k), glue("bl_collapsed", balance_loss(col, k)[0], ".3f"), glue("bl_unsure", unsure, ".3f"),
      glue("bl_lean", lean, ".2f"))
