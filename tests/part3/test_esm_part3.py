"""esm.mean_pairwise_cosine (introduced in 8.3) against a loop over all ordered pairs."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

import esm


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 25), st.integers(1, 12), st.floats(-5, 5))
def test_mean_pairwise_cosine_equals_the_pair_loop(seed, n, d, shift):
    X = np.random.default_rng(seed).normal(size=(n, d)) + shift
    loop = [float(X[i] @ X[j] / np.sqrt((X[i] @ X[i]) * (X[j] @ X[j])))
            for i in range(n) for j in range(n) if i != j]
    assert abs(esm.mean_pairwise_cosine(X) - sum(loop) / len(loop)) < 1e-12


def test_mean_pairwise_cosine_extremes():
    assert abs(esm.mean_pairwise_cosine(np.tile([1.0, 2.0], (5, 1))) - 1.0) < 1e-12   # all parallel
    assert abs(esm.mean_pairwise_cosine(np.array([[1.0, 0.0], [-1.0, 0.0]])) + 1.0) < 1e-12
    assert abs(esm.mean_pairwise_cosine(np.eye(4))) < 1e-12                           # orthogonal


def _pair_loop(X) -> float:
    X = np.asarray(X, dtype=float)
    n = len(X)
    return sum(float(X[i] @ X[j] / np.sqrt((X[i] @ X[i]) * (X[j] @ X[j])))
               for i in range(n) for j in range(n) if i != j) / (n * (n - 1))


def test_mean_pairwise_cosine_is_scale_free_even_for_short_rows():
    X = np.random.default_rng(5).normal(size=(30, 6))
    for scale in (1e-4, 1.0, 1e4):                      # rows far shorter or longer than 1
        assert abs(esm.mean_pairwise_cosine(X * scale) - _pair_loop(X)) < 1e-12


def test_mean_pairwise_cosine_of_a_float32_table_is_computed_in_float64():
    # real tables are float32 (GloVe's memory-mapped one): the sums must not stay in float32
    X = np.random.default_rng(6).normal(size=(300, 50)).astype(np.float32) + np.float32(0.5)
    assert abs(esm.mean_pairwise_cosine(X) - _pair_loop(X)) < 1e-12
    assert abs(esm.mean_pairwise_cosine(X, chunk=7) - _pair_loop(X)) < 1e-12
    c = X[:100].mean(axis=0)                              # a float32 centre: still float64 sums
    assert c.dtype == np.float32
    assert abs(esm.mean_pairwise_cosine(X, center=c) - _pair_loop(X.astype(float) - c.astype(float))) < 1e-12
