"""Claims of primer chapter P6 (the transformer block) against independent computations."""
from __future__ import annotations

import numpy as np


def _block_arrays(d):
    """One pre-norm block with biases and d_ff = 4d, written out array by array."""
    f = 4 * d
    shapes = [(d, d)] * 4 + [(d,)] * 4            # attention: W_Q, W_K, W_V, W_O and biases
    shapes += [(d, f), (f,), (f, d), (d,)]        # feed-forward
    shapes += [(d,)] * 4                          # two layer norms: gamma, beta
    return [np.empty(s, dtype=np.float32) for s in shapes]


def test_block_parameter_count_is_12d2_plus_13d():
    for d in (8, 64, 512, 768, 1024):
        assert sum(a.size for a in _block_arrays(d)) == 12 * d * d + 13 * d


def test_gpt2_small_total_matches_the_published_count():
    d, L, V, T_max = 768, 12, 50257, 1024
    blocks = L * sum(a.size for a in _block_arrays(d))
    assert blocks + V * d + T_max * d + 2 * d == 124_439_808


def test_gpt3_total_is_within_a_rounding_of_175_billion():
    d, L = 12288, 96
    total = L * (12 * d * d + 13 * d) + 50257 * d + 2048 * d + 2 * d
    assert abs(total / 175e9 - 1) < 0.003
