"""The primer's helpers of esm (split_heads, merge_heads, layer_norm) against loops."""

from __future__ import annotations

import math

import numpy as np
import pytest

import esm


def test_split_heads_is_column_slicing():
    rng = np.random.default_rng(0)
    B, T, H, dk = 2, 5, 3, 4
    X = rng.normal(size=(B, T, H * dk))
    S = esm.split_heads(X, H)
    assert S.shape == (B, H, T, dk)
    for b in range(B):
        for h in range(H):
            for t in range(T):
                for c in range(dk):
                    assert S[b, h, t, c] == X[b, t, h * dk + c]


def test_merge_heads_inverts_split_and_concatenates():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(7, 12))
    S = esm.split_heads(X, 4)
    assert np.array_equal(esm.merge_heads(S), X)
    assert np.array_equal(esm.merge_heads(S), np.concatenate([S[h] for h in range(4)], axis=1))


def test_split_heads_rejects_uneven_width():
    with pytest.raises(ValueError):
        esm.split_heads(np.zeros((3, 10)), 4)


def test_layer_norm_matches_a_loop():
    rng = np.random.default_rng(2)
    X = rng.normal(3.0, 2.0, size=(4, 6))
    g, b = rng.normal(size=6), rng.normal(size=6)
    got = esm.layer_norm(X, g, b, eps=1e-5)
    for t in range(4):
        row = [float(v) for v in X[t]]
        mu = sum(row) / len(row)
        var = sum((v - mu) ** 2 for v in row) / len(row)
        for j in range(6):
            want = g[j] * (row[j] - mu) / math.sqrt(var + 1e-5) + b[j]
            assert abs(got[t, j] - want) < 1e-12
    plain = esm.layer_norm(X)
    assert np.allclose(plain.mean(axis=1), 0) and np.allclose(plain.var(axis=1), 1, atol=1e-4)


def test_multi_head_attention_matches_a_loop_over_heads_and_queries():
    rng = np.random.default_rng(3)
    T, d, H = 5, 12, 3
    dk = d // H
    X = rng.normal(size=(T, d))
    W = [rng.normal(size=(d, d)) / math.sqrt(d) for _ in range(4)]
    b = [rng.normal(size=d) for _ in range(4)]
    mask = np.tril(np.ones((T, T), dtype=bool))
    got = esm.multi_head_attention(X, *W, H, mask=mask, b_Q=b[0], b_K=b[1], b_V=b[2], b_O=b[3])
    Q, K, V = (X @ W[i] + b[i] for i in range(3))
    concat = np.zeros((T, d))
    for h in range(H):
        cols = slice(h * dk, (h + 1) * dk)
        for i in range(T):
            s = [float(Q[i, cols] @ K[j, cols]) / math.sqrt(dk) for j in range(i + 1)]
            m = max(s)
            e = [math.exp(v - m) for v in s]
            for j in range(i + 1):
                concat[i, cols] += e[j] / sum(e) * V[j, cols]
    assert np.allclose(got, concat @ W[3] + b[3], atol=1e-12)
