"""Claims of docs/part1/similarity-geometry.md (3.1-3.5), checked against independent computations."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import esm

coords = st.floats(-10, 10, allow_nan=False, allow_infinity=False)
angles = st.floats(-math.pi, math.pi)
lengths = st.floats(0.1, 10)


@given(lengths, lengths, angles, angles)
@settings(max_examples=60, deadline=None)
def test_dot_product_polar_form(r, s, a, b):
    """3.1: u^T v = ||u|| ||v|| cos(theta) for vectors built from their polar coordinates."""
    u = r * np.array([math.cos(a), math.sin(a)])
    v = s * np.array([math.cos(b), math.sin(b)])
    assert math.isclose(u[0] * v[0] + u[1] * v[1], r * s * math.cos(a - b), abs_tol=1e-9)


@given(lengths, lengths, angles, angles, st.floats(0.01, 100), st.floats(0.01, 100))
@settings(max_examples=60, deadline=None)
def test_cosine_is_the_angle_and_is_scale_invariant(r, s, a, b, c1, c2):
    """3.2: cos(u, v) = cos(theta); cos(c1 u, c2 v) = cos(u, v) for c1, c2 > 0; sign flips."""
    u = r * np.array([math.cos(a), math.sin(a)])
    v = s * np.array([math.cos(b), math.sin(b)])
    assert math.isclose(esm.cosine(u, v), math.cos(a - b), abs_tol=1e-9)
    assert math.isclose(esm.cosine(c1 * u, c2 * v), esm.cosine(u, v), abs_tol=1e-9)
    assert math.isclose(esm.cosine(-c1 * u, v), -esm.cosine(u, v), abs_tol=1e-9)


def test_dot_versus_cosine_under_scaling_worked_example():
    u, v = np.array([3.0, 4.0]), np.array([4.0, 3.0])
    for c in (0.25, 1.0, 4.0):
        assert math.isclose((c * u) @ v, 24 * c)
        assert math.isclose(esm.cosine(c * u, v), 0.96)


@given(st.lists(coords, min_size=3, max_size=3), st.lists(coords, min_size=3, max_size=3))
@settings(max_examples=60, deadline=None)
def test_distance_expansion_against_a_loop(u, v):
    """3.3: ||u - v||^2 = ||u||^2 + ||v||^2 - 2 u^T v."""
    lhs = sum((a - b) ** 2 for a, b in zip(u, v))
    uu, vv, uv = (sum(a * a for a in u), sum(b * b for b in v), sum(a * b for a, b in zip(u, v)))
    assert math.isclose(lhs, uu + vv - 2 * uv, abs_tol=1e-9 * (1 + uu + vv))


def test_unit_vectors_distance_is_two_minus_two_cos_and_rankings_agree():
    """3.3: on unit rows ||u - v||^2 = 2 - 2 cos, so distance and cosine rank neighbours alike."""
    rng = np.random.default_rng(7)
    A = rng.normal(size=(20, 6)) * rng.uniform(0.2, 5, (20, 1))
    U = A / np.sqrt((A * A).sum(axis=1, keepdims=True))
    C = esm.cosine_matrix(A)
    for a in range(20):
        for b in range(20):
            assert math.isclose(float(((U[a] - U[b]) ** 2).sum()), 2 - 2 * C[a, b], abs_tol=1e-12)
        d2 = ((U - U[a]) ** 2).sum(axis=1)
        d2[a] = np.inf
        c = C[a].copy()
        c[a] = -np.inf
        assert int(np.argmin(d2)) == int(np.argmax(c))


def test_raw_rankings_can_disagree():
    """3.3 worked example: cosine prefers (3, 0.3), distance prefers (0.7, 0.7) for q = (1, 0)."""
    q = np.array([1.0, 0.0])
    a, b = np.array([3.0, 0.3]), np.array([0.7, 0.7])
    assert esm.cosine(q, a) > esm.cosine(q, b)
    assert np.linalg.norm(q - a) > np.linalg.norm(q - b)


def test_norm_inflates_logits_and_sharpens_softmax():
    """3.4: z_j = ||h|| ||w_j|| cos theta_j; a long, less aligned row can outscore a short aligned one;
    a longer h lowers the entropy."""
    h = 1.5 * np.array([1.0, 0.0])
    short_aligned = 0.890 * np.array([math.cos(math.radians(5)), math.sin(math.radians(5))])
    long_off = 2.133 * np.array([math.cos(math.radians(58)), math.sin(math.radians(58))])
    assert math.isclose(long_off @ h, 1.5 * 2.133 * math.cos(math.radians(58)))
    assert long_off @ h > short_aligned @ h
    assert esm.cosine(short_aligned, h) > esm.cosine(long_off, h)
    z = np.array([1.7, 0.8, -0.3, 1.8, 1.3, 0.9])

    def entropy(x):
        p = np.exp(x - x.max())
        p /= p.sum()
        return float(-(p * np.log(p)).sum())

    for c in (1.5, 2.0, 3.0):
        assert entropy(c * z) < entropy(z)


@given(st.integers(0, 10_000))
@settings(max_examples=25, deadline=None)
def test_nearest_neighbours_against_brute_force(seed):
    """3.5: NN_k(q) = top-k cosine over the rows (query row excluded) equals a brute-force scan."""
    rng = np.random.default_rng(seed)
    V, d, k = 15, 4, 3
    E = rng.normal(size=(V, d)) * rng.uniform(0.3, 3, (V, 1))
    C = esm.cosine_matrix(E)
    for a in range(V):
        got = esm.top_k(C[a], k, exclude=[a]).tolist()
        scored = []
        for i in range(V):
            if i != a:
                c = sum(E[a, j] * E[i, j] for j in range(d)) / (
                    math.sqrt(sum(x * x for x in E[a])) * math.sqrt(sum(x * x for x in E[i])))
                scored.append((-c, i))
        scored.sort()
        assert got == [i for _, i in scored[:k]]
