"""Try this: build the causal-mask exercise's mask with k=-1 instead of k=1, one diagonal too strict. No position
reads itself: position 1 reads only token 0 and outputs it, and position 0 has no key at all, so its softmax
divides 0 by 0 and its output is NaN."""
import numpy as np

from esm import attention, check_close, check_true

X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0]])   # T = 4 tokens, d = 2 (Q = K = V = X)
T = len(X)
mask = np.tril(np.ones((T, T), dtype=bool), k=-1)    # changed: was k=1 (the broken mask; k=0 is the fix)
with np.errstate(invalid="ignore"):                  # the 0/0 is the point here
    out = attention(X, X, X, mask=mask)[0]
print(check_true("position 0 reads no key: its output is NaN", bool(np.all(np.isnan(out[0]))),
                 f"output row 0: {out[0]}"))
print(check_close("position 1 reads only token 0, so it outputs token 0's value row exactly", out[1], X[0], atol=0.0))
print(check_true("positions 1 to 3 stay finite: each has an earlier key", bool(np.all(np.isfinite(out[1:]))),
                 f"rows 1 to 3: {np.round(out[1:], 3).tolist()}"))
