"""Samples of the model at the first step, half-way and at the end, greedy and top-p, and how many of
the words it samples are words of its training text, on this run and over the recorded seeds."""
import re

import numpy as np

from esm import check_less, check_true, glue
from esm.sweeps import record
from esm.tokenizer import VOCAB_SIZE, bpe_decode, data
from esm.train import SNAPSHOTS, TRAIN, sample_many, sample_tokens, trained

D = data()
V, steps = VOCAB_SIZE, TRAIN["steps"]
half = steps // 2
# The run is the page's one expensive computation: esm.train.trained runs it once for its inputs (the
# tokens, the settings), and the page's blocks share it.
model, _, _, snaps, _ = trained(D.train, D.val, V, TRAIN, snapshots=SNAPSHOTS, traces=True)
snaps = {**snaps, steps: model}
sweep = record("p11")

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
print(check_true(f"this run's samples (seed {TRAIN['seed']}) = the record's run of that seed ({sweep.cited()})",
                 *sweep.matches(TRAIN["seed"], {"real_0": real[0], "real_half": real[half], "real_end": real[steps],
                                                "real_end_min": real_min[steps]})))
print("**Prompt** (validation tokens, from the start of the first speech):\n\n```text\n" + bpe_decode(prompt, D.alphabet, D.merges) + "\n```\n")
for step, greedy, nucleus in rows:
    print(f"**Step {step}**, greedy:\n\n```text\n{greedy}\n```\n\ntop-p ($\\xi$ = {xi}):\n\n```text\n{nucleus}\n```\n")
