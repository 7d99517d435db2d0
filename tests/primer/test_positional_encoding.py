"""Claims of primer chapter P2 (positional encoding) against independent computations."""
from __future__ import annotations

import math

import numpy as np

import esm


def _pe(p, d):
    return [math.sin(p / 10000 ** (2 * (c // 2) / d)) if c % 2 == 0 else math.cos(p / 10000 ** (2 * (c // 2) / d))
            for c in range(d)]


def test_sinusoidal_table_matches_the_formula():
    PE = esm.sinusoidal_positions(40, 10)
    assert np.allclose(PE, [_pe(p, 10) for p in range(40)], atol=1e-12)


def test_offset_is_the_same_linear_map_at_every_position():
    d = 12
    for k in (1, 3, 17):
        M = np.zeros((d, d))
        for j in range(d // 2):
            a = k / 10000 ** (2 * j / d)
            M[2 * j:2 * j + 2, 2 * j:2 * j + 2] = [[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]]
        for p in (0, 5, 47, 203, 999):
            assert np.allclose(M @ np.array(_pe(p, d)), _pe(p + k, d), atol=1e-10)


def test_dot_product_depends_on_offset_only_and_norm_is_constant():
    d = 16
    for k in (0, 2, 9):
        want = sum(math.cos(k / 10000 ** (2 * j / d)) for j in range(d // 2))
        for p in (0, 47, 203):
            assert math.isclose(float(np.dot(_pe(p, d), _pe(p + k, d))), want, abs_tol=1e-10)
    assert np.allclose(np.linalg.norm(esm.sinusoidal_positions(500, d), axis=1), math.sqrt(d / 2))


def test_attention_without_positions_is_permutation_equivariant():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(5, 4))
    perm = [3, 0, 4, 1, 2]

    def attn(Z):                                   # single head, identity projections, by loops
        out = []
        for i in range(len(Z)):
            s = [float(Z[i] @ Z[j]) / 2.0 for j in range(len(Z))]
            e = [math.exp(v - max(s)) for v in s]
            out.append(sum(w / sum(e) * Z[j] for j, w in enumerate(e)))
        return np.array(out)

    assert np.allclose(attn(X[perm]), attn(X)[perm])
