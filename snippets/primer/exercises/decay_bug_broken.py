"""Debugging exercise: an AdamW step written by hand. It runs, and it decays every array; the check
it fails (a step with zero gradients shrinks each weight matrix and table by 1 - lr wd and leaves
the gains and biases alone) is printed as the expected failure."""
import numpy as np

from esm import check_close, expect_failure
from esm.backprop import init_gpt2, param_arrays


def adamw_step(params, grads, state, lr, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1):
    b1, b2 = betas
    state["t"] = t = state.get("t", 0) + 1
    for name, theta in params.items():
        m = state.setdefault("m." + name, np.zeros_like(theta))
        v = state.setdefault("v." + name, np.zeros_like(theta))
        g = grads[name]
        m[...] = b1 * m + (1 - b1) * g
        v[...] = b2 * v + (1 - b2) * g * g
        update = (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
        theta -= lr * (update + weight_decay * theta)


def check_decay(step):
    """One step with every gradient zero: Adam's part is 0, so only the decay moves anything."""
    params = param_arrays(init_gpt2(0, 128, 16, 32, 2, 4))
    before = {k: v.copy() for k, v in params.items()}
    step(params, {k: np.zeros_like(v) for k, v in params.items()}, {}, lr=0.01, weight_decay=0.1)
    expected = {k: v * (1 - 0.01 * 0.1) if v.ndim == 2 else v for k, v in before.items()}
    worst = max(params, key=lambda k: float(np.abs(params[k] - expected[k]).max()))
    return check_close(f"zero gradients: matrices shrink by 1 - lr wd, gains and biases stay (worst array: {worst})",
                       params[worst], expected[worst], atol=1e-15)


def run_broken():
    return check_decay(adamw_step)


# The step runs: from zero moments Adam's first move of an entry is lr times the sign of its gradient (plus the decay).
params = param_arrays(init_gpt2(0, 128, 16, 32, 2, 4))
before = {k: v.copy() for k, v in params.items()}
adamw_step(params, {k: np.random.default_rng(1).normal(size=v.shape) for k, v in params.items()}, {}, lr=0.01)
moves = np.concatenate([np.abs(params[k] - before[k]).ravel() for k in params])
print(check_close("the broken step runs: its first step moves every entry by lr = 0.01, up to the decay (0.1 lr |theta|)",
                  moves, np.full(moves.shape, 0.01), atol=1.5 * 0.01 * 0.1 * max(float(np.abs(v).max()) for v in before.values())))
print(expect_failure(run_broken))
