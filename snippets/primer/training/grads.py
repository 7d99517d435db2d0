"""P11 Gradients of the whole model by backpropagation, checked by finite differences on entries
of every array; one AdamW step and gradient clipping against their closed forms."""
import inspect
import math

import numpy as np

from esm import check_close, check_equal, glue, numerical_grad
from esm.train import TRAIN, VOCAB_SIZE, adamw_step, clip_grads, data, init_gpt2, loss_and_grads, param_arrays

D = data()
V, d, L, H = VOCAB_SIZE, TRAIN["d"], TRAIN["L"], TRAIN["n_heads"]
# The trained size, a short batch (fd_B windows of fd_T tokens), float64. Gains, shifts and biases start
# at 1 and 0; a small random nudge makes every array's gradient generic (no entry is special).
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
print(glue("n_arrays", n_arrays), glue("n_fd", n_checked), glue("fd_err", worst, ".0e"))
# b_K's picks test a zero: adding one vector b to every key adds q_t . b to every score of row t,
# a constant within the row, which softmax ignores (shift invariance). So its gradient is 0 for
# any weights and batch, and the finite differences above agree with that.
bK = max(float(np.abs(grads[k]).max()) for k in grads if k.endswith("b_K"))
print(check_close("gradient of every b_K = 0 by shift invariance (softmax ignores a constant added to a row of scores)",
                  bK, 0.0, atol=1e-12))
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
share = float(np.mean(np.abs(np.abs(moved - np.concatenate([(lr * wd * before[k] if a.ndim == 2 else 0 * a).ravel()
                      for k, a in param_arrays(model).items()])) - lr) < lr * 1e-3))
print(glue("sign_share", share, ".1%"))
b1, b2 = inspect.signature(adamw_step).parameters["betas"].default
print(glue("beta1", b1, ".2g"), glue("beta2", b2, ".2g"), glue("adam_eps", eps, ".0e"))
print(glue("lr", lr, ".3g"), glue("min_lr", TRAIN["min_lr"], ".1g"), glue("wd", wd, ".1f"), glue("clip_at", TRAIN["clip"], ".1f"),
      glue("warmup", TRAIN["warmup"]), glue("batch", TRAIN["batch"]), glue("steps", TRAIN["steps"]))
