"""Claims of primer chapter P3 (self-attention) against independent computations."""
from __future__ import annotations

import math

import numpy as np

import esm


def test_causal_attention_matches_explicit_sums():
    rng = np.random.default_rng(2)
    T, dk = 5, 3
    Q, K, V = rng.normal(size=(T, dk)), rng.normal(size=(T, dk)), rng.normal(size=(T, 2))
    Z, A = esm.attention(Q, K, V, esm.causal_mask(T))
    for i in range(T):
        e = [math.exp(sum(Q[i, c] * K[j, c] for c in range(dk)) / math.sqrt(dk)) for j in range(i + 1)]
        for j in range(T):
            assert math.isclose(A[i, j], e[j] / sum(e) if j <= i else 0.0, abs_tol=1e-12)
        assert np.allclose(Z[i], sum(e[j] / sum(e) * V[j] for j in range(i + 1)))


def test_hand_set_coreference_weight():
    # The page's numbers: scaled scores 6/sqrt2 (cat), 3/sqrt2 (mat), 0 for six other keys.
    w_cat = math.exp(6 / math.sqrt(2)) / (math.exp(6 / math.sqrt(2)) + math.exp(3 / math.sqrt(2)) + 6)
    assert round(w_cat, 3) == 0.829
    w_tie = math.exp(3 / math.sqrt(2)) / (2 * math.exp(3 / math.sqrt(2)) + 6)
    assert round(w_tie, 3) == 0.368
