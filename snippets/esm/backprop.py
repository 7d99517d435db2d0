"""P11's model and its gradients: GPT-2's initialisation of P7's tiny GPT, the forward pass that
keeps what the backward pass needs, and backpropagation by hand.

A module of the esm package that its ``__init__`` does not re-export (demos import it as
``esm.backprop``); it uses the primer's own helpers (layer norm, attention, GELU, softmax).
"""
from __future__ import annotations

import math

import numpy as np

from .math import attention, causal_mask, layer_norm, merge_heads, softmax, split_heads
from .model import GELU_C, block_shapes

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
    ablation of P11: the same arrays drawn the same way, but `forward` skips every attention
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


def _ln(X, g, b, eps=1e-5):
    """Layer norm (esm.layer_norm) and what its backward pass needs: the standardised rows and
    1/std."""
    xhat = layer_norm(X, eps=eps)
    rstd = 1.0 / np.sqrt(X.var(axis=-1, keepdims=True) + eps)
    return xhat * g + b, (xhat, rstd, g)


def _ln_back(dY, cache):
    xhat, rstd, g = cache
    axes = tuple(range(dY.ndim - 1))
    dg, db = (dY * xhat).sum(axes), dY.sum(axes)
    gh = dY * g
    dX = rstd * (gh - gh.mean(-1, keepdims=True) - xhat * (gh * xhat).mean(-1, keepdims=True))
    return dX, dg, db


def _gelu(x):
    """GPT-2's tanh GELU (`esm.gelu_tanh`, the same formula) in the precision of ``x``, and the
    tanh it computes, which its derivative reuses: returns ``(gelu(x), tanh)``."""
    c = math.sqrt(2 / math.pi)
    t = np.tanh(c * x * (1 + GELU_C * (x * x)))
    return 0.5 * x * (1 + t), t


def _gelu_back(x, t):
    """d gelu / dx from ``x`` and the tanh of the forward pass."""
    c = math.sqrt(2 / math.pi)
    return 0.5 * (1 + t) + 0.5 * c * x * (1 - t * t) * (1 + 3 * GELU_C * (x * x))


def forward(model, ids, *, keep: bool = False):
    """Logits (B, T, V) of ``ids`` (B, T), as esm.gpt_forward computes them; with ``keep`` also
    the intermediate arrays the backward pass needs."""
    ids = np.asarray(ids)
    T, H = ids.shape[-1], model["n_heads"]
    mask = causal_mask(T)
    X = model["E"][ids] + model["P"][:T]
    caches = []
    attend = model.get("attention", True)
    for p in model["blocks"]:
        if attend:
            A_in, ln1 = _ln(X, p["g_1"], p["beta_1"])
            Q, K, Vh = (split_heads(A_in @ p[f"W_{n}"] + p[f"b_{n}"], H) for n in "QKV")
            heads, W = attention(Q, K, Vh, mask=mask)
            O = merge_heads(heads)
            U = X + O @ p["W_O"] + p["b_O"]
        else:                                            # the ablation: no attention sublayer
            A_in = ln1 = Q = K = Vh = W = O = None
            U = X
        M, ln2 = _ln(U, p["g_2"], p["beta_2"])
        Hid = M @ p["W_1"] + p["b_1"]
        F, tanh = _gelu(Hid)
        X = U + F @ p["W_2"] + p["b_2"]
        caches.append((A_in, ln1, Q, K, Vh, W, O, M, ln2, Hid, F, tanh))
    Xf, lnf = _ln(X, model["g_f"], model["beta_f"])
    Z = Xf @ model["E"].T
    return (Z, (ids, caches, Xf, lnf)) if keep else Z


def _outer(A, B):
    """sum over batch and positions of A[b, t, :]^T B[b, t, :]: the gradient of a weight matrix."""
    return A.reshape(-1, A.shape[-1]).T @ B.reshape(-1, B.shape[-1])


def loss_and_grads(model, inputs, targets):
    """Mean cross-entropy of the next tokens ``targets`` (B, T) given ``inputs`` (B, T) (P9's loss),
    and its gradient with respect to every array of `param_arrays` (backpropagation by hand)."""
    Z, (ids, caches, Xf, lnf) = forward(model, inputs, keep=True)
    B, T, V = Z.shape
    H = model["n_heads"]
    dZ = softmax(Z)                                      # (p - e_target) / (B T): P9's gradient
    loss = float(-np.log(np.take_along_axis(dZ, targets[..., None], -1).astype(float)).mean())
    np.put_along_axis(dZ, targets[..., None], np.take_along_axis(dZ, targets[..., None], -1) - 1, -1)
    dZ /= B * T
    g = {"E": dZ.reshape(-1, V).T @ Xf.reshape(-1, Xf.shape[-1])}   # the head's share of dE
    dX, g["g_f"], g["beta_f"] = _ln_back(dZ @ model["E"], lnf)
    for ell in range(len(model["blocks"]), 0, -1):
        p = model["blocks"][ell - 1]
        A_in, ln1, Q, K, Vh, W, O, M, ln2, Hid, F, tanh = caches[ell - 1]
        k = f"block{ell}."
        # Y = U + GELU(LN_2(U) W_1 + b_1) W_2 + b_2
        g[k + "W_2"] = _outer(F, dX)
        g[k + "b_2"] = dX.sum((0, 1))
        dHid = (dX @ p["W_2"].T) * _gelu_back(Hid, tanh)
        g[k + "W_1"] = _outer(M, dHid)
        g[k + "b_1"] = dHid.sum((0, 1))
        dM, g[k + "g_2"], g[k + "beta_2"] = _ln_back(dHid @ p["W_1"].T, ln2)
        dU = dX + dM
        if W is None:                                    # the ablation: U = X, attention's arrays unused
            for n in ("Q", "K", "V", "O"):
                g[k + f"W_{n}"], g[k + f"b_{n}"] = np.zeros_like(p[f"W_{n}"]), np.zeros_like(p[f"b_{n}"])
            g[k + "g_1"], g[k + "beta_1"] = np.zeros_like(p["g_1"]), np.zeros_like(p["beta_1"])
            dX = dU
            continue
        # U = X + Attn(LN_1(X)) W_O + b_O
        g[k + "W_O"] = _outer(O, dU)
        g[k + "b_O"] = dU.sum((0, 1))
        dheads = split_heads(dU @ p["W_O"].T, H)
        dW = dheads @ np.swapaxes(Vh, -1, -2)
        dV = np.swapaxes(W, -1, -2) @ dheads
        dS = W * (dW - (dW * W).sum(-1, keepdims=True)) / math.sqrt(Q.shape[-1])   # softmax backward
        dQ, dK = dS @ K, np.swapaxes(dS, -1, -2) @ Q
        dA = 0.0
        for n, dh in zip("QKV", (dQ, dK, dV)):
            d_proj = merge_heads(dh)
            g[k + f"W_{n}"] = _outer(A_in, d_proj)
            g[k + f"b_{n}"] = d_proj.sum((0, 1))
            dA = dA + d_proj @ p[f"W_{n}"].T
        dX_ln, g[k + "g_1"], g[k + "beta_1"] = _ln_back(dA, ln1)
        dX = dU + dX_ln
    np.add.at(g["E"], ids.reshape(-1), dX.reshape(-1, dX.shape[-1]))   # X^(0) = E[ids] + P[0:T]
    g["P"] = np.zeros_like(model["P"])
    g["P"][:T] = dX.sum(0)
    return loss, g
