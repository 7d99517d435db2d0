"""Why the training loss ends below the validation loss: the training text is mostly another play,
and the model has read it several times over. Three texts scored at three points of the run tell
the two explanations apart."""
import numpy as np

from esm import check_less, check_true, glue, table
from esm.tokenizer import VOCAB_SIZE, bpe_decode, data
from esm.train import SNAPSHOTS, TRAIN, evaluate, trained

D = data()
V, steps = VOCAB_SIZE, TRAIN["steps"]
half = steps // 2
model, _, _, snaps, _ = trained(D.train, D.val, V, TRAIN, snapshots=SNAPSHOTS, traces=True)
snaps = {**snaps, steps: model}

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
