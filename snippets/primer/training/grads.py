"""P11 Gradients of the whole model by backpropagation, checked by finite differences on entries
of every array; one AdamW step and gradient clipping against their closed forms."""
import inspect
import math

import numpy as np

from esm import check_close, check_equal, glue, numerical_grad, table
from esm.backprop import init_gpt2, loss_and_grads, param_arrays
from esm.optim import adamw_step, clip_grads
from esm.tokenizer import VOCAB_SIZE, data
from esm.train import TRAIN

D = data()
V, d, L, H = VOCAB_SIZE, TRAIN["d"], TRAIN["L"], TRAIN["n_heads"]
# The trained size, a short batch (fd_B windows of fd_T tokens), float64. Gains, shifts and biases start
# at 1 and 0, where a backward pass that forgot a gain or a bias would still be right; a small random
# nudge of every parameter makes such a mistake show.
model = init_gpt2(TRAIN["seed"], V, TRAIN["T"], d, L, H)
rng = np.random.default_rng(0)
for a in param_arrays(model).values():
    a += rng.normal(size=a.shape) * 0.02
fd_B, fd_T = 2, 8
x = np.stack([D.train[s:s + fd_T] for s in (0, 500)])
y = np.stack([D.train[s + 1:s + fd_T + 1] for s in (0, 500)])
loss, grads = loss_and_grads(model, x, y)
print(glue("fd_B", fd_B), glue("fd_T", fd_T))

# [softmax-back] and the rest of backpropagation: 3 entries of every array, each moved by +-1e-6 in
# the whole model, against the hand-written backward pass.
worst, n_checked = 0.0, 0
for name, a in param_arrays(model).items():
    picks = [tuple(int(i) for i in np.unravel_index(k, a.shape))
             for k in rng.choice(a.size, size=min(3, a.size), replace=False)]
    if name == "E":                                      # one row the batch reads, as well as random ones
        picks[0] = (int(x[0, 0]), 0)
    if name == "P":                                      # rows fd_T and beyond are never read: gradient 0
        picks[0] = (int(rng.integers(fd_T)), int(rng.integers(d)))

    def loss_at(v, a=a, picks=picks):
        old = [a[p] for p in picks]
        for p, val in zip(picks, v):
            a[p] = val
        out = loss_and_grads(model, x, y)[0]
        for p, val in zip(picks, old):
            a[p] = val
        return out
    fd = numerical_grad(loss_at, np.array([a[p] for p in picks]))
    bp = np.array([grads[name][p] for p in picks])
    worst = max(worst, float(np.abs(fd - bp).max()))
    n_checked += len(picks)
n_arrays = len(grads)
print(glue("n_arrays", n_arrays), glue("n_fd", n_checked))
# (b_K's picks test a zero: see the shift-invariance check below.)
print(check_close(f"backpropagation = central differences through the whole model, {n_checked} entries of all "
                  f"{n_arrays} arrays (largest difference)", worst, 0.0, atol=1e-8, eq="softmax-back"))
print(check_equal("every array has its gradient, of its own shape", all(grads[k].shape == a.shape for k, a in param_arrays(model).items()),
                  True))

# [clip]: the global norm after clipping is the threshold.
g = {k: v.copy() for k, v in grads.items()}
norm = clip_grads(g, 0.1)
after = math.sqrt(sum(float((v * v).sum()) for v in g.values()))
print(check_close(f"after clipping at c = 0.1, the global norm is c (it was {norm:.3g})", after, 0.1, atol=1e-12,
                  eq="clip"))

# [adamw]: from zero moments, the bias corrections give m_hat = g and v_hat = g^2, so the first step
# moves every entry by lr g / (|g| + eps), which is lr sign(g) unless g is tiny, plus lr lambda theta
# for matrices.
before = {k: a.copy() for k, a in param_arrays(model).items()}
lr, wd = TRAIN["lr"], TRAIN["weight_decay"]
adamw_step(param_arrays(model), grads, {}, lr, weight_decay=wd)
moved = np.concatenate([(before[k] - a).ravel() for k, a in param_arrays(model).items()])
eps = inspect.signature(adamw_step).parameters["eps"].default
closed = np.concatenate([(lr * (grads[k] / (np.abs(grads[k]) + eps) + (wd * before[k] if a.ndim == 2 else 0))).ravel()
                         for k, a in param_arrays(model).items()])
print(check_close(f"first AdamW step = lr (g/(|g|+eps) + lambda theta) on all {len(moved):,} entries: no moments, no bias corrections",
                  moved, closed, atol=1e-12, eq="adamw"))
g_all = np.concatenate([grads[k].ravel() for k in param_arrays(model)])
share = float(np.mean(np.abs(g_all) >= 1e-5))          # |g| >= 1000 eps: the move is lr sign(g) to 0.1%
print(glue("sign_share", share, ".1%"))      # eps / |g| at the threshold

# Which entries have no gradient in this batch? Predicted without the backward pass: the rows of P
# past the window length (the windows read positions 0..7 only), and every b_K, because adding the
# same vector b to every key adds q_t . b / sqrt(d_k) to all of query t's scores, a constant per row
# that softmax ignores. (The backward pass gives b_K a sum of terms that cancel: 0 up to rounding,
# below 1e-18 here, where every other gradient is above 1e-7.)
T_b = fd_T
predicted = np.concatenate([(np.arange(a.size).reshape(a.shape) >= T_b * d).ravel() if k == "P"
                            else np.full(a.size, k.endswith(".b_K")) for k, a in param_arrays(model).items()])
print(check_equal(f"entries with |gradient| < 1e-15 (0 up to rounding) = the rows of P past position {T_b - 1} and the b_K of every "
                  "block (predicted from the windows' length and softmax's shift invariance)", np.flatnonzero(np.abs(g_all) < 1e-15),
                  np.flatnonzero(predicted)))
b_K = param_arrays(model)["block1.b_K"]
kept = b_K.copy()
loss_shift = loss_and_grads(model, x, y)[0]
b_K += rng.normal(size=b_K.shape)                        # a large move of b_K, in the whole model
loss_moved = loss_and_grads(model, x, y)[0]
b_K[...] = kept
print(check_close("moving block 1's b_K by a random vector of entries ~1 leaves the loss unchanged (full forward pass, "
                  "the closed form: a constant per row of scores)", loss_moved, loss_shift, atol=1e-12))
n_small = int(np.sum((np.abs(g_all) >= 1e-15) & (np.abs(g_all) < 1e-5)))
print(glue("n_p_rows", param_arrays(model)["P"].shape[0] - T_b),
      glue("n_bK", sum(a.size for k, a in param_arrays(model).items() if k.endswith(".b_K"))),
      glue("n_small", n_small, ","))
b1, b2 = inspect.signature(adamw_step).parameters["betas"].default
print(glue("lr", lr, ".3g"), glue("min_lr", TRAIN["min_lr"], ".1g"),
      glue("warmup", TRAIN["warmup"]), glue("batch", TRAIN["batch"]), glue("steps", TRAIN["steps"]))
print(table(("setting", "symbol", "value", "what it sets"), [
    ("peak learning rate", "$\\eta$", f"{lr:.3g}", f"the step size after {TRAIN['warmup']} steps of linear warm-up"),
    ("final learning rate", "", f"{TRAIN['min_lr']:.1g}", "where the cosine decay ends"),
    ("first moment", "$\\beta_1$", f"{b1:.2g}", "how long the running mean of the gradient remembers"),
    ("second moment", "$\\beta_2$", f"{b2:.2g}", "the same for the squared gradient"),
    ("denominator guard", "$\\epsilon$", f"{eps:.0e}", "keeps the step finite where the gradient is near 0"),
    ("weight decay", "$\\lambda$", f"{wd:.1f}", "pulls the matrices and tables towards 0"),
    ("clipping norm", "$c$", f"{TRAIN['clip']:.1f}", "the largest global gradient norm a step uses"),
    ("batch", "", f"{TRAIN['batch']}", "windows per step"),
    ("steps", "", f"{TRAIN['steps']}", "length of the run"),
]))
