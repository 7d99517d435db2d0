"""Claims of docs/part1/formal-definitions.md (2.1-2.5), checked against independent computations."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import esm
from conftest import demo_namespace


def test_matrix_demo_sizes_against_a_count_of_rows():
    """2.1: the published sizes are counted row by row, not multiplied again."""
    ns = demo_namespace("part1/formal-definitions/matrix")
    assert ns["big_size"] == sum(ns["d_big"] for _ in range(ns["V_big"])) == 204_800_000
    np.testing.assert_array_equal(ns["E"][ns["i"]], [12, 13, 14, 15])      # row 3 of 0..19 in a 5 x 4 grid


def test_rows_are_contiguous():
    """2.1: in C order row i starts i * d * itemsize bytes into the buffer."""
    E = np.zeros((7, 5), dtype=np.float32)
    base = E.__array_interface__["data"][0]
    for i in range(7):
        assert E[i].__array_interface__["data"][0] - base == i * 5 * 4
        assert E[i].flags["C_CONTIGUOUS"]


@given(st.integers(1, 30), st.integers(1, 8), st.data())
@settings(max_examples=30, deadline=None)
def test_one_hot_product_selects_the_row(V, d, data):
    """2.2: e_i^T E = E_{i,:}."""
    i = data.draw(st.integers(0, V - 1))
    E = np.random.default_rng(V * 100 + d).normal(size=(V, d))
    e = np.zeros(V)
    e[i] = 1.0
    np.testing.assert_array_equal(e @ E, E[i])
    np.testing.assert_array_equal(esm.one_hot(i, V), e)


def test_lookup_gradient_reaches_only_the_selected_rows():
    """2.2: dl/dE_k = sum over positions with i_t = k of dl/dx_t; zero elsewhere (nonlinear loss)."""
    rng = np.random.default_rng(3)
    V, d = 9, 4
    ids = np.array([7, 1, 7, 4])
    E = rng.normal(size=(V, d))
    A = rng.normal(size=(len(ids), d))

    def loss(table):
        return float(np.sum(np.tanh(table[ids]) * A))

    dX = (1 - np.tanh(E[ids]) ** 2) * A                    # dl/dx_t
    G = np.zeros_like(E)
    np.add.at(G, ids, dX)                                   # scatter-add, the sparse backward pass
    G_fd = esm.numerical_grad(loss, E)
    np.testing.assert_allclose(G, G_fd, atol=1e-7)
    unused = sorted(set(range(V)) - set(ids.tolist()))
    assert np.all(G_fd[unused] == 0.0)
    np.testing.assert_allclose(G[7], dX[0] + dX[2])


def test_numerical_grad_helper_matches_a_closed_form():
    """esm.numerical_grad (introduced in 2.2) against the gradient of x^T A x, which is (A + A^T) x."""
    rng = np.random.default_rng(4)
    A = rng.normal(size=(5, 5))
    x = rng.normal(size=5)
    np.testing.assert_allclose(esm.numerical_grad(lambda v: v @ A @ v, x), (A + A.T) @ x, atol=1e-7)
    X0 = x.copy()
    esm.numerical_grad(lambda v: float(v.sum()), x)
    np.testing.assert_array_equal(x, X0)                    # the input is not modified


@given(st.integers(1, 4), st.integers(1, 5), st.integers(2, 9), st.integers(1, 4))
@settings(max_examples=25, deadline=None)
def test_batch_lookup_shape_and_entries(B, T, V, d):
    """2.3: X = E[ids] in R^{B x T x d}, X[b, t] = E[ids[b, t]]."""
    rng = np.random.default_rng(B * 1000 + T * 100 + V * 10 + d)
    ids = rng.integers(0, V, size=(B, T))
    E = rng.normal(size=(V, d))
    X = E[ids]
    assert X.shape == (B, T, d)
    for b in range(B):
        for t in range(T):
            np.testing.assert_array_equal(X[b, t], E[ids[b, t]])
    np.testing.assert_array_equal(E[ids.reshape(-1)].reshape(B, T, d), X)


def test_tied_worked_example_end_to_end():
    """2.4: the page's one case, recomputed by hand: rows (1, -1), (0.5, 0.5), (-1, 0), input 0, target 1.
    z = (2, 0, -1); p_j = e^{z_j} / (e^2 + 1 + e^{-1}); output term (p - e_y) h^T on every row; input
    term E^T (p - e_y) on row 0; their sum is the finite-difference gradient."""
    ns = demo_namespace("part1/formal-definitions/tied")
    np.testing.assert_allclose(ns["z"], [2.0, 0.0, -1.0], atol=0)
    Z = math.exp(2) + 1 + math.exp(-1)
    p = np.array([math.exp(2) / Z, 1 / Z, math.exp(-1) / Z])
    np.testing.assert_allclose(ns["p"], p, atol=1e-15)
    g = p - np.array([0.0, 1.0, 0.0])
    row0 = g[0] * np.array([1.0, -1.0]) + g[1] * np.array([0.5, 0.5]) + g[2] * np.array([-1.0, 0.0])
    np.testing.assert_allclose(ns["G_in"][0], row0, atol=1e-15)
    np.testing.assert_allclose(ns["G_fd"][0], g[0] * np.array([1.0, -1.0]) + row0, atol=1e-7)
    np.testing.assert_allclose(ns["G_fd"][1:], np.outer(g[1:], [1.0, -1.0]), atol=1e-7)


def test_tied_gradient_has_an_output_and_an_input_part():
    """2.4: for h = E_i, z = E h, l = CE(z, y): grad = (p - e_y) h^T + e_i (E^T (p - e_y))^T."""
    rng = np.random.default_rng(5)
    V, d, i, y = 6, 3, 2, 4
    E = rng.normal(size=(V, d))

    def loss(table):
        z = table @ table[i]
        return float(np.log(np.exp(z).sum()) - z[y])

    z = E @ E[i]
    p = np.exp(z) / np.exp(z).sum()
    g = p.copy()
    g[y] -= 1.0
    G = np.outer(g, E[i])
    G[i] += E.T @ g
    np.testing.assert_allclose(G, esm.numerical_grad(loss, E), atol=1e-7)


def test_residual_init_with_and_without_added_positions():
    """2.5: h0_t = E[i_t] + P[t]; a repeated id differs by P[t] - P[s]; with RoPE nothing is added."""
    rng = np.random.default_rng(6)
    E = rng.normal(size=(10, 8))
    P = np.array([[np.sin(p / 10000 ** (2 * (k // 2) / 8)) if k % 2 == 0 else np.cos(p / 10000 ** (2 * (k // 2) / 8))
                   for k in range(8)] for p in range(6)])
    np.testing.assert_allclose(esm.sinusoidal_positions(6, 8), P, atol=1e-12)
    ids = np.array([4, 7, 4, 1, 9, 4])
    H0 = E[ids] + P
    np.testing.assert_allclose(H0[0] - H0[2], P[0] - P[2], atol=1e-12)
    assert np.linalg.norm(H0[0] - H0[2]) > 0.1
    np.testing.assert_array_equal(E[ids][0], E[ids][2])


def test_residual_demo_gap():
    """2.5: the gap of token 4 between positions 0 and 2 is ||PE_0 - PE_2|| written with the page's
    formula entry by entry. (What a first layer without positions can tell about order, with and
    without a causal mask, is 6.1's claim: tests/part2/test_positional_information.py.)"""
    ns = demo_namespace("part1/formal-definitions/residual")
    d = ns["d"]
    pe = lambda t: np.array([math.sin(t * 10000 ** (-(k - k % 2) / d)) if k % 2 == 0
                             else math.cos(t * 10000 ** (-(k - k % 2) / d)) for k in range(d)])
    assert math.isclose(ns["gap"], float(np.linalg.norm(pe(0) - pe(2))), abs_tol=1e-12)