"""P10's model, as the page shows it: P7's tiny GPT (the same arrays under the same
names) with GPT-2's initialisation, and every trainable array by a flat name."""
import math

import numpy as np


def init_gpt2(seed, V, T_max, d, L, n_heads, std=0.02, dtype=np.float64, attention=True):
    """Every weight matrix and both tables N(0, std^2), biases and shifts 0, gains 1; the two
    projections that write into the residual stream (W_O, W_2) scaled by 1/sqrt(2L). The head is
    tied to E. With attention=False, the ablation: the same arrays drawn the same way, but the
    forward pass skips every attention sublayer, so that each position sees its own token only."""
    rng = np.random.default_rng(seed)
    f = 4 * d                                        # the feed-forward layer's width
    shapes = {f"W_{n}": (d, d) for n in "QKVO"} | {f"b_{n}": (d,) for n in "QKVO"}
    shapes |= {"W_1": (d, f), "b_1": (f,), "W_2": (f, d), "b_2": (d,)}
    shapes |= {"g_1": (d,), "beta_1": (d,), "g_2": (d,), "beta_2": (d,)}
    blocks = []
    for _ in range(L):
        p = {}
        for name, shape in shapes.items():           # drawn in this order, block after block
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
    if dtype != np.float64:                          # drawn in float64 (the same numbers), then rounded
        model = {k: (v.astype(dtype) if isinstance(v, np.ndarray) else v) for k, v in model.items()}
        model["blocks"] = [{k: v.astype(dtype) for k, v in p.items()} for p in blocks]
    return model


def param_arrays(model):
    """Every trainable array by a flat name: the model's own arrays (E, P, g_f, beta_f), then
    block1.W_Q, block1.W_K, ..., block2.beta_2 (blocks counted from 1). The gradients of the backward
    pass and AdamW's state use the same names. The arrays are the model's own, so an update in place
    updates the model."""
    out = {k: v for k, v in model.items() if isinstance(v, np.ndarray)}
    for ell, p in enumerate(model["blocks"], start=1):
        out |= {f"block{ell}.{k}": v for k, v in p.items()}
    return out
