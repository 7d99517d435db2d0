"""P10's backward pass, as the page shows it: P7's batched forward pass, keeping what the
backward pass needs, then the chain rule through the whole model in reverse."""
import math

import numpy as np

GELU_C = 0.044715                                    # GPT-2's tanh form of GELU


# ---- The forward pass, keeping what the backward pass needs (P7's forward, same names) ----

def layer_norm(X, g, b, eps=1e-5):                   # returns LN(X) and its cache
    var = X.var(-1, keepdims=True)
    xhat = (X - X.mean(-1, keepdims=True)) / np.sqrt(var + eps)
    return xhat * g + b, (xhat, 1.0 / np.sqrt(var + eps), g)


def gelu(x):                                         # returns GELU(x) and the tanh its derivative reuses
    t = np.tanh(math.sqrt(2 / math.pi) * x * (1 + GELU_C * (x * x)))
    return 0.5 * x * (1 + t), t


def softmax(S):                                      # over the last axis
    e = np.exp(S - S.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def split_heads(X, H):                               # (B, T, d) -> (B, H, T, d/H)
    B, T, d = X.shape
    return np.swapaxes(X.reshape(B, T, H, d // H), -3, -2)


def merge_heads(X):                                  # (B, H, T, d/H) -> (B, T, d)
    B, H, T, dk = X.shape
    return np.swapaxes(X, -3, -2).reshape(B, T, H * dk)


def forward(model, ids, *, keep=False):
    """Logits (B, T, V) of token ids (B, T); with keep=True, also what the backward pass needs."""
    T, H = ids.shape[-1], model["n_heads"]
    mask = np.tril(np.ones((T, T), dtype=bool))      # row t sees columns 0..t
    X = model["E"][ids] + model["P"][:T]
    caches = []
    for p in model["blocks"]:
        if model.get("attention", True):
            A_in, ln1 = layer_norm(X, p["g_1"], p["beta_1"])
            Q, K, Vh = (split_heads(A_in @ p["W_" + n] + p["b_" + n], H) for n in "QKV")
            S = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
            A = softmax(np.where(mask, S, -np.inf))  # attention weights (B, H, T, T)
            O = merge_heads(A @ Vh)
            U = X + O @ p["W_O"] + p["b_O"]
        else:                                        # the training chapter's ablation: no attention sublayer
            A_in = ln1 = Q = K = Vh = A = O = None
            U = X
        M, ln2 = layer_norm(U, p["g_2"], p["beta_2"])
        Y = M @ p["W_1"] + p["b_1"]
        F, tanh = gelu(Y)
        X = U + F @ p["W_2"] + p["b_2"]
        caches.append((A_in, ln1, Q, K, Vh, A, O, M, ln2, Y, F, tanh))
    Xf, lnf = layer_norm(X, model["g_f"], model["beta_f"])
    Z = Xf @ model["E"].T                            # tied head
    return (Z, (ids, caches, Xf, lnf)) if keep else Z


# ---- The backward pass ----

def layer_norm_back(dY, cache):                      # P9's layer-norm backward: dX, dg, db
    xhat, rstd, g = cache
    rows = tuple(range(dY.ndim - 1))
    dg, db = (dY * xhat).sum(rows), dY.sum(rows)
    gh = dY * g
    dX = rstd * (gh - gh.mean(-1, keepdims=True) - xhat * (gh * xhat).mean(-1, keepdims=True))
    return dX, dg, db


def gelu_back(x, t):                                 # P9's d GELU / dx, from x and the forward's tanh
    c = math.sqrt(2 / math.pi)
    return 0.5 * (1 + t) + 0.5 * c * x * (1 - t * t) * (1 + 3 * GELU_C * (x * x))


def outer(A, dY):                                    # dW = sum over b, t of A[b, t]^T dY[b, t]
    return A.reshape(-1, A.shape[-1]).T @ dY.reshape(-1, dY.shape[-1])


def loss_and_grads(model, inputs, targets):
    """Mean cross-entropy of targets (B, T) given inputs (B, T), and its gradient for every array."""
    Z, (ids, caches, Xf, lnf) = forward(model, inputs, keep=True)
    B, T, V = Z.shape
    H = model["n_heads"]
    # softmax and cross-entropy: dZ = (softmax(Z) - one_hot(targets)) / (B T)
    dZ = softmax(Z)
    p_y = np.take_along_axis(dZ, targets[..., None], -1)
    loss = float(-np.log(p_y.astype(float)).mean())
    np.put_along_axis(dZ, targets[..., None], p_y - 1, -1)
    dZ /= B * T
    # tied head Z = Xf E^T: E's first share, and the gradient flowing into Xf
    g = {"E": dZ.reshape(-1, V).T @ Xf.reshape(-1, Xf.shape[-1])}
    dX, g["g_f"], g["beta_f"] = layer_norm_back(dZ @ model["E"], lnf)   # final layer norm
    for ell in range(len(model["blocks"]), 0, -1):   # the blocks, last first
        p, k = model["blocks"][ell - 1], f"block{ell}."
        A_in, ln1, Q, K, Vh, A, O, M, ln2, Y, F, tanh = caches[ell - 1]
        # feed-forward: X = U + F W_2 + b_2, F = GELU(Y), Y = M W_1 + b_1, M = LN_2(U)
        g[k + "W_2"], g[k + "b_2"] = outer(F, dX), dX.sum((0, 1))
        dY = (dX @ p["W_2"].T) * gelu_back(Y, tanh)
        g[k + "W_1"], g[k + "b_1"] = outer(M, dY), dY.sum((0, 1))
        dU_ff, g[k + "g_2"], g[k + "beta_2"] = layer_norm_back(dY @ p["W_1"].T, ln2)   # dU through LN_2
        dU = dX + dU_ff                              # the residual path adds
        if A is None:                                # the ablation: attention's arrays get 0
            for n in ("Q", "K", "V", "O"):
                g[k + "W_" + n], g[k + "b_" + n] = np.zeros_like(p["W_" + n]), np.zeros_like(p["b_" + n])
            g[k + "g_1"], g[k + "beta_1"] = np.zeros_like(p["g_1"]), np.zeros_like(p["beta_1"])
            dX = dU
            continue
        # attention output: U = X + O W_O + b_O
        g[k + "W_O"], g[k + "b_O"] = outer(O, dU), dU.sum((0, 1))
        dO = split_heads(dU @ p["W_O"].T, H)         # per head, (B, H, T, d_k)
        # O = A V: the weights and the values
        dA = dO @ np.swapaxes(Vh, -1, -2)
        dV = np.swapaxes(A, -1, -2) @ dO
        # attention softmax, then the scale 1/sqrt(d_k); masked entries have A = 0 and get 0
        dS = A * (dA - (dA * A).sum(-1, keepdims=True)) / math.sqrt(Q.shape[-1])
        # S = Q K^T: queries and keys
        dQ, dK = dS @ K, np.swapaxes(dS, -1, -2) @ Q
        # Q, K, V = A_in W + b: their weights, biases, and the sum of three paths into A_in
        dA_in = 0.0
        for n, dh in zip("QKV", (dQ, dK, dV)):
            d_proj = merge_heads(dh)
            g[k + "W_" + n], g[k + "b_" + n] = outer(A_in, d_proj), d_proj.sum((0, 1))
            dA_in = dA_in + d_proj @ p["W_" + n].T
        dX_ln, g[k + "g_1"], g[k + "beta_1"] = layer_norm_back(dA_in, ln1)   # first layer norm
        dX = dU + dX_ln
    # embedding: X = E[ids] + P[:T]; scatter-add each position's gradient into its token's row
    np.add.at(g["E"], ids.reshape(-1), dX.reshape(-1, dX.shape[-1]))
    g["P"] = np.zeros_like(model["P"])
    g["P"][:T] = dX.sum(0)
    return loss, g
