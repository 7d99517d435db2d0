"""Try this: double the query of the soft-lookup demo: its weights become those of tau = 0.5, a sharper lookup."""
import numpy as np

from esm import attention, check_true

rng = np.random.default_rng(72)
q = rng.normal(0.0, 1.0, (1, 4))
K = rng.normal(0.0, 1.0, (6, 4))
V = rng.normal(0.0, 1.0, (6, 3))
w = attention(q, K, V)[1][0]
w_new = attention(2 * q, K, V)[1][0]             # changed: was q
best = int(np.argmax(w))
w_half = attention(q, K, V, temperature=0.5)[1][0]
print(check_true(f"the weights of 2q are those of q at tau = 0.5, and the best key ({best}) gains weight",
                 bool(np.allclose(w_new, w_half, rtol=0, atol=1e-12) and w_new[best] > w[best]),
                 f"best key's weight {w[best]:.3f} -> {w_new[best]:.3f}"))
