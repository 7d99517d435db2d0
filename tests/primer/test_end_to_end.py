"""Primer chapters P6 to P12: the whole-model helpers of esm and the claims of the full-model,
counting, training and decoding chapters, against independent computations."""
from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest

import esm


def test_gelu_is_x_times_the_normal_cdf():
    xs = np.linspace(-6, 6, 97)
    cdf = NormalDist().cdf
    assert np.allclose(esm.gelu(xs), [x * cdf(x) for x in xs], atol=1e-14)


def test_gelu_tanh_is_close_to_exact_but_not_equal():
    xs = np.linspace(-8, 8, 16001)
    gap = np.abs(esm.gelu(xs) - esm.gelu_tanh(xs))
    assert 1e-5 < gap.max() < 1e-3          # an approximation, good to about 3e-4
    assert esm.gelu_tanh(0.0) == 0.0


def _random_block(d=8, seed=0):
    return esm.init_block(np.random.default_rng(seed), d)


def test_post_ln_block_against_its_formula_written_out():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(5, 8))
    p = _random_block()
    mask = esm.causal_mask(5)
    attn = esm.multi_head_attention(X, p["W_Q"], p["W_K"], p["W_V"], p["W_O"], 2, mask, p["b_Q"], p["b_K"], p["b_V"],
                                    p["b_O"])
    U = esm.layer_norm(X + attn, p["g_1"], p["beta_1"])
    Y = esm.layer_norm(U + esm.gelu_tanh(U @ p["W_1"] + p["b_1"]) @ p["W_2"] + p["b_2"], p["g_2"], p["beta_2"])
    assert np.allclose(esm.block_forward(X, p, 2, mask, pre_ln=False), Y, atol=1e-12)
    # another activation is used where given, in post-LN as in pre-LN
    Y_exact = esm.layer_norm(U + esm.gelu(U @ p["W_1"] + p["b_1"]) @ p["W_2"] + p["b_2"], p["g_2"], p["beta_2"])
    assert np.allclose(esm.block_forward(X, p, 2, mask, pre_ln=False, act=esm.gelu), Y_exact, atol=1e-12)
    assert not np.allclose(Y_exact, Y, atol=1e-9)


def test_post_ln_output_rows_are_standardised_before_gamma_beta():
    rng = np.random.default_rng(4)
    p = _random_block()
    p["g_2"], p["beta_2"] = np.ones(8), np.zeros(8)
    Y = esm.block_forward(rng.normal(size=(6, 8)) * 10, p, 4, pre_ln=False)
    assert np.allclose(Y.mean(-1), 0, atol=1e-12) and np.allclose(Y.var(-1), 1, atol=1e-3)


def test_block_shapes_count_is_12d2_plus_13d():
    for d in (4, 32, 768):
        assert sum(math.prod(s) for s in esm.block_shapes(d).values()) == 12 * d * d + 13 * d


def test_tiny_model_is_causal_and_batches():
    m = esm.tiny_gpt()
    rng = np.random.default_rng(0)
    ids = rng.integers(0, esm.TINY["V"], size=(3, 10))
    Z = esm.gpt_forward(ids, m)
    assert Z.shape == (3, 10, esm.TINY["V"])
    for n in range(3):
        assert np.allclose(Z[n], esm.gpt_forward(ids[n], m), atol=1e-12)
        for t in range(10):   # a prefix alone gives the same row: nothing after t is read
            assert np.allclose(esm.gpt_forward(ids[n, :t + 1], m)[-1], Z[n, t], atol=1e-12)


def test_untied_head_is_used_when_present():
    m = esm.tiny_gpt()
    W_U = np.random.default_rng(1).normal(size=(esm.TINY["d"], esm.TINY["V"]))
    tr = {}
    Z = esm.gpt_forward([1, 2, 3], {**m, "W_U": W_U}, trace=tr)
    assert np.allclose(Z, tr["Xf"] @ W_U)


def test_gpt2_small_count_from_hugging_face_style_names():
    """The released state dict has 148 arrays (4 + 12 x 12), summing to 124,439,808."""
    V, T, d, L = 50257, 1024, 768, 12
    block = [d, d, d * 3 * d, 3 * d, d * d, d, d, d, d * 4 * d, 4 * d, 4 * d * d, d]
    sizes = [V * d, T * d, d, d] + block * L
    assert len(sizes) == 148 and sum(sizes) == 124_439_808


def test_lm_loss_gradient_by_hand_on_a_tiny_case():
    z = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]])
    y = np.array([2, 0])
    loss = lambda Z: float(np.mean([esm.cross_entropy(Z[t], y[t]) for t in range(2)]))
    G = (esm.softmax(z) - esm.one_hot(y, 3)) / 2
    assert np.allclose(G, esm.numerical_grad(loss, z), atol=1e-8)
    assert np.allclose(G.sum(-1), 0, atol=1e-15)


@pytest.mark.parametrize("lam", [0.1, 0.5, 0.9, 0.99])
def test_top_p_set_is_smallest_by_brute_force(lam):
    """Against every subset of a 10-token distribution: no smaller set reaches lam."""
    from itertools import combinations
    p = esm.softmax(np.random.default_rng(5).normal(size=10) * 2)
    order = np.argsort(-p)
    m = int(np.searchsorted(np.cumsum(p[order]), lam)) + 1
    assert p[order[:m]].sum() >= lam
    assert all(p[list(c)].sum() < lam for c in combinations(range(10), m - 1))


def test_temperature_limit_is_greedy():
    z = np.array([0.3, 2.0, 1.9, -1.0])
    for tau in (1e-1, 1e-2, 1e-3):
        p = esm.softmax(z, temperature=tau)
        assert 1 - p[1] <= 3 * math.exp(-0.1 / tau) + 1e-15


def test_gpt_forward_against_the_model_written_out_token_by_token():
    # X0 = E[ids] + P[0:T], then the L blocks (each checked against its formula above) under a
    # causal mask, a final layer norm, and logits against the tied table: written as loops.
    m = esm.tiny_gpt()
    ids = [3, 1, 4, 1, 5, 9]
    T, L = len(ids), esm.TINY["L"]
    tr = {}
    Z = esm.gpt_forward(ids, m, trace=tr)
    assert sorted(tr) == sorted([f"X{ell}" for ell in range(L + 1)] + ["Xf", "logits"])
    X = np.array([[m["E"][i][k] + m["P"][t][k] for k in range(esm.TINY["d"])] for t, i in enumerate(ids)])
    assert np.allclose(tr["X0"], X, atol=1e-15, rtol=0)
    allowed = np.array([[j <= i for j in range(T)] for i in range(T)])
    for ell in range(1, L + 1):
        X = esm.block_forward(X, m["blocks"][ell - 1], m["n_heads"], allowed)
        assert np.allclose(tr[f"X{ell}"], X, atol=1e-12, rtol=0)
    Xf = np.array([[(x[k] - np.mean(x)) / math.sqrt(np.var(x) + 1e-5) * m["g_f"][k] + m["beta_f"][k]
                    for k in range(len(x))] for x in X])
    assert np.allclose(tr["Xf"], Xf, atol=1e-12, rtol=0)
    logits = np.array([[sum(Xf[t][k] * m["E"][v][k] for k in range(esm.TINY["d"]))
                        for v in range(esm.TINY["V"])] for t in range(T)])
    assert np.allclose(Z, logits, atol=1e-12, rtol=0) and tr["logits"] is Z


def test_init_gpt_draws_normal_weights_of_the_given_scale():
    # Large enough for sample statistics: means and standard deviations against N(0, scale^2)
    # (gains 1 + N(0, scale^2)); five standard errors of slack.
    V, T_max, d, L, scale = 400, 300, 64, 2, 0.05
    m = esm.init_gpt(11, V, T_max, d, L, n_heads=4, scale=scale)
    assert m["n_heads"] == 4 and len(m["blocks"]) == L
    samples = {"E": m["E"], "P": m["P"], "beta_f": m["beta_f"], "g_f - 1": m["g_f"] - 1.0}
    for b, p in enumerate(m["blocks"]):
        samples |= {f"W_Q[{b}]": p["W_Q"], f"W_1[{b}]": p["W_1"], f"g_1 - 1 [{b}]": p["g_1"] - 1.0}
    shapes = {"E": (V, d), "P": (T_max, d), "beta_f": (d,), "g_f - 1": (d,)}
    for name, x in samples.items():
        if name in shapes:
            assert x.shape == shapes[name], name
        n = x.size
        assert abs(x.mean()) < 5 * scale / math.sqrt(n), name
        assert abs(x.std() / scale - 1) < 5 / math.sqrt(2 * n), name
    # the seed fixes every draw; another seed gives another model
    again, other = esm.init_gpt(11, V, T_max, d, L, 4, scale), esm.init_gpt(12, V, T_max, d, L, 4, scale)
    assert np.array_equal(again["E"], m["E"]) and np.array_equal(again["blocks"][1]["W_2"], m["blocks"][1]["W_2"])
    assert np.array_equal(again["g_f"], m["g_f"])
    assert not np.array_equal(other["E"], m["E"])
    # the default scale is 0.3
    assert abs(esm.init_gpt(11, V, T_max, d, 1, 4)["E"].std() / 0.3 - 1) < 5 / math.sqrt(2 * V * d)


def test_init_gpt_is_the_documented_draw_order_of_one_generator():
    # The primer's numbers are reproducible from the recipe: one default_rng(seed) drawn for E,
    # P, each block (init_block), then the final gain and bias; gains are 1 + a draw.
    V, T_max, d, L, scale = 7, 5, 4, 2, 0.3
    rng = np.random.default_rng(5)
    E, P = rng.standard_normal((V, d)), rng.standard_normal((T_max, d))
    blocks = [esm.init_block(rng, d, scale=scale) for _ in range(L)]
    g, b = rng.standard_normal(d), rng.standard_normal(d)
    m = esm.init_gpt(5, V, T_max, d, L, 2)
    assert np.allclose(m["E"], scale * E, atol=0, rtol=1e-15) and np.allclose(m["P"], scale * P, atol=0, rtol=1e-15)
    assert all(np.array_equal(m["blocks"][i][k], blocks[i][k]) for i in range(L) for k in blocks[i])
    assert np.allclose(m["g_f"], 1 + scale * g, atol=1e-15, rtol=0)
    assert np.allclose(m["beta_f"], scale * b, atol=0, rtol=1e-15)


def test_pre_ln_block_is_the_default_and_matches_its_formula_written_out():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(2, 5, 8))                      # a batch: the block acts on the last two axes
    p = _random_block(seed=2)
    mask = esm.causal_mask(5)
    Z = esm.layer_norm(X, p["g_1"], p["beta_1"])
    U = X + esm.multi_head_attention(Z, p["W_Q"], p["W_K"], p["W_V"], p["W_O"], 2, mask, p["b_Q"], p["b_K"],
                                     p["b_V"], p["b_O"])
    Z2 = esm.layer_norm(U, p["g_2"], p["beta_2"])
    Y = U + esm.gelu_tanh(Z2 @ p["W_1"] + p["b_1"]) @ p["W_2"] + p["b_2"]
    assert np.allclose(esm.block_forward(X, p, 2, mask), Y, atol=1e-12, rtol=0)
    # another activation is used where given, in the feed-forward only
    Y_exact = U + esm.gelu(Z2 @ p["W_1"] + p["b_1"]) @ p["W_2"] + p["b_2"]
    assert np.allclose(esm.block_forward(X, p, 2, mask, act=esm.gelu), Y_exact, atol=1e-12, rtol=0)
    assert not np.allclose(Y_exact, Y, atol=1e-9, rtol=0)


def test_init_block_draws_normal_weights_and_unit_gains_of_the_given_scale():
    d, d_ff, scale = 48, 80, 0.05
    p = esm.init_block(np.random.default_rng(9), d, d_ff, scale=scale)
    assert {k: v.shape for k, v in p.items()} == esm.block_shapes(d, d_ff)
    assert p["W_1"].shape == (d, d_ff) and p["W_2"].shape == (d_ff, d)
    for name, x in p.items():
        shifted = x - 1.0 if name in ("g_1", "g_2") else x       # gains are 1 + N(0, scale^2)
        n = x.size
        assert abs(shifted.mean()) < 5 * scale / math.sqrt(n), name
        assert abs(shifted.std() / scale - 1) < 5 / math.sqrt(2 * n), name
    big = esm.init_block(np.random.default_rng(9), 64)              # defaults: d_ff = 4d, scale 0.3
    assert big["W_1"].shape == (64, 256)
    assert abs(big["W_1"].std() / 0.3 - 1) < 5 / math.sqrt(2 * big["W_1"].size)
