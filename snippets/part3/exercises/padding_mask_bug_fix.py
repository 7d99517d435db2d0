"""Fix of the debugging exercise on a padded batch (7.1): the mask belongs on the keys, not only on
the outputs of the padded queries. With a key mask the same check passes."""
import numpy as np

from esm import attention, causal_mask, check_close, check_equal, check_true, glue

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
# (a) the broken layer (no key mask): position i of sequence 1 is right exactly when the pad row equals o_i.


def attend_broken(X, valid):
    out, _ = attention(X, X, X)
    return out * valid[:, :, None]


o_alone = attention(X[1, :2], X[1, :2], X[1, :2])[0]
for i in range(2):
    with_pad = X.copy()
    with_pad[1, 2] = o_alone[i]
    right = [bool(np.allclose(attend_broken(with_pad, valid)[1, t], o_alone[t], atol=1e-12, rtol=0)) for t in range(2)]
    print(check_equal(f"(a) broken layer, pad row = o_{i}: position {i} is right, position {1 - i} is not", right,
                      [t == i for t in range(2)]))
zero_pad = X.copy()
zero_pad[1, 2] = 0.0
print(check_true("(a) broken layer, pad row = 0: both real positions are wrong",
                 all(not np.allclose(attend_broken(zero_pad, valid)[1, t], o_alone[t], atol=1e-12, rtol=0) for t in range(2)),
                 f"max |difference| {np.abs(attend_broken(zero_pad, valid)[1, :2] - o_alone).max():.3g}"))
# Causal and left-padded: the pad slot comes first, so the pad query may read only itself, a pad key.
X_left = np.array([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
                   [[9.0, 9.0], [2.0, 0.0], [0.0, 2.0]]])          # sequence 1: pad slot, then its 2 tokens
valid_left = np.array([[True, True, True], [False, True, True]])
both = valid_left[:, None, :] & causal_mask(3)                      # key mask and causal mask at once
with np.errstate(invalid="ignore"):                                 # 0/0 in the softmax is the point here
    out_left = attention(X_left, X_left, X_left, mask=both)[0]
nan_rows = [(int(b), int(t)) for b, t in zip(*np.nonzero(np.isnan(out_left).any(axis=2)))]
print(check_equal("left padding + causal mask: the only row with no key to read, (sequence 1, position 0), is NaN",
                  nan_rows, [(1, 0)]))
print(check_true("multiplying by the valid flags keeps the NaN (NaN times 0 is NaN)",
                 bool(np.isnan(out_left * valid_left[:, :, None]).any()), "NaN left after the multiplication"))


def attend_causal_safe(X, valid):
    mask = (valid[:, None, :] & causal_mask(X.shape[1])) | ~valid[:, :, None]   # a pad query may read any key
    out, _ = attention(X, X, X, mask=mask)
    return np.where(valid[:, :, None], out, 0.0)


safe = attend_causal_safe(X_left, valid_left)
alone = attention(X_left[1, 1:], X_left[1, 1:], X_left[1, 1:], mask=causal_mask(2))[0]
print(check_true("the repaired mask gives a finite output everywhere", bool(np.isfinite(safe).all()),
                 f"{int(np.isnan(out_left).sum())} NaN entries before, {int(np.isnan(safe).sum())} after"))
print(check_close("... the real positions give what the 2-token sequence gives alone under its own causal mask",
                  safe[1, 1:], alone, atol=1e-12))
changed_left = X_left.copy()
changed_left[1, 0] = [-4.0, 3.0]
print(check_close("... and the content of the pad slot changes nothing", attend_causal_safe(changed_left, valid_left), safe,
                  atol=1e-12))
print(glue("pd_nan", int(np.isnan(out_left).sum())), glue("pd_o0", o_alone[0], ".3f"), glue("pd_o1", o_alone[1], ".3f"),
      sep="")
