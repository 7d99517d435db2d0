"""Claims of primer chapter P1 (token embeddings) against independent computations."""
from __future__ import annotations

import itertools
import math

import numpy as np

import esm


def test_one_hot_vectors_are_all_sqrt2_apart():
    n = 7
    for i, j in itertools.combinations(range(n), 2):
        diff = [(1.0 if c == i else 0.0) - (1.0 if c == j else 0.0) for c in range(n)]
        assert math.isclose(math.sqrt(sum(v * v for v in diff)), math.sqrt(2))


def test_one_hot_product_is_row_lookup():
    rng = np.random.default_rng(0)
    E = rng.normal(size=(9, 4))
    for i in range(9):
        row = [sum((1.0 if r == i else 0.0) * E[r, c] for r in range(9)) for c in range(4)]
        assert np.allclose(esm.one_hot(i, 9) @ E, row)


def test_offset_analogy_on_exactly_additive_vectors():
    # If words are exact sums of orthogonal concept vectors, b - a + a* is exactly the answer row.
    C = np.eye(4)                                   # person, male, female, royal
    man, woman, king, queen = C[0] + C[1], C[0] + C[2], C[0] + C[1] + C[3], C[0] + C[2] + C[3]
    assert np.allclose(king - man + woman, queen)
    assert math.isclose(esm.cosine(king - man + woman, queen), 1.0)


def test_embedding_table_sizes():
    assert 50257 * 768 == 38_597_376
    assert 50257 * 12288 == 617_558_016
