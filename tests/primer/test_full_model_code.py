"""Primer chapters P7 and P9: the code on the pages, tested like esm's helpers. P7's batched
`forward` and `init_model` (snippets/primer/full-model/forward.py) against esm.init_gpt and
esm.gpt_forward on other sizes, batches and seeds; P9's `layer_norm_backward`, `gelu_grad` and
`gelu_tanh_grad` (snippets/primer/training-signal/backward_steps.py) against central differences
on other shapes."""
from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import pytest

import esm

SNIPPETS = Path(__file__).resolve().parents[2] / "snippets" / "primer"


@pytest.fixture(scope="module")
def p7():
    return runpy.run_path(str(SNIPPETS / "full-model" / "forward.py"))


@pytest.fixture(scope="module")
def p9():
    return runpy.run_path(str(SNIPPETS / "training-signal" / "backward_steps.py"))


@pytest.mark.parametrize("size", [dict(V=11, T_max=9, d=12, L=1, H=3), dict(V=30, T_max=6, d=16, L=3, H=2),
                                  dict(V=7, T_max=5, d=8, L=2, H=8)])
def test_page_forward_matches_the_helper(p7, size):
    seed = 5
    model = p7["init_model"](**size, seed=seed)
    helper = esm.init_gpt(seed, size["V"], size["T_max"], size["d"], size["L"], size["H"])
    assert np.array_equal(model["E"], helper["E"]) and np.array_equal(model["blocks"][-1]["W_2"], helper["blocks"][-1]["W_2"])
    ids = np.random.default_rng(1).integers(0, size["V"], size=(4, size["T_max"]))
    for T in (1, 2, size["T_max"]):
        got = p7["forward"](ids[:, :T], model)
        assert got.shape == (4, T, size["V"])
        assert np.allclose(got, esm.gpt_forward(ids[:, :T], model), rtol=0, atol=1e-11)


def test_page_forward_is_causal_and_fails_past_the_position_table(p7):
    model = p7["init_model"]()
    ids = np.random.default_rng(2).integers(0, 50, size=(2, 16))
    later = ids.copy()
    later[:, 9:] = (later[:, 9:] + 1) % 50
    a, b = p7["forward"](ids, model), p7["forward"](later, model)
    assert np.allclose(a[:, :9], b[:, :9], rtol=0, atol=1e-12) and not np.allclose(a[:, 9:], b[:, 9:], atol=1e-3)
    with pytest.raises(ValueError):
        p7["forward"](np.zeros((1, 17), dtype=int), model)


def test_page_attention_a_mutated_mask_is_caught(p7):
    """The page's attention against the helper's: a mask that let row t see t + 1 would differ."""
    rng = np.random.default_rng(3)
    p = esm.init_block(rng, 8)
    x = rng.normal(size=(2, 5, 8))
    got = p7["attention"](x, p, 2)
    want = esm.multi_head_attention(x, p["W_Q"], p["W_K"], p["W_V"], p["W_O"], 2, esm.causal_mask(5), p["b_Q"], p["b_K"],
                                    p["b_V"], p["b_O"])
    assert np.allclose(got, want, rtol=0, atol=1e-12)
    leaky = esm.multi_head_attention(x, p["W_Q"], p["W_K"], p["W_V"], p["W_O"], 2, np.tri(5, k=1, dtype=bool), p["b_Q"],
                                     p["b_K"], p["b_V"], p["b_O"])
    assert not np.allclose(got, leaky, atol=1e-6)


@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 4)])
def test_layer_norm_backward_against_central_differences(p9, shape):
    rng = np.random.default_rng(len(shape))
    x = rng.normal(size=shape) * 3 - 1
    g, b = 1 + 0.5 * rng.normal(size=shape[-1]), rng.normal(size=shape[-1])
    dy = rng.normal(size=shape)
    dx, dg, db = p9["layer_norm_backward"](dy, x, g)

    def loss(x_, g_=g, b_=b):
        return float((dy * esm.layer_norm(x_, g_, b_)).sum())
    assert np.allclose(dx, esm.numerical_grad(loss, x), rtol=0, atol=1e-7)
    assert np.allclose(dg, esm.numerical_grad(lambda v: loss(x, v), g), rtol=0, atol=1e-7)
    assert np.allclose(db, esm.numerical_grad(lambda v: loss(x, g, v), b), rtol=0, atol=1e-7)


def test_gelu_derivatives_against_central_differences(p9):
    xs = np.linspace(-9, 9, 721)
    h = 1e-6
    assert np.allclose(p9["gelu_grad"](xs), (esm.gelu(xs + h) - esm.gelu(xs - h)) / (2 * h), rtol=0, atol=1e-7)
    assert np.allclose(p9["gelu_tanh_grad"](xs), (esm.gelu_tanh(xs + h) - esm.gelu_tanh(xs - h)) / (2 * h), rtol=0,
                       atol=1e-7)
    # the two forms are different functions: their derivatives are close, not equal
    assert 1e-5 < np.abs(p9["gelu_grad"](xs) - p9["gelu_tanh_grad"](xs)).max() < 1e-2
