"""The training run: loss curves against the unigram and bigram baselines of the same split, the
learning rate and the gradient norm over the run, and samples decoded greedily and with top-p at the
first step, half-way and at the end."""
import math
import re

import numpy as np

from esm import PALETTE, check_close, check_equal, check_less, check_true, figure, glue, gpt_forward, svg, table
from esm.sweeps import record
from esm.tokenizer import VOCAB_SIZE, bpe_decode, data
from esm.optim import lr_at
from esm.train import SNAPSHOTS, TRAIN, bigram_loss, eval_windows, evaluate, sample_many, sample_tokens, trained, unigram_loss

D = data()
V, steps = VOCAB_SIZE, TRAIN["steps"]
half = steps // 2
# The run is the page's one expensive computation: esm.train.trained runs it once for its inputs (the
# tokens, the settings), so that this block and the next share one run (the build keeps it with its
# execution cache, which also reuses both blocks' output).
model, curve, evals, snaps, trace = trained(D.train, D.val, V, TRAIN, snapshots=SNAPSHOTS, traces=True)
snaps[steps] = model

# Baselines on exactly the tokens the model is scored on: the targets of the fixed validation
# windows (evenly spaced starts, rebuilt here by hand), each bigram prediction made from the token
# before it. The bigram's smoothing alpha is chosen on these tokens themselves, which can only flatter it.
starts = np.linspace(0, len(D.val) - TRAIN["T"] - 2, TRAIN["eval_batches"] * TRAIN["batch"]).astype(int)
x = np.stack([D.val[s:s + TRAIN["T"]] for s in starts])
y = np.stack([D.val[s + 1:s + TRAIN["T"] + 1] for s in starts])
xe, ye = eval_windows(D.val)
print(check_equal("the baselines' windows = the windows the model's validation loss is taken on (esm.train.eval_windows)",
                  bool(np.array_equal(x, xe) and np.array_equal(y, ye)), True))
uni = unigram_loss(D.train, y.ravel(), V)
alphas = (0.01, 0.03, 0.1, 0.3, 1.0)
bis = [bigram_loss(D.train, y, V, a, prev=x) for a in alphas]
alpha = alphas[int(np.argmin(bis))]
bi = min(bis)
final_val, final_train = float(evals[-1, 2]), float(evals[-1, 1])
# How far one run beats the bigram depends on its seed: the same run with 20 seeds (model and batches),
# too costly for a build, is a recorded measurement (tools/seed_sweep.py). The check's threshold is
# the smallest margin recorded, rounded down.
sweep = record("p11")
lo, hi = sweep.spread("margin")
margin = math.floor(lo * 100) / 100
print(glue("margin_lo", sweep.spread("margin", 3)[0], ".3f"), glue("margin_hi", sweep.spread("margin", 3)[1], ".3f"), glue("margin_mean", sweep.mean("margin"), ".3f"))
print(glue("uni", uni, ".3f"), glue("bi", bi, ".3f"), glue("alpha", alpha, ".2f"), glue("final_val", final_val, ".3f"),
      glue("gain", bi - final_val, ".3f"),
      glue("half", half), glue("ppl_final", math.exp(final_val), ".1f"),
      glue("ppl_bi", math.exp(bi), ".1f"), glue("T_win", TRAIN["T"]), glue("n_win", len(xe)), glue("steps", steps),
      glue("sweep_n", len(sweep.seeds)), glue("run_seed", TRAIN["seed"]))

# What the training loss measures: windows drawn uniformly from the training tokens, which are
# Hamlet and then the first scenes of Macbeth; over the run the model reads each token about
# steps * batch * T / len(train) times.
piece_len = np.array([len(bpe_decode([t], D.alphabet, D.merges)) for t in range(V)])
offsets = np.concatenate([[0], np.cumsum(piece_len[D.train])[:-1]])
play_start = D.text.index("Macbeth\n\nACT I")
hamlet_share = float(np.mean(offsets < play_start))
seen = steps * TRAIN["batch"] * TRAIN["T"]
# The offsets against the corpus itself (the text before tokenisation): each training token's piece
# stands in the corpus at its offset. A shifted offset (the sum through the token instead of before it)
# would fail at the first token.
pieces = [bpe_decode([t], D.alphabet, D.merges) for t in range(V)]
print(check_true("each training token's characters stand in the corpus at its offset (the summed lengths of the pieces before it)",
                 all(D.text.startswith(pieces[t], o) for t, o in zip(D.train.tolist(), offsets.tolist())),
                 f"{len(D.train):,} tokens"))
print(glue("hamlet_share", hamlet_share, ".0%"),
      glue("passes", seen / len(D.train), ".1f"))

# Why the training loss ends below the validation loss: the play mix, or text seen against text unseen?
# Three texts scored on 256 evenly spaced windows each (esm.train.evaluate with 32 batches): Hamlet and the
# first scenes of Macbeth, both trained on, and the last scenes of Macbeth, never seen (the validation
# tokens). No window crosses from one text into another.
k_ham = int(np.sum(offsets < play_start))                  # the training tokens of Hamlet come first
parts = {"Hamlet (trained on)": D.train[:k_ham], "Macbeth, first scenes (trained on)": D.train[k_ham:],
         "Macbeth, last scenes (never seen)": D.val}
many = dict(TRAIN, eval_batches=32)
n_part_win = many["eval_batches"] * many["batch"]
part_steps = (2 * TRAIN["eval_every"], half, steps)
part_loss = {(name, st): evaluate(snaps[st], toks, many) for name, toks in parts.items() for st in part_steps}
ham, mac, unseen = parts
train_many = evaluate(model, D.train, many)                # the whole training text, on 256 windows too
print(table(["text", *(f"step {st}" for st in part_steps)],
            [[name, *(f"{part_loss[name, st]:.3f}" for st in part_steps)] for name in parts]))
print(check_less(f"at step {steps} the unseen scenes of Macbeth score above its seen ones by more than twice "
                 "the difference between the two plays seen in training",
                 2 * abs(part_loss[mac, steps] - part_loss[ham, steps]), part_loss[unseen, steps] - part_loss[mac, steps],
                 names=("2 |Macbeth seen - Hamlet|", "unseen - seen")))
diff = [part_loss[unseen, st] - part_loss[mac, st] for st in part_steps]
print(check_true(f"in this run the difference between unseen and seen Macbeth grows from step {part_steps[0]} to "
                 f"step {half} and from there to the end", diff[0] < diff[1] < diff[2],
                 ", ".join(f"step {st}: {x:.3f}" for st, x in zip(part_steps, diff))))
print(check_less("in this run, on 256 windows each, the unseen scenes score above the whole training text, and the "
                 "unseen-seen difference within Macbeth is more than half that gap",
                 (part_loss[unseen, steps] - train_many) / 2, part_loss[unseen, steps] - part_loss[mac, steps],
                 names=("half the gap", "unseen - seen")))
print(glue("n_part_win", n_part_win), glue("part_first", part_steps[0]),
      glue("mix_end", abs(part_loss[mac, steps] - part_loss[ham, steps]), ".2f"),
      glue("unseen_end", part_loss[unseen, steps] - part_loss[mac, steps], ".2f"),
      glue("unseen_first", part_loss[unseen, part_steps[0]] - part_loss[mac, part_steps[0]], ".2f"),
      glue("unseen_half", part_loss[unseen, half] - part_loss[mac, half], ".2f"),
      glue("train_many", train_many, ".3f"), glue("val_many", part_loss[unseen, steps], ".3f"))
print(check_less(f"step {part_steps[0]} comes in the first pass over the training text", part_steps[0] * TRAIN["batch"] * TRAIN["T"],
                 len(D.train), names=("tokens read by then", "training tokens")))

# [bigram] by another route: counts in a dictionary, one log per scored validation token.
counts, totals = {}, {}
for a, b in zip(D.train[:-1].tolist(), D.train[1:].tolist()):
    counts[a, b] = counts.get((a, b), 0) + 1
    totals[a] = totals.get(a, 0) + 1
loop = -sum(math.log((counts.get((a, b), 0) + alpha) / (totals.get(a, 0) + alpha * V))
            for a, b in zip(x.ravel().tolist(), y.ravel().tolist())) / y.size
print(check_close(f"bigram baseline (alpha = {alpha}) = a loop over the scored validation tokens with counts in a dict", bi, loop,
                  atol=1e-9, eq="bigram"))

fig, ax = figure(size=(6.4, 3.0))
window = 20
smooth = np.convolve(curve, np.ones(window) / window, mode="valid")
every = 5                                             # every 5th step drawn: the page stays light
ax.plot(np.arange(len(curve))[::every], curve[::every], color=PALETTE[0], lw=0.6, alpha=0.35)
ax.plot(np.arange(window - 1, len(curve))[::every], smooth[::every], color=PALETTE[0], lw=1.4,
        label=f"training batches ({window}-step mean)")
ax.plot(evals[:, 0], evals[:, 2], "o-", color=PALETTE[1], ms=2.0, lw=1.2, label="validation")
for level, name, col in ((math.log(V), "uniform, log |V|", "#888888"),
                         (uni, "unigram", PALETTE[2]), (bi, "bigram", PALETTE[3])):
    ax.axhline(level, color=col, lw=1.0, ls="--")
    ax.text(steps, level + 0.03, name, ha="right", va="bottom", fontsize=7, color=col)
ax.set_xlabel("step")
ax.set_ylabel("loss (nats per token)")
ax.set_ylim(min(smooth.min(), final_val) - 0.15, math.log(V) + 0.2)
ax.legend(fontsize=7, loc="upper center")
print(svg(fig, alt=f"Loss curves of the training run: the training loss of each batch and the validation loss every "
          f"{TRAIN['eval_every']} steps fall from about {math.log(V):.2f} nats (the uniform guess) past the unigram "
          f"baseline {uni:.2f} and the bigram baseline {bi:.2f}, ending at {final_val:.2f} on validation.",
          caption=f"Training and validation loss of the tiny GPT over {steps} steps of AdamW, against three baselines "
          f"scored on the same validation tokens: a uniform guess, and unigram and bigram counts of the training tokens."))

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

print(check_less(f"final validation loss beats the bigram baseline by more than {margin} nats (the smallest margin of the "
                 f"{len(sweep.seeds)} recorded seeds, {lo:.4f}, rounded down)", final_val + margin, bi,
                 names=("val + margin", "bigram")))
print(check_less("and it beats the unigram baseline", final_val, uni, names=("val", "unigram")))
print(check_close("first training batch's loss = log|V| within 0.05 (the initialisation's check, on another batch)",
                  float(curve[0]), math.log(V), atol=0.05))
# The trained weights through P7's gpt_forward, a second implementation of the forward pass, give the same loss.
Z = gpt_forward(x, model)
lse = np.log(np.exp(Z - Z.max(-1, keepdims=True)).sum(-1)) + Z.max(-1)
val_p7 = float((lse - np.take_along_axis(Z, y[..., None], -1)[..., 0]).mean())
print(check_close("final validation loss = the same weights through P7's gpt_forward",
                  final_val, val_p7, atol=1e-10))

# Samples: the same prompt, greedy and top-p (xi = 0.9, a fixed seed), at three points of the run.
breaks = [i for i, t in enumerate(D.val[:400].tolist()) if bpe_decode([t], D.alphabet, D.merges) == "\n\n"]
prompt = D.val[breaks[0] + 1:breaks[0] + 25]             # from the start of a speech
xi = 0.9
rows = []
for step in (0, half, steps):
    greedy = bpe_decode(sample_tokens(snaps[step], prompt, 60), D.alphabet, D.merges)
    nucleus = bpe_decode(sample_tokens(snaps[step], prompt, 60, np.random.default_rng(1), top_p=xi), D.alphabet, D.merges)
    rows.append((step, greedy, nucleus))
# How many of the words sampled are words of the training text? Top-p samples of 240 tokens from the same
# prompt, with each of 20 sampling seeds, at each of the three points; the share averaged over the 20.
known = set(re.findall(r"[A-Za-z]+", bpe_decode(D.train, D.alphabet, D.merges)))
n_samp = 20
real, real_min, real3, known1 = {}, {}, {}, {}
for step in (0, half, steps):
    shares, long_hits, long_words, n_short, hits = [], 0, 0, 0, 0
    for row in sample_many(snaps[step], prompt, 240, range(n_samp), top_p=xi):
        words = re.findall(r"[A-Za-z]+", bpe_decode(row, D.alphabet, D.merges))
        shares.append(sum(w in known for w in words) / len(words))
        long_hits += sum(w in known for w in words if len(w) >= 3)        # words of three letters or more
        long_words += sum(len(w) >= 3 for w in words)
        n_short += sum(w in known for w in words if len(w) == 1)          # known single letters ('s, o', &c)
        hits += sum(w in known for w in words)
    real[step], real_min[step] = float(np.mean(shares)), min(shares)
    real3[step], known1[step] = long_hits / long_words, n_short / hits
val_half = float(evals[np.argmin(np.abs(evals[:, 0] - half)), 2])      # the evaluation nearest the half-way step
print(glue("xi", xi, ".1f"), glue("n_samp", n_samp), glue("real_0", real[0], ".0%"), glue("real_half", real[half], ".0%"),
      glue("real_end", real[steps], ".0%"))
print(check_less("more of the sampled words are words of the text at the end than at step 0", real[0], real[steps],
                 names=("share at step 0", "at the end")))
print(glue("real3_0", real3[0], ".0%"), glue("real3_end", real3[steps], ".0%"), glue("known1_0", known1[0], ".0%"))
print(check_less("counting only words of three letters or more, the share at step 0 is below a third of the share over "
                 "all words", real3[0], real[0] / 3, names=("3+ letters, step 0", "all words / 3")))
print(glue("real_end_mean", sweep.mean("real_end"), ".0%"), glue("real_end_lo", sweep.spread("real_end", 2)[0], ".0%"),
      glue("real_half_mean", sweep.mean("real_half"), ".0%"))
# How spelling evolves, on every recorded run (each share the mean of 20 sampling seeds): most of the rise comes
# in the first half, and the second half still adds to it.
rise = {s_: (v["real_half"] - v["real_0"], v["real_end"] - v["real_half"]) for s_, v in sweep.per_seed.items()}
print(check_less("on every recorded run the share of real words rises from half-way to the end",
                 0.0, min(b for _, b in rise.values()), names=("0", "smallest rise, second half")))
print(check_true("on every recorded run it rises more in the first half than in the second",
                 all(a > b for a, b in rise.values()),
                 f"first half {min(a for a, _ in rise.values()):.3f} to {max(a for a, _ in rise.values()):.3f}, "
                 f"second half {min(b for _, b in rise.values()):.3f} to {max(b for _, b in rise.values()):.3f}"))
# This build's run against the record: its seed is one of the recorded ones, so every value is the recorded one.
print(check_true(f"this run (seed {TRAIN['seed']}) = the record's run of that seed ({sweep.cited()})",
                 *sweep.matches(TRAIN["seed"], {"unigram": uni, "bigram": bi, "val_start": float(evals[0, 2]),
                                                "final_val": final_val, "final_train": final_train, "margin": bi - final_val,
                                                "curve0_dev": float(curve[0]) - math.log(V), "val_half": val_half,
                                                "real_0": real[0], "real_half": real[half], "real_end": real[steps],
                                                "real_end_min": real_min[steps], "clipped_share": float(clipped.mean()),
                                                "gn_first": float(norms[0]), "gn_peak": float(norms.max()),
                                                "gn_peak_step": float(np.argmax(norms)), "gn_last": float(np.median(tail))})))
print("**Prompt** (validation tokens, from the start of the first speech):\n\n```text\n" + bpe_decode(prompt, D.alphabet, D.merges) + "\n```\n")
for step, greedy, nucleus in rows:
    print(f"**Step {step}**, greedy:\n\n```text\n{greedy}\n```\n\ntop-p ($\\xi$ = {xi}):\n\n```text\n{nucleus}\n```\n")
