"""Exercise: the loss of the trained model as a function of the decoding temperature tau,
L(tau) = mean over the scored tokens of log sum_j exp(z_j / tau) - z_y / tau. At tau = 1 its
derivative is the mean of z_y - E_p[z], and its second derivative the mean of Var_p(z) plus twice
the mean of E_p[z] - z_y, with p = softmax(z); both are checked against central differences, and
the best tau is found on a grid, on validation windows (unseen text) and on training windows (text
the model was fitted to)."""
import numpy as np

from esm import check_close, check_less, glue
from esm.backprop import forward
from esm.tokenizer import VOCAB_SIZE, data
from esm.train import POSITION_BATCHES, SNAPSHOTS, TRAIN, eval_windows, trained

D = data()
model, curve, evals, snaps, trace = trained(D.train, D.val, VOCAB_SIZE, TRAIN, snapshots=SNAPSHOTS, traces=True)


def loss_at(Z, y, tau):
    """Mean cross-entropy of the targets y under softmax(Z / tau)."""
    S = Z / tau
    m = S.max(-1, keepdims=True)
    return float((np.log(np.exp(S - m).sum(-1)) + m[:, 0] - np.take_along_axis(S, y[:, None], -1)[:, 0]).mean())


def derivatives(Z, y):
    """L'(1) = mean(z_y - E_p z) and L''(1) = mean(Var_p z) + 2 mean(E_p z - z_y), p = softmax(Z)."""
    p = np.exp(Z - Z.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    Ez = (p * Z).sum(-1)
    var = (p * Z * Z).sum(-1) - Ez ** 2
    zy = np.take_along_axis(Z, y[:, None], -1)[:, 0]
    return float((zy - Ez).mean()), float(var.mean() + 2 * (Ez - zy).mean())


cfg = dict(TRAIN, eval_batches=POSITION_BATCHES)
GRID_STEP = 0.01
taus = np.round(np.arange(0.85, 1.251, GRID_STEP), 2)
print(glue("tl_grid_step", GRID_STEP, ".2f"))
best = {}
for name, tokens in (("val", D.val), ("train", D.train)):
    x, y = eval_windows(tokens, cfg)
    Z, y = forward(model, x).reshape(-1, VOCAB_SIZE), y.ravel()
    d1, d2 = derivatives(Z, y)
    h = 1e-4
    print(check_close(f"({name}) L'(1) = mean(z_y - E_p z), against central differences", d1,
                      (loss_at(Z, y, 1 + h) - loss_at(Z, y, 1 - h)) / (2 * h), atol=1e-6))
    print(check_close(f"({name}) L''(1) = mean Var_p(z) + 2 mean(E_p z - z_y), against central differences", d2,
                      (loss_at(Z, y, 1 + h) - 2 * loss_at(Z, y, 1) + loss_at(Z, y, 1 - h)) / h ** 2, atol=1e-3))
    grid = [loss_at(Z, y, t) for t in taus]
    best[name] = float(taus[int(np.argmin(grid))])
    newton = 1 - d1 / d2
    print(check_close(f"({name}) the best tau on the grid (step 0.01) = Newton's step from 1, 1 - L'(1)/L''(1), within 0.03",
                      best[name], newton, atol=0.03))
    print(glue(f"tl_{name}_d1", d1, "+.3f"), glue(f"tl_{name}_best", best[name], ".2f"))
    if name == "val":
        print(glue("tl_val_d2", d2, ".2f"), glue("tl_val_newton", newton, ".3f"),
              glue("tl_val_gain", loss_at(Z, y, 1.0) - min(grid), ".3f"), glue("tl_val_n", y.size, ","))
# The reading over seeds 35-39 (scratch runs of the full training): on validation text the best tau lay between
# 1.09 and 1.11, on training text between 0.96 and 0.98, on every one.
print(check_less("(c) on validation text the best temperature is above 1 (L'(1) < 0)", 1.0, best["val"],
                 names=("1", "best tau")))
print(check_less("(c) on training text it is below 1 (L'(1) > 0)", best["train"], 1.0, names=("best tau", "1")))
print(check_less("(c) and the training text's is the closer to 1", abs(best["train"] - 1), abs(best["val"] - 1),
                 names=("|best tau - 1|, training", "validation")))
