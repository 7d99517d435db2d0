"""A whole GPT-style model in numpy (the primer from the transformer block on): GELU, a block, its
initialisation and shapes, the tiny GPT of the primer and its forward pass."""

from __future__ import annotations

import math
import numpy as np

from .math import causal_mask, floats, layer_norm, multi_head_attention

__all__ = ['gelu', 'GELU_C', 'gelu_tanh', 'block_shapes', 'init_block', 'feed_forward', 'block_forward', 'init_gpt', 'TINY', 'tiny_gpt', 'gpt_forward']

# ---------------------------------------------------------------------------------------------
# A whole GPT-style model in numpy (the primer from the transformer block on)
# ---------------------------------------------------------------------------------------------

def gelu(x) -> np.ndarray:
    """GELU, exact: x Phi(x), with the standard normal CDF Phi(x) = (1 + erf(x / sqrt 2)) / 2
    (Hendrycks and Gimpel, 2016). Introduced in primer chapter P6; the MiniLM encoder (1.4)
    uses it too. numpy has no erf: scipy's is vectorised (math.erf one number at a time was
    ~1 s per build for the encoder's 2.6 million activations)."""
    from scipy.special import erf
    x = floats(x)
    return x * 0.5 * (1.0 + erf(x / math.sqrt(2.0)))


#: The cubic coefficient of GPT-2's tanh approximation of GELU (Hendrycks and Gimpel, 2016).
GELU_C = 0.044715


def gelu_tanh(x) -> np.ndarray:
    """GELU as GPT-2 computes it: x (1 + tanh(sqrt(2/pi) (x + GELU_C x^3))) / 2.
    Introduced in primer chapter P6."""
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + GELU_C * x ** 3)))


def block_shapes(d: int, d_ff: int | None = None) -> dict[str, tuple[int, ...]]:
    """The arrays of one transformer block with biases: attention (W_Q, W_K, W_V, W_O, b_*),
    feed-forward (W_1, b_1, W_2, b_2) and two layer norms (g_1, beta_1, g_2, beta_2).
    d_ff defaults to 4d. Introduced in primer chapter P6."""
    f = 4 * d if d_ff is None else d_ff
    shapes = {f"W_{n}": (d, d) for n in "QKVO"} | {f"b_{n}": (d,) for n in "QKVO"}
    shapes |= {"W_1": (d, f), "b_1": (f,), "W_2": (f, d), "b_2": (d,)}
    shapes |= {"g_1": (d,), "beta_1": (d,), "g_2": (d,), "beta_2": (d,)}
    return shapes


def init_block(rng, d: int, d_ff: int | None = None, scale: float = 0.3) -> dict[str, np.ndarray]:
    """Random block parameters: weights and biases N(0, scale^2), layer-norm gains 1 + N(0, scale^2)."""
    p = {k: rng.normal(size=s) * scale for k, s in block_shapes(d, d_ff).items()}
    p["g_1"] += 1.0
    p["g_2"] += 1.0
    return p


def feed_forward(X, p, act=gelu_tanh) -> np.ndarray:
    """act(X W_1 + b_1) W_2 + b_2, token by token. Introduced in primer chapter P6."""
    return act(np.asarray(X, dtype=float) @ p["W_1"] + p["b_1"]) @ p["W_2"] + p["b_2"]


def block_forward(X, p, n_heads: int, mask=None, *, pre_ln: bool = True, act=gelu_tanh) -> np.ndarray:
    """One transformer block on the stream X (..., T, d).

    pre-LN (GPT-2): U = X + MHA(LN_1(X)), Y = U + FFN(LN_2(U));
    post-LN (Vaswani et al., 2017): U = LN_1(X + MHA(X)), Y = LN_2(U + FFN(U)).
    Introduced in primer chapter P6; the model of P7 stacks it.
    """
    def mha(Z):
        return multi_head_attention(Z, p["W_Q"], p["W_K"], p["W_V"], p["W_O"], n_heads, mask,
                                    p["b_Q"], p["b_K"], p["b_V"], p["b_O"])
    X = np.asarray(X, dtype=float)
    if pre_ln:
        U = X + mha(layer_norm(X, p["g_1"], p["beta_1"]))
        return U + feed_forward(layer_norm(U, p["g_2"], p["beta_2"]), p, act)
    U = layer_norm(X + mha(X), p["g_1"], p["beta_1"])
    return layer_norm(U + feed_forward(U, p, act), p["g_2"], p["beta_2"])


def init_gpt(seed: int, V: int, T_max: int, d: int, L: int, n_heads: int,
             scale: float = 0.3) -> dict:
    """A tiny GPT-2-shaped model with random weights: token table E (V, d), position table
    P (T_max, d), L pre-LN blocks, final layer norm (g_f, beta_f); the output head is tied
    to E. Introduced in primer chapter P7."""
    rng = np.random.default_rng(seed)
    return {"E": rng.normal(size=(V, d)) * scale, "P": rng.normal(size=(T_max, d)) * scale,
            "blocks": [init_block(rng, d, scale=scale) for _ in range(L)],
            "g_f": 1.0 + rng.normal(size=d) * scale, "beta_f": rng.normal(size=d) * scale,
            "n_heads": n_heads}


#: The tiny model of the primer's last chapters (from the full model on): one configuration, one seed.
TINY = {"seed": 7, "V": 50, "T_max": 16, "d": 32, "L": 2, "n_heads": 4}


def tiny_gpt() -> dict:
    """The primer's tiny model, `init_gpt` with the configuration `TINY`."""
    return init_gpt(**TINY)


def gpt_forward(ids, model, *, trace: dict | None = None) -> np.ndarray:
    """Logits (..., T, V) of the next token at every position of ``ids`` (..., T):
    X^(0) = E[ids] + P[0:T], L causal pre-LN blocks, final layer norm, logits = X_f E^T
    (tied head; ``model["W_U"]`` (d, V), when present, unties it). ``trace``, when given,
    receives every intermediate array. Introduced in primer chapter P7."""
    ids = np.asarray(ids)
    T = ids.shape[-1]
    X = model["E"][ids] + model["P"][:T]
    if trace is not None:
        trace["X0"] = X
    for ell, p in enumerate(model["blocks"], start=1):
        X = block_forward(X, p, model["n_heads"], causal_mask(T))
        if trace is not None:
            trace[f"X{ell}"] = X
    Xf = layer_norm(X, model["g_f"], model["beta_f"])
    logits = Xf @ (model["W_U"] if "W_U" in model else model["E"].T)
    if trace is not None:
        trace["Xf"] = Xf
        trace["logits"] = logits
    return logits
