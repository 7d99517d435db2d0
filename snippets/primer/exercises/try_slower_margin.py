"""Try this: in part (c) of the exercise on attention fading, let the margin grow half as fast, 0.5 log T + c
instead of log T + c. Expect the weight to fade again, only more slowly than for a fixed margin: e^Delta =
e^c sqrt(T) falls behind the T - 1 distractors, so A_rel shrinks like e^c / sqrt(T)."""
import math

import numpy as np

from esm import check_close, check_true, softmax


def relevant_weight(delta, T):
    return math.exp(delta) / (math.exp(delta) + T - 1)


c = 2.0
Ts = np.array([10, 100, 1000, 10_000, 100_000])
margins = 0.5 * np.log(Ts) + c                           # changed: was np.log(Ts) + c
grow = np.array([relevant_weight(m, T) for m, T in zip(margins, Ts)])
by_softmax = np.array([softmax(np.r_[m, np.zeros(T - 1)])[0] for m, T in zip(margins, Ts)])   # explicit scores
print(check_close("A_rel = e^D / (e^D + T - 1) (the formula against the softmax of explicit scores)", grow, by_softmax,
                  atol=1e-12))
print(check_true("the weight falls at every step of T, towards 0", bool(np.all(np.diff(grow) < 0)),
                 ", ".join(f"{w:.4f}" for w in grow) + " for T = 10 to 100,000"))
print(check_true("... like e^c / sqrt(T): sqrt(T) A_rel rises towards e^c and stays below it",
                 bool(np.all(np.diff(np.sqrt(Ts) * grow) > 0) and np.all(np.sqrt(Ts) * grow < math.exp(c))),
                 f"sqrt(T) A_rel from {math.sqrt(Ts[0]) * grow[0]:.3f} to {math.sqrt(Ts[-1]) * grow[-1]:.3f}, e^c = {math.exp(c):.3f}"))
