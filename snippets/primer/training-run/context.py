"""What context buys: the same run without attention (the ablation), and the loss at each position
of the window for the trained model, the ablation and the bigram baseline."""
import copy
import math

import numpy as np

from esm import PALETTE, check_close, check_less, check_true, figure, glue, gpt_forward, svg
from esm.sweeps import record
from esm.tokenizer import VOCAB_SIZE, data
from esm.train import ABLATION, POSITION_BATCHES, SNAPSHOTS, TRAIN, bigram_loss, eval_windows, evaluate, trained

D = data()
V, steps, T = VOCAB_SIZE, TRAIN["steps"], TRAIN["T"]
model, curve, evals, snaps = trained(D.train, D.val, V, TRAIN, snapshots=SNAPSHOTS)   # the run above (one run)
# The ablation: the same seed, batches, schedule and steps, but every attention sublayer skipped, so that
# each position sees its own token (and its position) only.
abl, abl_curve, abl_evals, _ = trained(D.train, D.val, V, ABLATION)
final_val, abl_val = float(evals[-1, 2]), float(abl_evals[-1, 2])
x, y = eval_windows(D.val)
alphas = (0.01, 0.03, 0.1, 0.3, 1.0)
bis = [bigram_loss(D.train, y, V, a, prev=x) for a in alphas]
bi, alpha = min(bis), alphas[int(np.argmin(bis))]             # the run's baseline, as above

# Without attention the model is P7's model with every attention output switched off: W_O = 0, b_O = 0.
off = copy.deepcopy(abl)
off.pop("attention")
for p in off["blocks"]:
    p["W_O"][...] = 0.0
    p["b_O"][...] = 0.0
Z = gpt_forward(x, off)
lse = np.log(np.exp(Z - Z.max(-1, keepdims=True)).sum(-1)) + Z.max(-1)
print(check_close("the ablation's validation loss = its weights through P7's gpt_forward with W_O and b_O set to 0",
                  abl_val, float((lse - np.take_along_axis(Z, y[..., None], -1)[..., 0]).mean()), atol=1e-10))

# The loss by position, on more windows than the run's (each position has one target per window).
cfg_pos = dict(TRAIN, eval_batches=POSITION_BATCHES)
xp, yp = eval_windows(D.val, cfg_pos)
full_pos = evaluate(model, D.val, cfg_pos, by_position=True)
abl_pos = evaluate(abl, D.val, cfg_pos, by_position=True)
counts = np.zeros((V, V)) + alpha
np.add.at(counts, (D.train[:-1], D.train[1:]), 1)
bi_pos = -np.log(counts / counts.sum(1, keepdims=True))[xp, yp].mean(0)
# Position 0 by another route: causal attention lets no later token in, so the first position's loss is
# the loss of the model run on windows of one token.
Z1 = gpt_forward(xp[:, :1], model)[:, 0]
one = np.log(np.exp(Z1 - Z1.max(-1, keepdims=True)).sum(-1)) + Z1.max(-1) - np.take_along_axis(Z1, yp[:, :1], -1)[:, 0]
print(check_close("the full model's loss at position 0 = its loss on windows of one token (P7's gpt_forward)",
                  float(full_pos[0]), float(one.mean()), atol=1e-10))
print(check_close("the losses by position average to the loss on the same windows", float(full_pos.mean()),
                  evaluate(model, D.val, cfg_pos), atol=1e-10))

gain = bi_pos - full_pos
sweep = record("p11")
print(glue("abl_val", abl_val, ".3f"), glue("ctx_gain", abl_val - final_val, ".2f"),
      glue("n_pos_win", len(xp)), glue("pos0_gap", float(full_pos[0] - bi_pos[0]), ".2f"),
      glue("gain_1_3", float(gain[1:4].mean()), ".2f"), glue("gain_4_15", float(gain[4:16].mean()), ".2f"),
      glue("gain_16", float(gain[16:].mean()), ".2f"))
# The ablation's distance from the bigram (its loss minus the bigram's) over the recorded seeds, rounded outward.
gaps = [-v for v in sweep.values("abl_margin").values()]
print(glue("ctx_lo", sweep.spread("ctx_gain", 2)[0], ".2f"), glue("ctx_hi", sweep.spread("ctx_gain", 2)[1], ".2f"),
      glue("abl_gap_lo", math.floor(min(gaps) * 1000) / 1000, "+.3f"), glue("abl_gap_hi", math.ceil(max(gaps) * 1000) / 1000, "+.3f"))

fig, (ax_c, ax_p) = figure(1, 2, size=(7.4, 2.9))
ax_c.plot(evals[:, 0], evals[:, 2], color=PALETTE[1], lw=1.2, label="with attention")
ax_c.plot(abl_evals[:, 0], abl_evals[:, 2], color=PALETTE[4], lw=1.2, label="without attention")
ax_c.axhline(bi, color=PALETTE[3], lw=1.0, ls="--")
ax_c.text(steps, bi + 0.03, "bigram", ha="right", va="bottom", fontsize=7, color=PALETTE[3])
ax_c.set_xlabel("step")
ax_c.set_ylabel("validation loss (nats)")
ax_c.set_ylim(final_val - 0.3, math.log(V) + 0.2)
ax_c.legend(fontsize=7, loc="upper right")
pos = np.arange(T)
ax_p.plot(pos, full_pos, color=PALETTE[1], lw=1.2, label="with attention")
ax_p.plot(pos, abl_pos, color=PALETTE[4], lw=1.2, label="without attention")
ax_p.plot(pos, bi_pos, color=PALETTE[3], lw=1.0, ls="--", label="bigram")
ax_p.set_xlabel("position in the window")
ax_p.set_ylabel("loss (nats)")
low, high = min(full_pos.min(), bi_pos.min()), max(abl_pos.max(), bi_pos.max())
ax_p.set_ylim(low - 0.05, high + 0.4 * (high - low))          # room above the curves for the legend
ax_p.legend(fontsize=7, loc="upper center", ncol=3)
drawn = [line.get_ydata() for line in ax_p.lines]
print(svg(fig, alt=f"Two panels. Left: validation loss over the {steps} steps for the model with attention, ending at "
          f"{final_val:.2f}, and the same run without attention, ending at {abl_val:.2f}, against the bigram baseline "
          f"{bi:.2f}. Right: the loss at each of the {T} positions of the window, averaged over {len(xp)} validation windows: "
          f"the model without attention and the bigram stay level across positions, while the model with attention starts "
          f"near them at position 0 ({full_pos[0]:.2f}, against the bigram's {bi_pos[0]:.2f}) and falls over the first "
          f"positions, to {full_pos[16:].mean():.2f} on average from position 16 on.",
          caption=f"What attention buys. Left: validation loss of the run and of the same run without attention. Right: the "
          f"loss at each position of the window, over {len(xp)} validation windows, for both models and the bigram baseline."))
print(check_true("the right panel's three curves are the losses by position computed above",
                 all(np.array_equal(a, b) for a, b in zip(drawn, (full_pos, abl_pos, bi_pos))),
                 f"{len(drawn)} curves of {T} points"))

# The prose's reading of the right panel, on every recorded seed: the ablation stays with the bigram (within
# 0.05 nats at position 0 and from position 16 on); the first three positions of context bring more than
# half the gain of the positions from 16 on, and those add at most a few hundredths to the gain of positions 4-15.
rec = [sweep.per_seed[s_] for s_ in sweep.seeds]
print(check_less("on every recorded seed the ablation's validation loss is within 0.05 nats of the bigram's",
                 max(abs(g) for g in gaps), 0.05, names=("largest distance", "bound")))
groups = (slice(0, 1), slice(1, 4), slice(4, 16), slice(16, None))
print(check_less("in this run the ablation is within 0.05 nats of the bigram in each group of positions (0, 1-3, 4-15, "
                 "16 on)", max(abs(float((abl_pos - bi_pos)[g].mean())) for g in groups), 0.05,
                 names=("largest difference", "bound")))
worst_abl = max(max(abs(r["abl_pos0_gap"]), abs(r["abl_gain_16"])) for r in rec)
print(check_less("on every recorded seed the model without attention is within 0.05 nats of the bigram at position 0 "
                 "and from position 16 on", worst_abl, 0.05, names=("largest difference", "bound")))
print(check_true("on every recorded seed positions 1-3 gain more than half what positions 16 on gain",
                 all(r["gain_1_3"] > r["gain_16"] / 2 for r in rec),
                 f"smallest ratio {min(r['gain_1_3'] / r['gain_16'] for r in rec):.2f}"))
# Beyond position 16: the gain there minus the gain over positions 4-15, on every recorded seed. The prose says
# that no further gain is measured: the difference is at most a few hundredths either way, and mostly negative.
extra = [r["gain_16"] - r["gain_4_15"] for r in rec]
print(glue("extra_lo", math.floor(min(extra) * 100) / 100, "+.2f"), glue("extra_hi", math.ceil(max(extra) * 100) / 100, "+.2f"),
      glue("extra_neg", sum(e < 0 for e in extra)))
print(check_less("on every recorded seed positions 16 on gain at most 0.03 nats more than positions 4-15",
                 max(extra), 0.03, names=("largest excess", "0.03")))
print(check_less("... and at most 0.05 nats less", -0.05, min(extra), names=("-0.05", "smallest excess")))
print(check_less("on every recorded seed the model with attention is worse than the bigram at position 0",
                 0.0, sweep.spread("pos0_gap")[0], names=("0", "smallest gap")))
ctx_lo = math.floor(sweep.spread("ctx_gain")[0] * 100) / 100
print(check_less(f"attention lowers the validation loss by more than {ctx_lo} nats (the smallest gain of the "
                 f"{len(sweep.seeds)} recorded seeds, rounded down)", final_val + ctx_lo, abl_val,
                 names=("with attention + gain", "without")))
print(check_true(f"this run and its ablation (seed {TRAIN['seed']}) = the record's ({sweep.cited()})",
                 *sweep.matches(TRAIN["seed"], {
                     "abl_val": abl_val, "abl_margin": bi - abl_val, "ctx_gain": abl_val - final_val,
                     "pos0_gap": float(full_pos[0] - bi_pos[0]), "abl_pos0_gap": float(abl_pos[0] - bi_pos[0]),
                     "gain_1_3": float(gain[1:4].mean()), "gain_4_15": float(gain[4:16].mean()),
                     "gain_16": float(gain[16:].mean()), "abl_gain_16": float((bi_pos - abl_pos)[16:].mean()),
                     "abl_spread": float(np.ptp([abl_pos[g].mean() for g in groups]))})))
