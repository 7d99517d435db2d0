"""Claims of docs/part1/next-token-prediction.md (0.1-0.2), checked against independent computations."""

from __future__ import annotations

import math
import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import esm
from conftest import demo_namespace

LOGITS = st.lists(st.floats(-30, 30, allow_nan=False), min_size=2, max_size=12)


def test_worked_example_by_hand():
    """0.1: h = (1, 2) and the five rows of W give the integer logits (0, -1, 2, 1, 0); the loss of
    'sat' is -2 + log(1 + e^-1 + e^2 + e + 1), and 'sat' is the most probable token."""
    ns = demo_namespace("part1/next-token-prediction/loss")
    rows = [(2, -1), (1, -1), (0, 1), (1, 0), (-2, 1)]
    z = [a * 1 + b * 2 for a, b in rows]
    assert z == [0, -1, 2, 1, 0] == ns["z"].tolist()
    assert ns["h"].tolist() == [1, 2] and ns["W"].tolist() == [list(r) for r in rows]
    total = 1 + math.exp(-1) + math.exp(2) + math.e + 1
    assert math.isclose(ns["loss"], -2 + math.log(total), rel_tol=1e-12)
    assert math.isclose(ns["p"][2], math.exp(2) / total, rel_tol=1e-12)
    assert ns["vocab"][int(np.argmax(ns["p"]))] == "sat" == ns["vocab"][ns["y"]]
    assert ns["p"][2] > 0.5                          # "most of its mass" (0.2's paragraph)


@given(LOGITS, st.floats(-50, 50, allow_nan=False))
@settings(max_examples=40, deadline=None)
def test_softmax_is_positive_sums_to_one_and_ignores_a_shift(z, c):
    p = esm.softmax(np.array(z))
    assert np.all(p > 0) and math.isclose(math.fsum(p), 1.0, rel_tol=1e-12)
    np.testing.assert_allclose(esm.softmax(np.array(z) + c), p, rtol=1e-9, atol=1e-15)


@given(LOGITS, st.data())
@settings(max_examples=40, deadline=None)
def test_cross_entropy_two_forms(z, data):
    """(0.3): -log p_y = -z_y + log sum_j e^{z_j}, the second form in scalar arithmetic."""
    y = data.draw(st.integers(0, len(z) - 1))
    direct = -math.log(math.exp(z[y]) / math.fsum(math.exp(v) for v in z))
    lse = -z[y] + math.log(math.fsum(math.exp(v) for v in z))
    assert math.isclose(direct, lse, rel_tol=1e-9, abs_tol=1e-9)
    assert math.isclose(esm.cross_entropy(np.array(z), y), lse, rel_tol=1e-9, abs_tol=1e-9)
    assert lse >= 0


@given(st.integers(2, 60000))
def test_equal_logits_cost_log_vocabulary(V):
    assert math.isclose(esm.cross_entropy(np.zeros(V), V // 2), math.log(V), rel_tol=1e-12)


def test_the_smallest_logit_is_the_costliest_target():
    """0.1: a confident wrong model pays most when the true token had the smallest logit."""
    ns = demo_namespace("part1/next-token-prediction/loss")
    losses = [esm.cross_entropy(ns["z"], j) for j in range(len(ns["vocab"]))]
    assert int(np.argmax(losses)) == int(np.argmin(ns["z"])) == ns["vocab"].index("cat")
    assert math.isclose(ns["loss_wrong"], max(losses), rel_tol=1e-12)


def test_pipeline_predicts_at_every_position():
    """0.2: with no blocks each position's distribution depends on its own token only; position 0
    ('the') gives 'cat' its largest probability; the text's loss is the mean over both positions."""
    ns = demo_namespace("part1/next-token-prediction/pipeline")
    E, W, vocab = ns["E"], ns["W"], ns["vocab"]
    for t, i in enumerate(ns["ids"]):
        scores = [sum(W[j, k] * E[i, k] for k in range(E.shape[1])) for j in range(len(vocab))]
        total = math.fsum(math.exp(s) for s in scores)
        np.testing.assert_allclose(ns["P_all"][t], [math.exp(s) / total for s in scores], rtol=1e-12)
    assert vocab[int(np.argmax(ns["P_all"][0]))] == "cat" and ns["predicted"] == "sat"
    losses = [-math.log(ns["P_all"][t][vocab.index(w)]) for t, w in enumerate(["cat", "sat"])]
    assert math.isclose(ns["mean_loss"], sum(losses) / 2, rel_tol=1e-12)


def test_the_figure_draws_the_demo_numbers_and_every_stage():
    ns = demo_namespace("part1/next-token-prediction/pipeline")
    stages = [s for s, _ in ns["STAGES"]]
    assert len(stages) == 7 and stages[ns["BLOCKS"]] == "transformer blocks"
    drawn = {s: t.get_text() for s, t in ns["drawn"].items()}
    numbers = {s: [float(x) for x in re.findall(r"\{(-?[\d.]+)\}", drawn[s])] for s in (ns["LOGITS"], ns["SOFTMAX"])}
    assert numbers[ns["LOGITS"]] == [0, -1, 2, 1, 0]
    exps = [math.exp(v) for v in (0, -1, 2, 1, 0)]
    assert numbers[ns["SOFTMAX"]] == [round(e / sum(exps), 2) for e in exps]
    assert drawn["next token"].startswith("“sat”")
