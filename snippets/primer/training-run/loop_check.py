"""The loop above against its first step unrolled by hand, and against the run the next
section reads (trained once by this same loop, kept by the build)."""
import numpy as np

from esm import check_equal, glue
from esm.backward import loss_and_grads
from esm.initialise import init_gpt2, param_arrays
from esm.loop import train
from esm.optim import adamw_step, clip_grads, lr_at
from esm.tokenizer import VOCAB_SIZE, data
from esm.train import SNAPSHOTS, TRAIN, trained

D = data()
V = VOCAB_SIZE
one = dict(TRAIN, steps=1)
model, curve, evals, _ = train(D.train, D.val, V, one)

# The first step by hand: the same initialisation and batch generator, one backward pass, the
# clip, the schedule's first rate, one AdamW step.
hand = init_gpt2(one["seed"], V, one["T"], one["d"], one["L"], one["n_heads"])
rng = np.random.default_rng(one["seed"] + 1)
starts = rng.integers(0, len(D.train) - one["T"] - 1, size=one["batch"])
x = np.stack([D.train[s:s + one["T"]] for s in starts])
y = np.stack([D.train[s + 1:s + one["T"] + 1] for s in starts])
loss0, grads = loss_and_grads(hand, x, y)
norm0 = clip_grads(grads, one["clip"])
adamw_step(param_arrays(hand), grads, {}, lr_at(0, one), weight_decay=one["weight_decay"])
print(glue("batch", one["batch"]))
print(check_equal("the loop's first loss = the first step by hand", curve[0], loss0))
print(check_equal("after one step, every array of the loop's model = the first step by hand (bit for bit)",
                  all(np.array_equal(a, param_arrays(hand)[k]) for k, a in param_arrays(model).items()), True))
print(check_equal("the loop evaluated at steps 0 and 1 (train and validation loss each)", evals.shape, (2, 3)))

# The run of the next section comes from this loop: its first loss and first gradient norm are this one's.
_, run_curve, _, _, run_trace = trained(D.train, D.val, V, TRAIN, snapshots=SNAPSHOTS, traces=True)
print(check_equal("the trained run's first loss and first gradient norm = this loop's, by hand",
                  (run_curve[0], run_trace["grad_norm"][0]), (curve[0], norm0)))
