"""P10's optimiser, as the page shows it: gradient clipping, AdamW and the learning-rate
schedule."""
import math

import numpy as np


def clip_grads(grads, max_norm):
    """Scale all gradients together (in place) so that their global norm is at most max_norm.
    Returns the norm before clipping."""
    norm = math.sqrt(sum(float((g * g).sum()) for g in grads.values()))
    if norm > max_norm:
        for g in grads.values():
            g *= max_norm / norm
    return norm


def adamw_step(params, grads, state, lr, *, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1):
    """One AdamW step, in place; state holds the step count and the two running means."""
    b1, b2 = betas
    state["t"] = t = state.get("t", 0) + 1
    for name, theta in params.items():
        m = state.setdefault("m." + name, np.zeros_like(theta))
        v = state.setdefault("v." + name, np.zeros_like(theta))
        g = grads[name]
        m *= b1                                      # m <- b1 m + (1 - b1) g
        m += (1 - b1) * g
        v *= b2                                      # v <- b2 v + (1 - b2) g^2
        v += (1 - b2) * g * g
        update = (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
        if theta.ndim == 2:                          # decay the matrices and tables only
            update = update + weight_decay * theta
        theta -= lr * update


def lr_at(step, cfg):
    """Linear warm-up over cfg["warmup"] steps, then a cosine from cfg["lr"] down to cfg["min_lr"]."""
    if step < cfg["warmup"]:
        return cfg["lr"] * (step + 1) / cfg["warmup"]
    frac = (step - cfg["warmup"]) / max(1, cfg["steps"] - cfg["warmup"])
    return cfg["min_lr"] + 0.5 * (cfg["lr"] - cfg["min_lr"]) * (1 + math.cos(math.pi * frac))
