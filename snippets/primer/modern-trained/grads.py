"""The modern model's backward pass (above) checked by central differences on entries of every array,
and its two new steps checked alone: RMSNorm's backward and RoPE's transpose."""
import numpy as np

from esm import check_close, check_equal, numerical_grad, rope_rotate
from esm.initialise import param_arrays
from esm.loop import windows
from esm.modern import init_modern, loss_and_grads, rms_norm, rms_norm_back
from esm.tokenizer import VOCAB_SIZE, data
from esm.train import MODERN

# The run's model at initialisation, every parameter nudged off its starting value (gains off 1), on
# two windows of 8 training tokens.
model = init_modern(MODERN["seed"], VOCAB_SIZE, MODERN["d"], MODERN["L"], MODERN["n_heads"], MODERN["d_ff"])
rng = np.random.default_rng(0)
for a in param_arrays(model).values():
    a += rng.normal(size=a.shape) * 0.02
x, y = windows(data().train, (0, 500), 8)
loss, grads = loss_and_grads(model, x, y)
worst, n_checked = 0.0, 0
for name, a in param_arrays(model).items():
    picks = [tuple(int(i) for i in np.unravel_index(k, a.shape)) for k in rng.choice(a.size, size=3, replace=False)]
    if name == "E":
        picks[0] = (int(x[0, 0]), 0)                 # a row the batch reads

    def loss_at(v, a=a, picks=picks):
        old = [a[p] for p in picks]
        for p, val in zip(picks, v):
            a[p] = val
        out = loss_and_grads(model, x, y)[0]
        for p, val in zip(picks, old):
            a[p] = val
        return out
    fd = numerical_grad(loss_at, np.array([a[p] for p in picks]))
    worst = max(worst, float(np.abs(fd - [grads[name][p] for p in picks]).max()))
    n_checked += len(picks)
print(check_close(f"backward pass = central differences through the whole modern model, {n_checked} entries of all "
                  f"{len(grads)} arrays (largest difference)", worst, 0.0, atol=1e-8))
print(check_equal("every array has its gradient, of its own shape",
                  all(grads[k].shape == a.shape for k, a in param_arrays(model).items()), True))

# RMSNorm's backward alone: every entry of dX and dg against central differences of <dY, RMSNorm(X)>.
X, g, dY = rng.normal(size=(3, 6)) + 0.5, 1 + 0.1 * rng.normal(size=6), rng.normal(size=(3, 6))
dX, dg = rms_norm_back(dY, rms_norm(X, g)[1])
print(check_close("RMSNorm's backward (dX and the gain's dg) = central differences of sum(dY * RMSNorm(X))",
                  np.concatenate([dX.ravel(), dg]),
                  np.concatenate([numerical_grad(lambda Z: float((dY * rms_norm(Z, g)[0]).sum()), X).ravel(),
                                  numerical_grad(lambda h: float((dY * rms_norm(X, h)[0]).sum()), g)]), atol=1e-8))
# RoPE's transpose: <R_t a, b> = <a, R_{-t} b> for every position, so the gradient reaching R_t q turns back by -t.
a, b, pos = rng.normal(size=(5, 8)), rng.normal(size=(5, 8)), np.arange(5)
print(check_close("rotation's transpose: (R_t a) . b = a . (R_{-t} b) at positions 0..4 (esm.rope_rotate)",
                  (rope_rotate(a, pos) * b).sum(-1), (a * rope_rotate(b, -pos)).sum(-1), atol=1e-12))
