"""P16's modern model, as the page shows it: P13's block (RMSNorm, RoPE inside attention, SwiGLU,
no biases, no position table) with a tied head, GPT-2's initialisation, its forward pass keeping
what the backward pass needs, and the chain rule back through it. P11's loop trains it unchanged."""
import math

import numpy as np

from esm.backward import merge_heads, outer, softmax, split_heads   # P10's pieces; outer(A, dY) = A^T dY over b, t
from esm.math import rope_rotate                                    # 6.4's rotation of pairs (2j, 2j+1)


def init_modern(seed, V, d, L, n_heads, d_ff, std=0.02):
    """As init_gpt2: matrices and the token table N(0, std^2), W_O and W_2 scaled by 1/sqrt(2L), gains 1.
    No biases, no shifts, no position table; the head is tied to E."""
    rng = np.random.default_rng(seed)
    shapes = {f"W_{n}": (d, d) for n in "QKVO"} | {"W_1": (d, d_ff), "W_3": (d, d_ff), "W_2": (d_ff, d)}
    blocks = []
    for _ in range(L):
        p = {n: rng.normal(size=s) * std * (1 / math.sqrt(2 * L) if n in ("W_O", "W_2") else 1)
             for n, s in shapes.items()}
        blocks.append(p | {"g_1": np.ones(d), "g_2": np.ones(d)})
    return {"E": rng.normal(size=(V, d)) * std, "blocks": blocks, "g_f": np.ones(d), "n_heads": n_heads,
            "block": "modern"}


def rms_norm(X, g, eps=1e-5):                        # returns RMSNorm(X) and its cache
    r = 1.0 / np.sqrt((X * X).mean(-1, keepdims=True) + eps)
    return X * r * g, (X * r, r, g)


def sigmoid(Y):
    return 0.5 * (1 + np.tanh(0.5 * Y))              # 1 / (1 + e^-Y), without overflow


def forward(model, ids, *, keep=False):
    """Logits (B, T, V) of token ids (B, T); with keep=True, also what the backward pass needs."""
    T, H = ids.shape[-1], model["n_heads"]
    mask = np.tril(np.ones((T, T), dtype=bool))
    pos = np.arange(T)
    X = model["E"][ids]                              # no position table: RoPE carries the positions
    caches = []
    for p in model["blocks"]:
        A_in, n1 = rms_norm(X, p["g_1"])
        Q, K, Vh = (split_heads(A_in @ p["W_" + n], H) for n in "QKV")
        Qr, Kr = rope_rotate(Q, pos), rope_rotate(K, pos)   # queries and keys turned by their positions
        S = Qr @ np.swapaxes(Kr, -1, -2) / math.sqrt(Q.shape[-1])
        A = softmax(np.where(mask, S, -np.inf))
        O = merge_heads(A @ Vh)
        U = X + O @ p["W_O"]
        M, n2 = rms_norm(U, p["g_2"])
        Y1, Y3 = M @ p["W_1"], M @ p["W_3"]
        s1 = sigmoid(Y1)
        F = Y1 * s1 * Y3                             # SiLU(M W_1) * (M W_3)
        X = U + F @ p["W_2"]
        caches.append((A_in, n1, Qr, Kr, Vh, A, O, M, n2, Y1, Y3, s1, F))
    Xf, nf = rms_norm(X, model["g_f"])
    Z = Xf @ model["E"].T                            # tied head
    return (Z, (ids, caches, Xf, nf)) if keep else Z


def rms_norm_back(dY, cache):                        # dX and dg of Y = g * X r, r = 1 / sqrt(mean(X^2) + eps)
    xhat, r, g = cache
    dg = (dY * xhat).sum(tuple(range(dY.ndim - 1)))
    gh = dY * g
    return r * (gh - xhat * (gh * xhat).mean(-1, keepdims=True)), dg


def loss_and_grads(model, inputs, targets):
    """Mean cross-entropy of targets (B, T) given inputs (B, T), and its gradient for every array."""
    Z, (ids, caches, Xf, nf) = forward(model, inputs, keep=True)
    B, T, V = Z.shape
    H, pos = model["n_heads"], np.arange(T)
    dZ = softmax(Z)                                  # (softmax(Z) - one_hot(targets)) / (B T), as in P10
    p_y = np.take_along_axis(dZ, targets[..., None], -1)
    loss = float(-np.log(p_y).mean())
    np.put_along_axis(dZ, targets[..., None], p_y - 1, -1)
    dZ /= B * T
    g = {"E": dZ.reshape(-1, V).T @ Xf.reshape(-1, Xf.shape[-1])}
    dX, g["g_f"] = rms_norm_back(dZ @ model["E"], nf)
    for ell in range(len(model["blocks"]), 0, -1):
        p, k = model["blocks"][ell - 1], f"block{ell}."
        A_in, n1, Qr, Kr, Vh, A, O, M, n2, Y1, Y3, s1, F = caches[ell - 1]
        # SwiGLU: X = U + F W_2, F = SiLU(Y1) * Y3, SiLU'(y) = s (1 + y (1 - s)) with s = sigmoid(y)
        g[k + "W_2"] = outer(F, dX)
        dF = dX @ p["W_2"].T
        dY1, dY3 = dF * Y3 * s1 * (1 + Y1 * (1 - s1)), dF * Y1 * s1
        g[k + "W_1"], g[k + "W_3"] = outer(M, dY1), outer(M, dY3)
        dU_ff, g[k + "g_2"] = rms_norm_back(dY1 @ p["W_1"].T + dY3 @ p["W_3"].T, n2)
        dU = dX + dU_ff
        # attention: U = X + O W_O, O = A V, A = softmax(mask(Qr Kr^T / sqrt(d_k)))
        g[k + "W_O"] = outer(O, dU)
        dO = split_heads(dU @ p["W_O"].T, H)
        dA, dV = dO @ np.swapaxes(Vh, -1, -2), np.swapaxes(A, -1, -2) @ dO
        dS = A * (dA - (dA * A).sum(-1, keepdims=True)) / math.sqrt(Qr.shape[-1])
        # a rotation's transpose turns back: the gradient of R_t q is R_t^T = R_{-t} applied to it
        dQ, dK = rope_rotate(dS @ Kr, -pos), rope_rotate(np.swapaxes(dS, -1, -2) @ Qr, -pos)
        dA_in = 0.0
        for n, dh in zip("QKV", (dQ, dK, dV)):
            d_proj = merge_heads(dh)
            g[k + "W_" + n] = outer(A_in, d_proj)
            dA_in = dA_in + d_proj @ p["W_" + n].T
        dX_n, g[k + "g_1"] = rms_norm_back(dA_in, n1)
        dX = dU + dX_n
    np.add.at(g["E"], ids.reshape(-1), dX.reshape(-1, dX.shape[-1]))
    return loss, g
