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
