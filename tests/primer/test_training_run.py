"""Primer chapter P11 (training the tiny GPT: the loop, the run): the run's helpers of
snippets/esm/train.py (baselines, sampling, the cached run, the ablation) against independent
computations (loops, the page's loop unrolled)."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import esm
import esm.backprop as bp
import esm.optim as op
import esm.train as et
from mkdocs_esm.runs import Runs


def test_baselines_against_loops():
    rng = np.random.default_rng(2)
    train, val, V = rng.integers(0, 6, 300), rng.integers(0, 6, 80), 6
    c = np.bincount(train, minlength=V) + 1.0
    assert et.unigram_loss(train, val, V) == pytest.approx(-np.mean([math.log(c[t] / c.sum()) for t in val]))
    alpha = 0.5
    loop = []
    for a, b in zip(val[:-1], val[1:]):
        n_ab = sum(1 for x, y in zip(train[:-1], train[1:]) if x == a and y == b)
        n_a = sum(1 for x in train[:-1] if x == a)
        loop.append(-math.log((n_ab + alpha) / (n_a + alpha * V)))
    assert et.bigram_loss(train, val, V, alpha) == pytest.approx(np.mean(loop), abs=1e-12)

def test_top_p_keep_is_the_smallest_set_reaching_the_mass():
    rng = np.random.default_rng(3)
    for _ in range(50):
        p = rng.dirichlet(np.ones(9))
        xi = rng.uniform(0.05, 0.99)
        keep = et.top_p_keep(p, xi)
        order = np.argsort(-p)
        m = next(k for k in range(1, 10) if p[order[:k]].sum() >= xi)
        assert keep.sum() == m and set(np.flatnonzero(keep)) == set(order[:m])

def test_training_is_deterministic_and_cached(tmp_path, monkeypatch):
    monkeypatch.setattr(et, "store", Runs(tmp_path, Path(et.__file__).parent))
    rng = np.random.default_rng(0)
    tokens = rng.integers(0, 20, 3000)
    cfg = dict(et.TRAIN, d=16, n_heads=2, T=16, batch=4, steps=6, eval_every=3, eval_batches=2)
    a = et.train(tokens[:2500], tokens[2500:], 20, cfg)
    b = et.train(tokens[:2500], tokens[2500:], 20, cfg)
    assert np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])
    assert all(np.array_equal(x, y) for x, y in zip(bp.param_arrays(a[0]).values(), bp.param_arrays(b[0]).values()))
    first = et.trained(tokens[:2500], tokens[2500:], 20, cfg, snapshots=(0,))
    assert len(list(tmp_path.glob("*.npz"))) == 1
    second = et.trained(tokens[:2500], tokens[2500:], 20, cfg, snapshots=(0,))
    assert np.array_equal(first[1], a[1]) and np.array_equal(second[1], a[1])
    assert np.array_equal(second[0]["E"], a[0]["E"])
    assert first[3][0]["E"].shape == (20, 16)

def test_training_is_the_loop_it_describes():
    """`train` against the loop written out: draws of windows from seed + 1 with every target
    inside the tokens, one clipped AdamW step per draw at `lr_at`'s rate, an evaluation at every
    ``eval_every``-th step and after the last, the snapshots asked for (the last one the model)."""
    tokens = np.random.default_rng(4).integers(0, 12, 400)
    V, train, val = 12, tokens[:320], tokens[320:]
    cfg = dict(et.TRAIN, d=8, n_heads=2, L=1, T=6, batch=2, steps=5, eval_every=2, eval_batches=1, warmup=2)
    trace = {}
    model, curve, evals, snaps = et.train(train, val, V, cfg, snapshots=(0, 2, 5), trace=trace)

    ref = bp.init_gpt2(cfg["seed"], V, cfg["T"], cfg["d"], cfg["L"], cfg["n_heads"], dtype=np.float64)
    params, draw, state = bp.param_arrays(ref), np.random.default_rng(cfg["seed"] + 1), {}
    losses, scored, kept, rates, norms = [], [], {}, [], []
    for step in range(cfg["steps"]):
        if step in (0, 2):
            kept[step] = {k: v.copy() for k, v in params.items()}
        if step in (0, 2, 4):
            scored.append((step, et.evaluate(ref, train, cfg), et.evaluate(ref, val, cfg)))
        starts = draw.integers(0, len(train) - cfg["T"] - 1, size=cfg["batch"])
        x = np.stack([train[s:s + cfg["T"]] for s in starts])
        y = np.stack([train[s + 1:s + cfg["T"] + 1] for s in starts])
        loss, grads = bp.loss_and_grads(ref, x, y)
        losses.append(loss)
        norms.append(math.sqrt(sum(float((g * g).sum()) for g in grads.values())))
        rates.append(op.lr_at(step, cfg))
        op.clip_grads(grads, cfg["clip"])
        op.adamw_step(params, grads, state, op.lr_at(step, cfg), weight_decay=cfg["weight_decay"])
    scored.append((5, et.evaluate(ref, train, cfg), et.evaluate(ref, val, cfg)))
    kept[5] = params

    np.testing.assert_allclose(curve, losses, rtol=1e-12)
    assert trace["lr"] == rates
    np.testing.assert_allclose(trace["grad_norm"], norms, rtol=1e-12)
    np.testing.assert_allclose(evals, scored, rtol=1e-12)
    assert sorted(snaps) == [0, 2, 5]
    for step, arrays in kept.items():
        for name, a in arrays.items():
            np.testing.assert_allclose(snaps[step][name], a, rtol=1e-12, err_msg=f"{step} {name}")
    for name, a in bp.param_arrays(model).items():
        np.testing.assert_allclose(a, params[name], rtol=1e-12, err_msg=name)

def test_unigram_loss_smooths_tokens_never_seen_in_training():
    """Add-alpha over the whole vocabulary: tokens above the largest one counted still get alpha."""
    train, val, V = np.array([0, 1, 1, 2]), np.array([1, 4, 5]), 6
    c = [1 + 1, 2 + 1, 1 + 1, 0 + 1, 0 + 1, 0 + 1]
    assert et.unigram_loss(train, val, V) == pytest.approx(-np.mean([math.log(c[t] / sum(c)) for t in val]), abs=1e-12)
    assert et.unigram_loss(train, val, V, alpha=0.5) == pytest.approx(
        -np.mean([math.log((c[t] - 0.5) / (sum(c) - 3)) for t in val]), abs=1e-12)

def test_the_ablation_is_the_model_with_its_attention_outputs_at_zero():
    """Without attention, the loss and every gradient outside the attention sublayers are those of
    the full model whose W_O and b_O are 0; the attention sublayers' arrays get no gradient."""
    rng = np.random.default_rng(5)
    V, T = 11, 7
    model = bp.init_gpt2(2, V, T, 8, 2, 2, attention=False)
    for a in bp.param_arrays(model).values():
        a += rng.normal(size=a.shape) * 0.1
    full = {k: v for k, v in model.items() if k != "attention"}
    full["blocks"] = [{k: (np.zeros_like(v) if k in ("W_O", "b_O") else v) for k, v in p.items()} for p in model["blocks"]]
    x, y = rng.integers(0, V, (3, T)), rng.integers(0, V, (3, T))
    loss, g = bp.loss_and_grads(model, x, y)
    loss_full, g_full = bp.loss_and_grads(full, x, y)
    assert loss == pytest.approx(loss_full, abs=1e-12)
    np.testing.assert_allclose(bp.forward(model, x), esm.gpt_forward(x, full), atol=1e-12)
    attn = ("W_Q", "W_K", "W_V", "W_O", "b_Q", "b_K", "b_V", "b_O", "g_1", "beta_1")
    for name in g:
        if name.split(".")[-1] in attn:
            assert not g[name].any(), name
        else:
            np.testing.assert_allclose(g[name], g_full[name], atol=1e-12, err_msg=name)

def test_loss_by_position_averages_to_the_loss():
    tokens = np.random.default_rng(6).integers(0, 12, 400)
    cfg = dict(et.TRAIN, d=8, n_heads=2, L=1, T=6, batch=2, eval_batches=3)
    model = bp.init_gpt2(1, 12, 6, 8, 1, 2)
    by_pos = et.evaluate(model, tokens, cfg, by_position=True)
    assert by_pos.shape == (6,)
    assert by_pos.mean() == pytest.approx(et.evaluate(model, tokens, cfg), abs=1e-12)
    X, Y = et.eval_windows(tokens, cfg)
    Z = esm.gpt_forward(X, model)
    lse = np.log(np.exp(Z).sum(-1))
    np.testing.assert_allclose(by_pos, (lse - np.take_along_axis(Z, Y[..., None], -1)[..., 0]).mean(0), atol=1e-12)

def test_sample_many_is_sample_tokens_side_by_side():
    model = bp.init_gpt2(3, 12, 5, 8, 1, 2, std=0.5)
    prompt = np.array([1, 2, 3])
    many = et.sample_many(model, prompt, 9, [4, 7], top_p=0.8)
    for row, seed in zip(many, (4, 7)):
        np.testing.assert_array_equal(row, et.sample_tokens(model, prompt, 9, np.random.default_rng(seed), top_p=0.8))
