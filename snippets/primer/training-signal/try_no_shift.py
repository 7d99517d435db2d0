"""Try this: in the redraw with GPT-2's standard deviation 0.02, score each row on its own input token instead of
the next one (targets = seq[:-1] instead of seq[1:]). The untrained model then scores below log|V|: row t has
read its target, and the tied head scores each token by a dot product with that token's row of E, which row t
carries from its input. The shift is what keeps the answer out of the row that predicts it."""
import math

import numpy as np

from esm import TINY, check_less, gpt_forward, init_gpt, log_softmax

V = TINY["V"]
seq = np.array([3, 14, 15, 9, 26, 5, 35, 8, 17])           # the demo's T + 1 tokens
inputs = seq[:-1]
T = len(inputs)
small = init_gpt(**TINY, scale=0.02)                        # the demo's redraw with GPT-2's standard deviation
Z = gpt_forward(inputs, small)


def loss_of(Z, targets):
    return float(-log_softmax(Z)[np.arange(T), targets].mean())


shifted = loss_of(Z, seq[1:])                               # the demo's targets, the next tokens
unshifted = loss_of(Z, seq[:-1])                            # changed: was seq[1:], the next tokens
print(f"loss {shifted:.3f} nats on the next tokens, {unshifted:.3f} on the tokens already read; "
      f"log|V| = {math.log(V):.3f}")
print(check_less("scored on the tokens it has read, the untrained model beats a uniform guess", unshifted,
                 math.log(V), names=("loss, no shift", "log|V|")))
print(check_less("and scores better than on the next tokens", unshifted, shifted,
                 names=("loss, no shift", "loss, shifted")))
