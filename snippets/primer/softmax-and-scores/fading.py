"""P4 Attention fading: with a fixed score margin, the weight on the one relevant key falls
like 1/T."""
import math

import numpy as np

from esm import PALETTE, check_close, check_less, check_true, figure, glue, softmax, svg, table

Ts = [10, 100, 1000, 10000]
delta = 4.0


def top_weight(T, margin):
    s = np.zeros(T)
    s[0] = margin                                      # one relevant key, T - 1 distractors at score 0
    return float(softmax(s)[0])


closed = [math.exp(delta) / (math.exp(delta) + T - 1) for T in Ts]
print(check_close("weight on the relevant key = e^D / (e^D + T - 1) for T = 10..10000 (D = 4)",
                  np.array([top_weight(T, delta) for T in Ts]), np.array(closed), eq="fading", atol=1e-12))
print(glue("Ts", Ts), glue("delta", delta, ".0f"),
      glue("w_fixed_first", closed[0], ".2f"), glue("w_fixed_last", closed[-1], ".3f"), glue("T_last", Ts[-1], ","))
# The rate itself, from the softmax: T times the weight approaches e^D, so the weight falls like 1/T.
rate = [T * top_weight(T, delta) / math.exp(delta) for T in Ts]
print(glue("rate_last", rate[-1], ".3f"))
print(check_true("T times the softmax weight, over e^D, rises toward 1 with T and is within 1% of 1 at the last length",
                 all(a < b for a, b in zip(rate, rate[1:])) and abs(rate[-1] - 1) < 0.01,
                 "T A_rel / e^D = " + ", ".join(f"{r:.4f}" for r in rate)))
rng = np.random.default_rng(6)
rand = [float(softmax(rng.normal(size=(200, T)), axis=1).max(axis=1).mean()) for T in Ts]
print(table(("sequence length $T$", "uniform weight $1/T$", "relevant key, margin 4",
             "largest weight, random scores of std 1"),
            [(f"{T:,}", f"{1 / T:.4f}", f"{c:.4f}", f"{r:.4f}") for T, c, r in zip(Ts, closed, rand)]))
print(check_less("random unit-variance scores: the largest weight shrinks from T = 10 to T = 10000", rand[-1], rand[0],
                 names=("T = 10000", "T = 10")))

grid = np.unique(np.geomspace(2, 20000, 80).astype(int))
fig, ax = figure(size=(5.6, 2.8))
for j, D in enumerate((2.0, 4.0, 8.0)):
    ax.plot(grid, [math.exp(D) / (math.exp(D) + T - 1) for T in grid], color=PALETTE[j], ls=["-", "--", "-."][j],
            label=f"margin {D:g}")
ax.set_xscale("log")
ax.set_xlabel("sequence length $T$")
ax.set_ylabel("weight on the relevant key")
ax.legend(fontsize=8, frameon=False)
print(svg(fig, alt="Weight on one relevant key against sequence length for fixed margins 2, 4 and 8, which all "
          "fall toward zero",
          caption="A fixed score margin fades as distractors accumulate."))
