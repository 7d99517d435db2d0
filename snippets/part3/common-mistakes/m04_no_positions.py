"""9.4 Without positions, attention cannot tell "dog bites man" from "man bites dog"."""
import numpy as np

from esm import attention, check_close, check_equal, glue, sinusoidal_positions

rng = np.random.default_rng(94)
V, d = 10, 8
E = rng.normal(0.0, 1.0, (V, d))
WQ, WK, WV = (rng.normal(0.0, d ** -0.5, (d, d)) for _ in range(3))
a, b = np.array([3, 6, 8]), np.array([8, 6, 3])          # dog bites man / man bites dog

def read(ids, positions):
    X = E[ids] + (sinusoidal_positions(len(ids), d) if positions else 0.0)
    out, _ = attention(X @ WQ, X @ WK, X @ WV)            # no mask: an encoder layer
    return out

wa, wb = read(a, False), read(b, False)
print(check_close("wrong: without positions, the outputs of b are those of a, reordered",
                  wb, wa[::-1], atol=1e-12))
print(check_close("wrong: so 'bites' (middle) gets the same vector in both sentences",
                  wa[1], wb[1], atol=1e-12))
ra, rb = read(a, True), read(b, True)
print(check_equal("right: with sinusoidal positions added, 'bites' differs between the sentences",
                  bool(np.allclose(ra[1], rb[1])), False))
# How large is that difference? Against the state's own norm, and against the change that
# replacing the middle word itself makes (same order, every other word of the vocabulary).
diff = float(np.linalg.norm(ra[1] - rb[1]))
rel = diff / float(np.linalg.norm(ra[1]))
swaps = [float(np.linalg.norm(read(np.array([3, k, 8]), True)[1] - ra[1])) for k in range(V) if k not in (3, 6, 8)]
print(glue("m4_rel", rel, ".1%"), glue("m4_ratio", float(np.median(swaps)) / diff, ".0f"),
      glue("m4_nswap", len(swaps)), glue("m4_d", d), sep="")
