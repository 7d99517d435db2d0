"""The math more than one lesson needs: similarity, softmax and the loss, positions, attention,
transformer pieces, finite differences, table diagnostics. Each function says which lesson
introduces it."""

from __future__ import annotations

import math
import numpy as np
from typing import Iterable

__all__ = ['one_hot', 'normalize_rows', 'cosine', 'cosine_matrix', 'top_k', 'floats', 'softmax', 'log_softmax', 'cross_entropy', 'log_sigmoid', 'sigmoid', 'sinusoidal_positions', 'shift_map', 'rope_angles', 'rope_rotate', 'alibi_slopes', 'alibi_bias', 'causal_mask', 'attention', 'split_heads', 'merge_heads', 'layer_norm', 'multi_head_attention', 'numerical_grad', 'mean_pairwise_cosine', 'average_ranks', 'spearman']

# ---------------------------------------------------------------------------------------------
# Vectors and similarity
# ---------------------------------------------------------------------------------------------

def one_hot(ids, n: int) -> np.ndarray:
    """Rows of the identity: ``one_hot(i, n) @ E == E[i]``. Introduced in 2.2."""
    return np.eye(n)[np.asarray(ids)]


def normalize_rows(X, eps: float = 1e-12) -> np.ndarray:
    """Each row divided by its L2 norm (zero rows stay zero). Introduced in 3.2."""
    X = np.asarray(X, dtype=float)
    norms = np.linalg.norm(X, axis=-1, keepdims=True)
    return X / np.maximum(norms, eps)


def cosine(u, v) -> float:
    """cos(u, v) = <u, v> / (|u| |v|). Introduced in 3.2."""
    u = np.asarray(u, dtype=float)
    v = np.asarray(v, dtype=float)
    return float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))


def cosine_matrix(A, B=None) -> np.ndarray:
    """All pairwise cosines between rows of A and rows of B (B defaults to A). Introduced in 3.2."""
    An = normalize_rows(A)
    Bn = An if B is None else normalize_rows(B)
    return An @ Bn.T


def top_k(scores, k: int, exclude: Iterable[int] = ()) -> np.ndarray:
    """Indices of the k largest scores, best first, skipping ``exclude``; ties go to the
    lower index; an excluded index is never returned, even when k reaches past the others.
    Introduced in 3.5."""
    scores = np.asarray(scores, dtype=float)
    keep = np.ones(len(scores), dtype=bool)
    keep[list(exclude)] = False
    m = k + int(np.count_nonzero(~keep))          # enough candidates for k to survive the exclusion
    order = np.arange(len(scores))
    if 0 < m < len(scores):                        # sort only the m largest and their ties, not all
        t = -np.partition(-scores, m - 1)[m - 1]
        if not np.isnan(t):
            order = np.flatnonzero(scores >= t)
    order = order[np.argsort(-scores[order], kind="stable")]
    return order[keep[order]][:k]


# ---------------------------------------------------------------------------------------------
# Softmax and the language-model loss
# ---------------------------------------------------------------------------------------------

def floats(x) -> np.ndarray:
    """``x`` as a floating-point array: float32 stays float32 (the MiniLM encoder runs in the
    precision its weights are stored in), anything else becomes float64. The attention and
    transformer helpers below take their inputs through it. Introduced with the MiniLM encoder (1.4)."""
    x = np.asarray(x)
    return x if x.dtype in (np.float32, np.float64) else x.astype(float)


def softmax(z, axis: int = -1, temperature: float = 1.0) -> np.ndarray:
    """softmax(z / temperature) along ``axis``, shifted by the max for stability.
    Introduced in 0.1 (the logits' probabilities), used by attention from 1.4 on."""
    z = floats(z) / temperature
    z = z - np.max(z, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(z, axis: int = -1) -> np.ndarray:
    """log softmax(z), computed stably. Introduced in 0.1 (the cross-entropy), differentiated in 5.1."""
    z = np.asarray(z, dtype=float)
    z = z - np.max(z, axis=axis, keepdims=True)
    return z - np.log(np.sum(np.exp(z), axis=axis, keepdims=True))


def cross_entropy(logits, y) -> float:
    """-log softmax(logits)[y] for one example (logits of shape (|V|,)). Introduced in 0.1."""
    return float(-log_softmax(logits)[y])


def log_sigmoid(x) -> np.ndarray:
    """log sigma(x) = -log(1 + exp(-x)), computed stably for large |x|. Introduced in 4.2
    (linear probes) and used by 5.2 (negative sampling)."""
    return -np.logaddexp(0.0, -np.asarray(x, dtype=float))


def sigmoid(x) -> np.ndarray:
    """sigma(x) = 1 / (1 + exp(-x)), computed stably for large |x|. Introduced in 4.2."""
    return np.exp(log_sigmoid(x))


# ---------------------------------------------------------------------------------------------
# Positions
# ---------------------------------------------------------------------------------------------

def sinusoidal_positions(n_positions: int, d: int, base: float = 10000.0) -> np.ndarray:
    """PE[p, 2k] = sin(p / base^(2k/d)), PE[p, 2k+1] = cos(p / base^(2k/d)); shape (n, d),
    d even. Introduced in 6.2."""
    if d % 2:
        raise ValueError("d must be even")
    p = np.arange(n_positions)[:, None]
    freq = base ** (-np.arange(0, d, 2) / d)
    pe = np.empty((n_positions, d))
    pe[:, 0::2] = np.sin(p * freq)
    pe[:, 1::2] = np.cos(p * freq)
    return pe


def shift_map(k: float, d: int, base: float = 10000.0) -> np.ndarray:
    """M_k with PE_{t+k} = M_k PE_t (column vectors): block diagonal, one 2x2 rotation
    [[cos k w_j, sin k w_j], [-sin k w_j, cos k w_j]] per pair of coordinates. Introduced in 6.2;
    the primer's P2 reuses it."""
    if d % 2:
        raise ValueError("d must be even")
    M = np.zeros((d, d))
    for j, w in enumerate(base ** (-np.arange(0, d, 2) / d)):
        c, s = np.cos(k * w), np.sin(k * w)
        M[2 * j:2 * j + 2, 2 * j:2 * j + 2] = [[c, s], [-s, c]]
    return M


def rope_angles(d: int, base: float = 10000.0) -> np.ndarray:
    """omega_j = base^(-2j/d) for the d/2 coordinate pairs (2j, 2j+1). Introduced in 6.4."""
    if d % 2:
        raise ValueError("d must be even")
    return base ** (-np.arange(0, d, 2) / d)


def rope_rotate(x, positions, base: float = 10000.0) -> np.ndarray:
    """Rotate each pair (x[2j], x[2j+1]) by the angle t * omega_j, t the position.

    ``x`` has shape (..., T, d) or (d,); ``positions`` has shape (T,) or is a scalar.
    Introduced in 6.4.
    """
    x = np.asarray(x, dtype=float)
    d = x.shape[-1]
    ang = np.multiply.outer(np.asarray(positions, dtype=float), rope_angles(d, base))
    c, s = np.cos(ang), np.sin(ang)
    a, b = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = a * c - b * s
    out[..., 1::2] = a * s + b * c
    return out


def alibi_slopes(n_heads: int) -> np.ndarray:
    """The ALiBi slopes m_h = 2^(-8(h+1)/H), h = 0..H-1, for H a power of two (Press et al., 2022).
    Introduced in 6.5."""
    if n_heads < 1 or n_heads & (n_heads - 1):
        raise ValueError("this closed form is for a power-of-two number of heads")
    h = np.arange(1, n_heads + 1)
    return 2.0 ** (-8.0 * h / n_heads)


def alibi_bias(T: int, slope: float) -> np.ndarray:
    """The (T, T) bias -m (i - j) for keys j <= i; future keys get -inf. Introduced in 6.5."""
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    bias = -slope * (i - j).astype(float)
    return np.where(j <= i, bias, -np.inf)


# ---------------------------------------------------------------------------------------------
# Attention
# ---------------------------------------------------------------------------------------------

def causal_mask(T: int) -> np.ndarray:
    """Boolean (T, T): True where query i may attend to key j, i.e. j <= i. Introduced in 1.4."""
    return np.tril(np.ones((T, T), dtype=bool))


def attention(Q, K, V, mask=None, bias=None, temperature: float = 1.0):
    """Scaled dot-product attention softmax(QK^T / sqrt(d_k) + bias) V.

    ``Q`` (..., T_q, d_k), ``K`` (..., T_k, d_k), ``V`` (..., T_k, d_v); ``mask`` boolean
    (T_q, T_k), True where attending is allowed; ``bias`` added to the scores. Returns
    ``(output, weights)``. Introduced in 6.1; 7.2 varies ``temperature``.
    """
    Q = floats(Q)
    K = floats(K)
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
    if bias is not None:
        scores = scores + bias
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1, temperature=temperature)
    return weights @ floats(V), weights


# ---------------------------------------------------------------------------------------------
# Transformer pieces (introduced in the primer, chapters P5 and P6)
# ---------------------------------------------------------------------------------------------

def split_heads(X, n_heads: int) -> np.ndarray:
    """(..., T, H*d_k) -> (..., H, T, d_k): head h gets columns h*d_k .. (h+1)*d_k - 1.
    Introduced in primer chapter P5 (multi-head attention)."""
    X = floats(X)
    *lead, T, width = X.shape
    if width % n_heads:
        raise ValueError(f"width {width} is not divisible by {n_heads} heads")
    return np.swapaxes(X.reshape(*lead, T, n_heads, width // n_heads), -3, -2)


def merge_heads(X) -> np.ndarray:
    """(..., H, T, d_k) -> (..., T, H*d_k), the inverse of `split_heads` (concatenation of the
    heads along the feature axis). Introduced in primer chapter P5."""
    X = floats(X)
    *lead, H, T, dk = X.shape
    return np.swapaxes(X, -3, -2).reshape(*lead, T, H * dk)


def layer_norm(X, gamma=None, beta=None, eps: float = 1e-5) -> np.ndarray:
    """gamma * (x - mean(x)) / sqrt(var(x) + eps) + beta over the last axis (biased variance,
    as in PyTorch's LayerNorm). Introduced in primer chapter P6 (the transformer block)."""
    X = floats(X)
    mu = X.mean(axis=-1, keepdims=True)
    var = X.var(axis=-1, keepdims=True)
    out = (X - mu) / np.sqrt(var + eps)
    if gamma is not None:
        out = out * floats(gamma)
    if beta is not None:
        out = out + floats(beta)
    return out


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads: int, mask=None,
                         b_Q=0.0, b_K=0.0, b_V=0.0, b_O=0.0) -> np.ndarray:
    """Multi-head attention: project (X W + b), split into ``n_heads`` heads of width
    d/n_heads, scaled dot-product `attention` per head, concatenate, project by W_O (+ b_O).

    ``X`` (..., T, d); ``W_Q``, ``W_K``, ``W_V``, ``W_O`` (d, d); ``mask`` boolean (T, T).
    Returns (..., T, d). Introduced in primer chapter P5; the block of P6 uses it.
    """
    X = floats(X)
    Q = split_heads(X @ W_Q + b_Q, n_heads)
    K = split_heads(X @ W_K + b_K, n_heads)
    V = split_heads(X @ W_V + b_V, n_heads)
    heads, _ = attention(Q, K, V, mask=mask)
    return merge_heads(heads) @ W_O + b_O




# ---------------------------------------------------------------------------------------------
# Gradients by finite differences (introduced in 2.2; 2.4 and later gradient checks use it)
# ---------------------------------------------------------------------------------------------

def numerical_grad(f, X, eps: float = 1e-6) -> np.ndarray:
    """Central differences (f(X + eps e_k) - f(X - eps e_k)) / (2 eps) for every entry k of X.

    ``f`` maps an array shaped like ``X`` to a number; ``X`` is not modified. Costs 2 X.size
    calls of ``f``: meant for the small arrays of the demos. Introduced in 2.2.
    """
    X = np.array(X, dtype=float)
    G = np.zeros_like(X)
    for k in np.ndindex(X.shape):
        old = X[k]
        X[k] = old + eps
        up = f(X)
        X[k] = old - eps
        down = f(X)
        X[k] = old
        G[k] = (up - down) / (2 * eps)
    return G




# ---------------------------------------------------------------------------------------------
# Table diagnostics (introduced in 8.3)
# ---------------------------------------------------------------------------------------------

def mean_pairwise_cosine(X, center=None, chunk: int = 65_536) -> float:
    """Mean of cos(x_i, x_j) over all ordered pairs i != j of the rows of X, in O(n d):
    (||sum_i x_i / ||x_i|| ||^2 - n) / (n (n - 1)). With ``center`` the rows are x_i - center.
    Rows are taken ``chunk`` at a time, so a large memory-mapped table (4.3's GloVe) is never
    copied whole. Introduced in 8.3; used by 4.3 and 10.5."""
    u = 0.0
    for i in range(0, len(X), chunk):
        Y = np.asarray(X[i:i + chunk], dtype=float)
        if center is not None:
            Y = Y - np.asarray(center, dtype=float)
        u = u + Y.T @ (1.0 / np.maximum(np.sqrt(np.einsum("ij,ij->i", Y, Y)), 1e-12))   # sum of unit rows
    n = len(X)
    return float((u @ u - n) / (n * (n - 1)))


# ---------------------------------------------------------------------------------------------
# Rank correlation (introduced in 5.4; the training chapter uses it too)
# ---------------------------------------------------------------------------------------------

def average_ranks(a) -> np.ndarray:
    """Ranks 0..n-1, ties sharing the mean of their ranks (as Spearman's coefficient needs). A
    stable sort, so that the same values get the same ranks on every machine (numpy's default
    sort breaks ties in an order that depends on the CPU's SIMD instructions)."""
    a = np.asarray(a)
    order = np.argsort(a, kind="stable")
    ranks = np.empty(len(a))
    i = 0
    while i < len(a):
        j = i
        while j + 1 < len(a) and a[order[j + 1]] == a[order[i]]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2
        i = j + 1
    return ranks


def spearman(a, b) -> float:
    """Spearman's rank correlation: the correlation of the two average ranks."""
    return float(np.corrcoef(average_ranks(a), average_ranks(b))[0, 1])
