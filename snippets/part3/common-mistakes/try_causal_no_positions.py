"""Try this: give the demo's layer a causal mask and still no positions. 'bites' now differs between 'dog bites
man' and 'man bites dog', since it reads 'dog' in one and 'man' in the other; but 'man' at the end of 'dog bites
man' and of 'bites dog man' gets exactly the same vector: it reads the same three words, and their order is lost."""
import numpy as np

from esm import attention, causal_mask, check_close, check_true

rng = np.random.default_rng(94)
V, d = 10, 8
E = rng.normal(0.0, 1.0, (V, d))
WQ, WK, WV = (rng.normal(0.0, d ** -0.5, (d, d)) for _ in range(3))


def read(ids):
    X = E[ids]                                   # no positions, as in the demo's wrong half
    return attention(X @ WQ, X @ WK, X @ WV, mask=causal_mask(len(ids)))[0]   # changed: was no mask


a, b, c = read([3, 6, 8]), read([8, 6, 3]), read([6, 3, 8])   # dog bites man, man bites dog, bites dog man
rel = float(np.linalg.norm(a[1] - b[1]) / np.linalg.norm(a[1]))
print(check_true("with the mask, 'bites' differs between 'dog bites man' and 'man bites dog'", rel > 1e-6,
                 f"by {rel:.1%} of its norm"))
print(check_close("but 'man' at the end of 'dog bites man' and of 'bites dog man' is the same vector", a[2], c[2],
                  atol=1e-12))
