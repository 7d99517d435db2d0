"""Try this: clip the gradient at c = 0.1 instead of 1.0 before the first AdamW step. The gradient
shrinks tenfold, yet the step hardly changes: from zero moments AdamW moves an entry by about the
learning rate whatever the gradient's size."""
import numpy as np

from esm import check_close, check_less
from esm.backprop import param_arrays
from esm.backward import loss_and_grads
from esm.optim import adamw_step, clip_grads
from esm.tokenizer import VOCAB_SIZE, data
from esm.train import TRAIN, nudged_batch

# The gradient demo's model and batch, as in the optimiser's checks above.
model, x, y = nudged_batch(data().train, VOCAB_SIZE)
loss, grads = loss_and_grads(model, x, y)
lr = TRAIN["lr"]


def first_step(c):
    """Clip a copy of the gradients at c, take one AdamW step from zero moments on a copy of the
    model; return the clipped gradients' norm and how far every entry moved."""
    g = {k: v.copy() for k, v in grads.items()}
    norm = clip_grads(g, c)
    params = {k: a.copy() for k, a in param_arrays(model).items()}
    before = {k: a.copy() for k, a in params.items()}
    adamw_step(params, g, {}, lr, weight_decay=TRAIN["weight_decay"])
    clipped = np.sqrt(sum(float((v * v).sum()) for v in g.values()))
    return norm, clipped, np.concatenate([(before[k] - a).ravel() for k, a in params.items()])


norm, g_run, move_run = first_step(TRAIN["clip"])          # the run's clipping norm, c = 1.0
_, g_tight, move_tight = first_step(0.1)                   # changed: was c = TRAIN["clip"] = 1.0
print(f"gradient norm {norm:.2f}; mean |move| / lr: {np.abs(move_run).mean() / lr:.3f} at c = 1.0, "
      f"{np.abs(move_tight).mean() / lr:.3f} at c = 0.1")
print(check_close("both thresholds are below the gradient's norm, so the clipped gradient is ten times smaller at "
                  "c = 0.1 (as a plain gradient step would be)", g_run / g_tight, 10.0, atol=1e-9))
print(check_less("yet AdamW's mean move changes by less than 5%",
                 abs(np.abs(move_tight).mean() / np.abs(move_run).mean() - 1), 0.05,
                 names=("|mean move at c = 0.1 / at c = 1.0 - 1|", "0.05")))
same = float(np.mean(np.abs(move_tight - move_run) < 0.01 * lr))
print(check_less("and more than 90% of the entries move by the same amount to within 1% of lr", 0.9, same,
                 names=("0.9", "share of entries")))
