"""Fix of the debugging exercise on a padded batch (7.1): the mask belongs on the keys, not only on
the outputs of the padded queries. With a key mask the same check passes."""
import numpy as np

from esm import attention, check_close

X = np.array([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],       # batch of 2, T = 3, d = 2 (Q = K = V = X)
              [[2.0, 0.0], [0.0, 2.0], [9.0, 9.0]]])      # sequence 1 has 2 tokens and one pad slot
valid = np.array([[True, True, True], [True, True, False]])


def check_padding(attend):
    """Sequence 1's real positions must give what the 2-token sequence gives alone."""
    alone = attention(X[1, :2], X[1, :2], X[1, :2])[0]
    return check_close("sequence 1 padded gives the outputs of sequence 1 alone at its 2 real positions",
                       attend(X, valid)[1, :2], alone, atol=1e-12)


def attend_fixed(X, valid):
    out, _ = attention(X, X, X, mask=valid[:, None, :])   # (B, 1, T): no query may read a padded key
    return out * valid[:, :, None]


def run_fixed():
    return check_padding(attend_fixed)


print(run_fixed())
changed = X.copy()
changed[1, 2] = [-4.0, 3.0]                          # what sits in the pad slot must not matter
print(check_close("the fixed layer ignores the content of the pad slot", attend_fixed(changed, valid), attend_fixed(X, valid),
                  atol=1e-12))
