"""The training chapter's model: GPT-2's initialisation of P7's tiny GPT and its arrays by name; the forward pass
that keeps what the backward pass needs and the backward pass are the page's code
(`esm.backward`), importable from here too.

A module of the esm package that its ``__init__`` does not re-export (demos import it as
``esm.backprop``).
"""
from __future__ import annotations

import math

import numpy as np

from .model import block_shapes

__all__ = ["init_gpt2", "param_arrays", "forward", "loss_and_grads"]

# ---------------------------------------------------------------------------------------------
# The model: P7's tiny GPT (same arrays, same layout as esm.init_gpt), GPT-2's initialisation
# ---------------------------------------------------------------------------------------------

def init_gpt2(seed: int, V: int, T_max: int, d: int, L: int, n_heads: int, std: float = 0.02,
              dtype=np.float64, attention: bool = True) -> dict:
    """GPT-2's initialisation as its paper describes it (Radford et al., 2019, sec. 2.3): every weight
    and both tables N(0, std^2), biases 0, layer-norm gains 1 and shifts 0, and the two projections
    that write into the residual stream (W_O, W_2) scaled by 1/sqrt(2L). (The released code,
    openai/gpt-2 src/model.py, does not apply that scaling and draws the position table with std
    0.01.) The head is tied to E. A model `esm.gpt_forward` runs. With ``attention`` False, the
    ablation of the training chapter: the same arrays drawn the same way, but `forward` skips every attention
    sublayer (as if W_O and b_O were 0), so that each position sees its own token only."""
    rng = np.random.default_rng(seed)
    blocks = []
    for _ in range(L):
        p = {}
        for name, shape in block_shapes(d).items():
            if name.startswith("W_"):
                p[name] = rng.normal(size=shape) * std * (1 / math.sqrt(2 * L) if name in ("W_O", "W_2") else 1)
            elif name.startswith("g_"):
                p[name] = np.ones(shape)
            else:
                p[name] = np.zeros(shape)
        blocks.append(p)
    model = {"E": rng.normal(size=(V, d)) * std, "P": rng.normal(size=(T_max, d)) * std, "blocks": blocks,
             "g_f": np.ones(d), "beta_f": np.zeros(d), "n_heads": n_heads}
    if not attention:
        model["attention"] = False
    if dtype != np.float64:                 # drawn in float64 (the same numbers), then rounded
        model = {k: (v.astype(dtype) if isinstance(v, np.ndarray) else v) for k, v in model.items()}
        model["blocks"] = [{k: v.astype(dtype) for k, v in p.items()} for p in blocks]
    return model


def param_arrays(model) -> dict[str, np.ndarray]:
    """Every trainable array by a flat name: E, P, g_f, beta_f, and 'block1.W_Q' and so on."""
    out = {"E": model["E"], "P": model["P"], "g_f": model["g_f"], "beta_f": model["beta_f"]}
    for ell, p in enumerate(model["blocks"], start=1):
        out |= {f"block{ell}.{k}": v for k, v in p.items()}
    return out


# The forward pass that keeps what the backward pass needs, and the backward pass itself, are
# The training chapter's page code (esm.backward, shown on the page whole); importable from here as before.
from .backward import forward, loss_and_grads  # noqa: E402
