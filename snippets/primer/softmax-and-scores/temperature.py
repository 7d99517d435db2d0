"""P4 Temperature: softmax(s / tau) for the scores (2, 4, 1)."""
import numpy as np

from esm import PALETTE, check_close, check_true, figure, glue, softmax, svg, table

s = np.array([2.0, 4.0, 1.0])
taus = [0.25, 0.5, 1.0, 2.0, 4.0]


def entropy(p):
    """H(p) = -sum_j p_j log p_j in nats, by a loop over the entries."""
    return -sum(float(v) * float(np.log(v)) for v in p)


rows = [(f"{t:g}", *[f"{v:.3f}" for v in softmax(s, temperature=t)], f"{entropy(softmax(s, temperature=t)):.3f}")
        for t in taus]
print(table(("$\\tau$", "key 0 (score 2)", "key 1 (score 4)", "key 2 (score 1)", "entropy (nats)"), rows))
for name, t in (("half", 0.5), ("one", 1.0), ("two", 2.0)):
    print(glue(f"tau_{name}", t, "g"), glue(f"w_{name}", softmax(s, temperature=t), ".3f"),
          glue(f"top_{name}", float(softmax(s, temperature=t).max()), ".2f"))
print(glue("log3", float(np.log(3)), ".4f"))
print(check_close("tau = 0.5 is the same as doubling the scores", softmax(s, temperature=0.5), softmax(2 * s),
                  eq="temperature", atol=1e-12))
H = [entropy(softmax(s, temperature=t)) for t in np.geomspace(0.05, 50, 60)]
print(check_true("the entropy grows with tau (60 temperatures from 0.05 to 50)", all(np.diff(H) > 0),
                 f"from {H[0]:.2e} to {H[-1]:.4f} nats; log 3 = {np.log(3):.4f}"))
print(check_close("tau -> 0: all weight on the largest score (tau = 0.02)", softmax(s, temperature=0.02),
                  np.array([0.0, 1.0, 0.0]), atol=1e-30))
print(check_close("tau -> infinity: uniform weights (tau = 1e6)", softmax(s, temperature=1e6), np.full(3, 1 / 3), atol=1e-6))

grid = np.geomspace(0.1, 10, 200)
W = np.array([softmax(s, temperature=t) for t in grid])
fig, ax = figure(size=(5.6, 2.8))
for j, (lab, ls) in enumerate([("score 2", "--"), ("score 4", "-"), ("score 1", ":")]):
    ax.plot(grid, W[:, j], ls=ls, color=PALETTE[j], label=lab)
ax.axhline(1 / 3, lw=0.8, color=PALETTE[4])
ax.set_xscale("log")
ax.set_xlabel("temperature $\\tau$")
ax.set_ylabel("weight")
ax.legend(frameon=False)
print(svg(fig, alt="Softmax weights of the scores 2, 4 and 1 as temperature goes from 0.1 to 10: the score-4 "
          "weight falls from 1 toward one third, the others rise toward one third",
          caption="Low $\\tau$ sharpens towards the largest score, high $\\tau$ flattens towards $1/3$ each."))
