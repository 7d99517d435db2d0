"""Claims of primer chapter P5 (multi-head attention) against independent computations."""
from __future__ import annotations

import math

import numpy as np

import esm


def _single_head_loop(X, W_Q, W_K, W_V, W_O):
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    T, dk = Q.shape
    rows = []
    for i in range(T):
        s = [float(Q[i] @ K[j]) / math.sqrt(dk) for j in range(i + 1)]
        e = [math.exp(v - max(s)) for v in s]
        rows.append(sum(e[j] / sum(e) * V[j] for j in range(i + 1)))
    return np.array(rows) @ W_O


def test_one_full_width_head_equals_single_head_attention():
    rng = np.random.default_rng(4)
    T, d = 6, 10
    X = rng.normal(size=(T, d))
    W = [rng.normal(size=(d, d)) / math.sqrt(d) for _ in range(4)]
    got = esm.multi_head_attention(X, *W, 1, mask=esm.causal_mask(T))
    assert np.allclose(got, _single_head_loop(X, *W), atol=1e-12)


def test_gpt2_small_head_width_and_parameter_count_independent_of_heads():
    assert 768 == 12 * 64
    d = 768
    for H in (1, 3, 12, 16):
        dk = d // H
        per_head = 3 * d * dk + 3 * dk + dk * d    # W_Q, W_K, W_V slices, their biases, rows of W_O
        assert H * per_head + d == 4 * d * d + 4 * d


def test_each_head_reads_every_input_coordinate():
    rng = np.random.default_rng(5)
    T, d, H = 4, 12, 3
    X = rng.normal(size=(T, d))
    W_Q, W_K, W_V = (rng.normal(size=(d, d)) for _ in range(3))

    def head0(Z):
        c = slice(0, d // H)
        return esm.attention(Z @ W_Q[:, c], Z @ W_K[:, c], Z @ W_V[:, c])[0]

    for coord in range(d):                          # also coordinates outside 'columns 0..3'
        Z = X.copy()
        Z[:, coord] += 1.0
        assert np.abs(head0(Z) - head0(X)).max() > 1e-6
