"""The chapter's check for understanding: a training loop that forgets to shift the targets, against
the correct loop, for the same few steps from the same initialisation."""
import numpy as np

from esm import check_less, check_true, glue
from esm.backprop import init_gpt2, loss_and_grads, param_arrays
from esm.optim import adamw_step, clip_grads, lr_at
from esm.sweeps import record
from esm.tokenizer import VOCAB_SIZE, data
from esm.train import TRAIN, evaluate

D = data()
sweep = record("p11")
T, B, n_steps = TRAIN["T"], TRAIN["batch"], 40
results = {}
for shift in (1, 0):
    model = init_gpt2(TRAIN["seed"], VOCAB_SIZE, T, TRAIN["d"], TRAIN["L"], TRAIN["n_heads"], dtype=np.float64)
    params, state, rng = param_arrays(model), {}, np.random.default_rng(TRAIN["seed"] + 1)
    for step in range(n_steps):
        s = rng.integers(0, len(D.train) - T - 1, size=B)
        x = np.stack([D.train[i:i + T] for i in s])
        y = np.stack([D.train[i + shift:i + shift + T] for i in s])    # shift 0: the bug, targets = inputs
        loss, grads = loss_and_grads(model, x, y)
        clip_grads(grads, TRAIN["clip"])
        adamw_step(params, grads, state, lr_at(step, TRAIN), weight_decay=TRAIN["weight_decay"])
    results[shift] = (loss, evaluate(model, D.val))                     # evaluate scores the next token
(ok_train, ok_val), (bug_train, bug_val) = results[1], results[0]
print(glue("ex_steps", n_steps), glue("bug_train", bug_train, ".2f"), glue("bug_val", bug_val, ".2f"),
      glue("ok_train", ok_train, ".2f"), glue("ok_val", ok_val, ".2f"))
print(check_less(f"after {n_steps} steps, the unshifted loop's own training loss is below the correct loop's",
                 bug_train, ok_train, names=("unshifted", "shifted")))
print(check_less("but on the next token (validation, shifted targets) the correct loop is better", ok_val, bug_val,
                 names=("shifted", "unshifted")))
print(check_true(f"both loops at this seed = the record's ({sweep.cited()})",
                 *sweep.matches(TRAIN["seed"], {"ok_train": ok_train, "ok_val": ok_val,
                                                "bug_train": bug_train, "bug_val": bug_val})))
