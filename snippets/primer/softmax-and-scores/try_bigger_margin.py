"""Try this: double the margin of the relevant key, D = 4 to D = 8: the weight now stays near 1 among ten tokens,
but a fixed margin still fades: once the distractors outnumber e^D the weight is below one half, and at 10,000
tokens below a quarter."""
import math

import numpy as np

from esm import check_close, check_true, softmax

Ts = [10, 100, 1000, 2000, 4000, 10000]
delta = 8.0                                            # changed: was 4.0


def top_weight(T, margin):
    s = np.zeros(T)
    s[0] = margin                                      # one relevant key, T - 1 distractors at score 0
    return float(softmax(s)[0])


w = {T: top_weight(T, delta) for T in Ts}
print("weight on the relevant key: " + ", ".join(f"T = {T:,}: {w[T]:.3f}" for T in Ts)
      + f"  (e^D = {math.exp(delta):.0f})")
print(check_close("the softmax weights follow e^D / (e^D + T - 1) with D = 8", np.array(list(w.values())),
                  np.array([math.exp(delta) / (math.exp(delta) + T - 1) for T in Ts]), atol=1e-12))
print(check_true("among ten tokens the weight is near 1", w[10] > 0.99, f"{w[10]:.4f} > 0.99"))
print(check_true("it falls below one half between T = 2,000 and 4,000, where T - 1 passes e^D",
                 w[2000] > 0.5 > w[4000] and 2000 - 1 < math.exp(delta) < 4000 - 1,
                 f"{w[2000]:.3f} at 2,000, {w[4000]:.3f} at 4,000, e^D = {math.exp(delta):.1f}"))
print(check_true("at T = 10,000 it is below a quarter", w[10000] < 0.25, f"{w[10000]:.4f} < 0.25"))
