"""Exercise: the fading formula of one relevant key among T - 1 distractors (P4), derived and
checked against the softmax of explicit scores; a fixed margin fades like 1/T, a margin log T + c
does not."""
import math

import numpy as np

from esm import check_close, check_true, glue, softmax


def relevant_weight(delta, T):
    return math.exp(delta) / (math.exp(delta) + T - 1)


for delta, T in ((math.log(9), 10), (math.log(9), 100), (2.0, 1000)):
    scores = np.zeros(T)
    scores[0] = delta                                    # one key delta above T - 1 equal distractors
    print(check_close(f"(a) A_rel = e^D / (e^D + T - 1) for D = {delta:.4g}, T = {T} (softmax of the scores)",
                      softmax(scores)[0], relevant_weight(delta, T), atol=1e-15))
Ts = np.array([10, 100, 1000, 10_000, 100_000])
fixed = np.array([relevant_weight(math.log(9), T) for T in Ts])
print(check_close("(b) closed form: T A_rel = 9T / (T + 8) for a fixed margin D = log 9", Ts * fixed, 9 * Ts / (Ts + 8),
                  atol=1e-9))
by_softmax = np.array([T * softmax(np.r_[math.log(9), np.zeros(T - 1)])[0] for T in Ts])   # explicit scores
dist = np.abs(by_softmax - 9)
print(check_true("(b) the limit: |T A_rel - 9| shrinks at every step and is at most 72/T (softmax of explicit scores)",
                 bool(np.all(np.diff(dist) < 0) and np.all(dist <= 72 / Ts)),
                 f"|T A_rel - 9| = {', '.join(f'{x:.3g}' for x in dist)} for T = {', '.join(str(T) for T in Ts)}"))
c = 2.0
grow = np.array([relevant_weight(math.log(T) + c, T) for T in Ts])
limit = math.exp(c) / (math.exp(c) + 1)
print(check_close("(c) a margin log T + c: A_rel = e^c / (e^c + 1 - 1/T) (closed form vs the formula)", grow,
                  math.exp(c) / (math.exp(c) + 1 - 1 / Ts), atol=1e-15))
print(check_true("(c) ... which falls with T and stays above e^c / (e^c + 1)",
                 bool(np.all(np.diff(grow) < 0) and np.all(grow > limit)),
                 f"from {grow[0]:.6f} at T = 10 to {grow[-1]:.6f}, limit {limit:.6f}"))
print(glue("fd_w10", fixed[0], ".2f"), glue("fd_limit", limit, ".3f"), glue("fd_c72", 9 * (9 - 1)), sep="")
