"""P11's optimiser: AdamW with gradient clipping, and the learning-rate schedule.

A module of the esm package that its ``__init__`` does not re-export (demos import it as
``esm.optim``).
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["clip_grads", "adamw_step", "lr_at"]

# ---------------------------------------------------------------------------------------------
# The optimiser: AdamW (Loshchilov and Hutter, 2019) with gradient clipping
# ---------------------------------------------------------------------------------------------

def clip_grads(grads: dict, max_norm: float) -> float:
    """Scale all gradients together so that their global norm is at most ``max_norm`` (in place).
    Returns the norm before clipping."""
    norm = math.sqrt(sum(float((g * g).sum()) for g in grads.values()))
    if norm > max_norm:
        for g in grads.values():
            g *= max_norm / norm
    return norm


def adamw_step(params: dict, grads: dict, state: dict, lr: float, *, betas=(0.9, 0.95), eps: float = 1e-8,
               weight_decay: float = 0.1) -> None:
    """One AdamW step, in place: m <- b1 m + (1-b1) g, v <- b2 v + (1-b2) g^2, bias-corrected,
    theta <- theta - lr (m_hat / (sqrt(v_hat) + eps) + wd theta), the decay only on matrices
    (2-D arrays: weights and tables, not gains or biases)."""
    b1, b2 = betas
    state["t"] = t = state.get("t", 0) + 1
    for name, theta in params.items():
        m = state.setdefault("m." + name, np.zeros_like(theta))
        v = state.setdefault("v." + name, np.zeros_like(theta))
        g = grads[name]
        m *= b1
        m += (1 - b1) * g
        v *= b2
        v += (1 - b2) * g * g
        update = (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
        if theta.ndim == 2:
            update = update + weight_decay * theta
        theta -= lr * update


def lr_at(step: int, cfg) -> float:
    """Linear warm-up over ``warmup`` steps, then a cosine from ``lr`` down to ``min_lr``."""
    if step < cfg["warmup"]:
        return cfg["lr"] * (step + 1) / cfg["warmup"]
    frac = (step - cfg["warmup"]) / max(1, cfg["steps"] - cfg["warmup"])
    return cfg["min_lr"] + 0.5 * (cfg["lr"] - cfg["min_lr"]) * (1 + math.cos(math.pi * frac))

