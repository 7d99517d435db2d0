"""Clipping, AdamW and the schedule above, each against its equation by another route: the
clipped norm recomputed, AdamW entry by entry in plain Python, the schedule at chosen steps."""
import inspect
import math

import numpy as np

from esm import check_close, check_equal, check_less, glue, table
from esm.backprop import param_arrays
from esm.backward import loss_and_grads
from esm.optim import adamw_step, clip_grads, lr_at
from esm.tokenizer import VOCAB_SIZE, data
from esm.train import TRAIN, nudged_batch

# The gradient demo's model and batch (the section above): every parameter nudged off 0 and 1.
model, x, y = nudged_batch(data().train, VOCAB_SIZE)
rng = np.random.default_rng(1)                           # the small arrays of the AdamW check below
loss, grads = loss_and_grads(model, x, y)

# [clip]: the global norm after clipping is the threshold.
g = {k: v.copy() for k, v in grads.items()}
norm = clip_grads(g, 0.1)
after = math.sqrt(sum(float((v * v).sum()) for v in g.values()))
print(check_close(f"after clipping at c = 0.1, the global norm is c (it was {norm:.3g})", after, 0.1, atol=1e-12,
                  eq="clip"))
below = {k: v.copy() for k, v in g.items()}                # norm 0.1 now
clip_grads(below, 1.0)
print(check_equal("below the threshold (norm 0.1, c = 1), clipping changes nothing: every array equal, entry for entry",
                  all(np.array_equal(below[k], g[k]) for k in g), True, eq="clip"))

# [adamw]: three steps on small arrays, against the equation written out entry by entry with floats.
b1, b2 = inspect.signature(adamw_step).parameters["betas"].default
eps = inspect.signature(adamw_step).parameters["eps"].default
lr, wd = TRAIN["lr"], TRAIN["weight_decay"]
small = {"W": rng.normal(size=(3, 2)), "b": rng.normal(size=4)}
by_hand = {k: [float(v) for v in a.ravel()] for k, a in small.items()}
m = {k: [0.0] * a.size for k, a in small.items()}
v = {k: [0.0] * a.size for k, a in small.items()}
state = {}
for n in (1, 2, 3):
    gs = {k: rng.normal(size=a.shape) for k, a in small.items()}
    adamw_step(small, gs, state, lr, weight_decay=wd)
    for k in small:
        for i, gi in enumerate(float(z) for z in gs[k].ravel()):
            m[k][i] = b1 * m[k][i] + (1 - b1) * gi
            v[k][i] = b2 * v[k][i] + (1 - b2) * gi * gi
            step = (m[k][i] / (1 - b1 ** n)) / (math.sqrt(v[k][i] / (1 - b2 ** n)) + eps)
            decay = wd * by_hand[k][i] if small[k].ndim == 2 else 0.0
            by_hand[k][i] -= lr * (step + decay)
print(check_close("three AdamW steps = the equation entry by entry (a matrix, decayed; a bias, not)",
                  np.concatenate([small[k].ravel() for k in small]), np.array(by_hand["W"] + by_hand["b"]),
                  atol=1e-14, eq="adamw"))

# The first step from zero moments: the bias corrections give m_hat = g, v_hat = g^2, so every entry
# moves by lr g / (|g| + eps), plus lr lambda theta for matrices.
before = {k: a.copy() for k, a in param_arrays(model).items()}
adamw_step(param_arrays(model), grads, {}, lr, weight_decay=wd)
moved = np.concatenate([(before[k] - a).ravel() for k, a in param_arrays(model).items()])
closed = np.concatenate([(lr * (grads[k] / (np.abs(grads[k]) + eps) + (wd * before[k] if a.ndim == 2 else 0))).ravel()
                         for k, a in param_arrays(model).items()])
print(check_close(f"first AdamW step = lr (g/(|g|+eps) + lambda theta) on all {len(moved):,} entries: no moments, no bias corrections",
                  moved, closed, atol=1e-12, eq="adamw"))
g_all = np.concatenate([grads[k].ravel() for k in param_arrays(model)])
cut = 1000 * eps                                       # |g| >= 1000 eps: the move is lr sign(g) to within 0.1%
share = float(np.mean(np.abs(g_all) >= cut))
n_small = int(np.sum((np.abs(g_all) >= 1e-15) & (np.abs(g_all) < cut)))
print(glue("sign_share", share, ".1%"), glue("n_small", n_small, ","), glue("g_cut", cut, ".0e"))
step_g = np.abs(moved - np.concatenate([(lr * wd * before[k] if a.ndim == 2 else 0 * a).ravel()
                                        for k, a in param_arrays(model).items()]))
print(check_less(f"where |g| >= {cut:.0e} (1000 eps) the first step moves the entry by lr to within 0.1%",
                 float(np.max(np.abs(step_g[np.abs(g_all) >= cut] / lr - 1))), 1e-3, names=("largest relative shortfall", "0.001")))
bK = np.concatenate([grads[k].ravel() for k in param_arrays(model) if k.endswith(".b_K")])
print(check_close("the key biases' gradients are 0 up to rounding, so their first step is below lr by a factor of 1e6 or more: "
                  "the largest |g|/(|g|+eps) of b_K is 0", float(np.max(np.abs(bK) / (np.abs(bK) + eps))), 0.0, atol=1e-6))

# [lr-schedule] at chosen steps, from what the formula must give there: 1/warmup of the peak at step
# 0, the peak at the end of warm-up, halfway between peak and floor halfway through the cosine, the
# floor at the end.
warm, peak, floor, steps = TRAIN["warmup"], TRAIN["lr"], TRAIN["min_lr"], TRAIN["steps"]
chosen = [0, warm - 1, warm, warm + (steps - warm) // 2, steps]
print(check_close(f"the schedule at steps {chosen} = peak/warmup, peak, peak, (peak + floor)/2, floor",
                  [lr_at(s, TRAIN) for s in chosen], [peak / warm, peak, peak, (peak + floor) / 2, floor],
                  atol=1e-15, eq="lr-schedule"))
print(glue("lr", lr, ".3g"), glue("min_lr", floor, ".1g"), glue("warmup", warm),
      glue("steps", steps))
print(table(("setting", "symbol", "value", "what it sets"), [
    ("peak learning rate", "$\\eta_{\\max}$", f"{lr:.3g}", f"the step size after {warm} steps of linear warm-up"),
    ("final learning rate", "$\\eta_{\\min}$", f"{floor:.1g}", "where the cosine decay ends"),
    ("first moment", "$\\beta_1$", f"{b1:.2g}", "how long the running mean of the gradient remembers"),
    ("second moment", "$\\beta_2$", f"{b2:.2g}", "the same for the squared gradient"),
    ("denominator guard", "$\\epsilon$", f"{eps:.0e}", "keeps the step finite where the gradient is near 0"),
    ("weight decay", "$\\lambda$", f"{wd:.1f}", "pulls the matrices and tables towards 0"),
    ("clipping norm", "$c$", f"{TRAIN['clip']:.1f}", "the largest global gradient norm a step uses"),
    ("batch", "", f"{TRAIN['batch']}", "windows per step of the next chapter's loop"),
    ("steps", "", f"{steps}", "length of the next chapter's run"),
]))
