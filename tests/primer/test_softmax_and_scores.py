"""Claims of primer chapter P4 (softmax and attention scores) against independent computations."""
from __future__ import annotations

import math

import numpy as np

import esm


def test_worked_example_and_its_rounding():
    e = [math.exp(2), math.exp(4), math.exp(1)]
    assert round(sum(e), 3) == 64.705
    assert [round(v / sum(e), 2) for v in e] == [0.11, 0.84, 0.04]
    assert np.allclose(esm.softmax([2, 4, 1]), np.array(e) / sum(e))


def test_seed_saturation_example_is_corrected():
    a = esm.softmax([50.0, 52.0, 48.0])
    assert [round(float(v), 3) for v in a] == [0.117, 0.867, 0.016]
    assert abs(a[2] - 0.1) > 0.08                   # the notes' (0.1, 0.8, 0.1) is wrong on the last weight


def test_variance_of_dot_product_grows_like_dk():
    rng = np.random.default_rng(10)
    for dk in (8, 64, 512):
        q, k = rng.normal(size=(20000, dk)), rng.normal(size=(20000, dk))
        dots = (q * k).sum(axis=1)
        assert abs(dots.var() / dk - 1) < 0.05
        assert abs((dots / math.sqrt(dk)).var() - 1) < 0.05


def test_softmax_jacobian_by_finite_differences():
    rng = np.random.default_rng(11)
    s = rng.normal(size=4)
    a = esm.softmax(s)
    for j in range(4):
        h = np.zeros(4)
        h[j] = 1e-6
        fd = (esm.softmax(s + h) - esm.softmax(s - h)) / 2e-6
        want = [a[i] * ((1.0 if i == j else 0.0) - a[j]) for i in range(4)]
        assert np.allclose(fd, want, atol=1e-9)


def test_temperature_is_scaling_and_fading_closed_form():
    assert np.allclose(esm.softmax([2, 4, 1], temperature=0.5), esm.softmax([4, 8, 2]))
    for T in (10, 100, 1000):
        s = np.zeros(T)
        s[0] = 4.0
        assert math.isclose(esm.softmax(s)[0], math.exp(4) / (math.exp(4) + T - 1), rel_tol=1e-12)
