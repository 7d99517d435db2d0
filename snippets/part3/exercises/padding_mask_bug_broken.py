"""Debugging exercise: a padded batch. The broken code runs; the check it fails (a padded sequence
must give the outputs of the same sequence alone) is printed as the expected failure."""
import numpy as np

from esm import attention, check_close, check_equal, expect_failure

X = np.array([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],       # batch of 2, T = 3, d = 2 (Q = K = V = X)
              [[2.0, 0.0], [0.0, 2.0], [9.0, 9.0]]])      # sequence 1 has 2 tokens and one pad slot
valid = np.array([[True, True, True], [True, True, False]])


def check_padding(attend):
    """Sequence 1's real positions must give what the 2-token sequence gives alone."""
    alone = attention(X[1, :2], X[1, :2], X[1, :2])[0]
    return check_close("sequence 1 padded gives the outputs of sequence 1 alone at its 2 real positions",
                       attend(X, valid)[1, :2], alone, atol=1e-12)


def attend_broken(X, valid):
    out, _ = attention(X, X, X)
    return out * valid[:, :, None]                  # zero the outputs of padded positions (queries)


def run_broken():
    return check_padding(attend_broken)


print(check_equal("the broken layer runs and returns one output row per position (the bug is silent)",
                  attend_broken(X, valid).shape, X.shape))
print(expect_failure(run_broken))
