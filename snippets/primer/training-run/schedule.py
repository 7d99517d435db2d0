"""The learning rate and the gradient norm of every step of the run, as the loop recorded them: the
schedule against its formula, and what the norm does while the loss falls, on this run and over the
recorded seeds."""
import numpy as np

from esm import PALETTE, check_close, check_less, check_true, figure, glue, svg
from esm.sweeps import record
from esm.train import SNAPSHOTS, TRAIN, trained
from esm.tokenizer import VOCAB_SIZE, data

D = data()
steps = TRAIN["steps"]
_, _, _, _, trace = trained(D.train, D.val, VOCAB_SIZE, TRAIN, snapshots=SNAPSHOTS, traces=True)
sweep = record("p11")

# The learning rate and the global gradient norm (before clipping) of every step, as the loop recorded them.
lrs, norms = np.asarray(trace["lr"]), np.asarray(trace["grad_norm"])
n = np.arange(steps)
warm, peak, floor = TRAIN["warmup"], TRAIN["lr"], TRAIN["min_lr"]
# [schedule] by another route: the formula written out for all steps at once.
formula = np.where(n < warm, peak * (n + 1) / warm,
                   floor + 0.5 * (peak - floor) * (1 + np.cos(np.pi * (n - warm) / (steps - warm))))
print(check_close("the learning rate of every step = the warm-up and cosine formula, evaluated for all steps at once",
                  lrs, formula, atol=1e-15))
clip = TRAIN["clip"]
clipped = norms > clip
tail = norms[-(steps // 10):]
print(glue("clipped_share", float(clipped.mean()), ".0%"),
      glue("gn_last", float(np.median(tail)), ".2f"), glue("clip_c", clip, ".1f"))
# What the lower panel shows, read from the norms it draws: the spike of the first steps, a stretch below c, then a
# rise. Medians over blocks of 100 steps: the first block whose median exceeds c, and the clipped share before and after.
med = np.median(norms[:steps // 100 * 100].reshape(-1, 100), axis=1)
cross = 100 * int(np.argmax(med > clip))
print(glue("gn_peak", float(norms.max()), ".2f"), glue("gn_peak_step", int(np.argmax(norms))), glue("gn_cross", cross),
      glue("clip_before", float(clipped[:cross].mean()), ".0%"), glue("clip_after", float(clipped[cross:].mean()), ".0%"))
# Drawn per block of 10 steps (the page stays light): the learning rate at the block's first step, and the
# smallest and the largest gradient norm of the block, the band between them filled.
k = 10
blocks = norms[:steps // k * k].reshape(-1, k)
fig, (ax_lr, ax_gn) = figure(2, 1, size=(6.4, 3.6), sharex=True)
ax_lr.plot(n[::k], lrs[::k], color=PALETTE[0], lw=1.4)
ax_lr.set_ylabel("learning rate")
ax_gn.plot(n[::k][:len(blocks)], blocks.max(1), color=PALETTE[1], lw=0.6)
ax_gn.plot(n[::k][:len(blocks)], blocks.min(1), color=PALETTE[1], lw=0.6)
ax_gn.fill_between(n[::k][:len(blocks)], blocks.min(1), blocks.max(1), color=PALETTE[1], alpha=0.35, lw=0)
ax_gn.axhline(clip, color=PALETTE[3], lw=1.0, ls="--", label=f"clipping norm c = {clip:g}")
ax_gn.set_ylim(0, norms.max() * 1.05)
ax_gn.legend(fontsize=7, loc="upper center")
ax_gn.set_ylabel("gradient norm")
ax_gn.set_xlabel("step")
drawn_lr, drawn_hi, drawn_lo = ax_lr.lines[0].get_ydata(), ax_gn.lines[0].get_ydata(), ax_gn.lines[1].get_ydata()
print(svg(fig, alt=f"Two panels over the {steps} steps of the run. Top: the learning rate rises in a straight line to "
          f"{peak:g} over the first {warm} steps, then falls along a half cosine to {floor:g}. Bottom: the "
          f"global gradient norm as a band from the smallest to the largest norm of each {k} steps: a spike to "
          f"{norms.max():.2f} in the first steps, then mostly below the dashed clipping norm {clip:g} until about step "
          f"{cross}, then a steady rise to a median of {np.median(tail):.2f} over the last tenth of the run.",
          caption=f"The learning rate (top) and the global norm of the gradient before clipping (bottom: the range of "
          f"each {k} steps), with the clipping norm c = {clip:g} dashed."))
print(check_true(f"the figure's curves are the run's recorded learning rates (every {k}th step) and the smallest and largest "
                 f"gradient norm of each {k} steps, which hold every step's norm between them",
                 np.array_equal(drawn_lr, lrs[::k]) and np.array_equal(drawn_hi, blocks.max(1))
                 and np.array_equal(drawn_lo, blocks.min(1)) and bool((np.repeat(drawn_lo, k) <= blocks.ravel()).all())
                 and bool((blocks.ravel() <= np.repeat(drawn_hi, k)).all()),
                 f"{len(drawn_lr)} rates and {len(drawn_hi)} blocks drawn, {steps} steps"))

# The prose's reading of the figure, on every recorded seed: the norm over the last tenth of the run stays
# above the clipping norm and above the first step's, while the validation loss falls by more than 2 nats.
lasts = sweep.values("gn_last")
print(check_less("on every recorded seed the validation loss falls by more than 2 nats over the run",
                 2.0, min(sweep.per_seed[s_]["val_start"] - sweep.per_seed[s_]["final_val"] for s_ in sweep.seeds),
                 names=("2", "smallest fall")))
print(check_true(f"on every recorded seed the median norm over the last tenth is above c = {clip:g} and above the first "
                 "step's norm", all(lasts[s_] > max(clip, sweep.per_seed[s_]["gn_first"]) for s_ in sweep.seeds),
                 f"smallest median {min(lasts.values()):.3f}"))
low = int(np.argmin(med))
print(check_true(f"the largest norm of the run comes in its first {k} steps (the spike), and from the 100 steps with the "
                 f"lowest median (from step {100 * low}) on, the median of every 100 steps is above the one before",
                 int(np.argmax(norms)) < k and bool((np.diff(med[low:]) > 0).all()),
                 f"peak {norms.max():.2f} at step {int(np.argmax(norms))}; medians per 100 steps: "
                 + ", ".join(f"{m_:.2f}" for m_ in med)))
print(glue("gn_low_step", 100 * low))
print(glue("gn_last_lo", sweep.spread("gn_last", 2)[0], ".2f"), glue("gn_last_hi", sweep.spread("gn_last", 2)[1], ".2f"),
      glue("clipped_lo", sweep.spread("clipped_share", 2)[0], ".0%"), glue("clipped_hi", sweep.spread("clipped_share", 2)[1], ".0%"))
# This build's run against the record: its seed is one of the recorded ones, so every value is the recorded one.
print(check_true(f"this run's gradient norms (seed {TRAIN['seed']}) = the record's run of that seed ({sweep.cited()})",
                 *sweep.matches(TRAIN["seed"], {"clipped_share": float(clipped.mean()), "gn_first": float(norms[0]),
                                                "gn_peak": float(norms.max()), "gn_peak_step": float(np.argmax(norms)),
                                                "gn_last": float(np.median(tail))})))
