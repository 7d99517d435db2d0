"""Claims of docs/part1/intuition.md (1.2-1.5), checked against independent computations."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import esm
from conftest import demo_namespace


@given(st.integers(2, 40), st.data())
@settings(max_examples=40, deadline=None)
def test_one_hot_codes_are_all_sqrt2_apart(V, data):
    """1.2: ||e_i - e_j|| = sqrt(2) for i != j, whatever the vocabulary size."""
    i = data.draw(st.integers(0, V - 1))
    j = data.draw(st.integers(0, V - 1).filter(lambda x: x != i))
    ei, ej = esm.one_hot(i, V), esm.one_hot(j, V)
    squared = 0.0
    for k in range(V):                      # coordinate by coordinate
        squared += (ei[k] - ej[k]) ** 2
    assert squared == 2.0
    assert math.isclose(math.sqrt(squared), math.sqrt(2.0))
    assert float(ei @ ej) == 0.0            # orthogonal: nothing shared


def test_one_hot_equidistance_is_not_true_of_learned_rows():
    rng = np.random.default_rng(0)
    E = rng.normal(size=(6, 2))
    D = np.array([[np.linalg.norm(E[a] - E[b]) for b in range(6)] for a in range(6)])
    off = D[~np.eye(6, dtype=bool)]
    assert off.max() - off.min() > 0.1


@given(st.integers(1, 300), st.integers(1, 64), st.sampled_from([(np.float32, 32), (np.float16, 16), (np.int8, 8)]))
@settings(max_examples=30, deadline=None)
def test_table_bytes_formula_matches_numpy(V, d, dtype_bits):
    """1.3: bytes = |V| d b / 8, against what numpy allocates."""
    dtype, bits = dtype_bits
    assert np.zeros((V, d), dtype=dtype).nbytes == V * d * bits // 8


def test_memory_page_states_no_model_total():
    """1.3 keeps the table's own numbers; GPT-2 small's whole count lives in chapter P8 only."""
    ns = demo_namespace("part1/intuition/memory")
    assert "total" not in ns and "share" not in ns
    assert ns["Vg"] * ns["dg"] == 50_257 * 768


def test_running_mean_example_by_hand():
    """1.4's worked example: equal scores make causal attention a running mean; with the residual,
    'bank' ends at (3, 0) after 'the river' and at (1, 2) after 'the money', cosine 1/sqrt(5)."""
    rows = {"the": (1, 1), "river": (4, -1), "money": (-2, 5), "bank": (1, 0)}

    def layer(words):
        xs = [np.array(rows[w], dtype=float) for w in words]
        return [xs[t] + sum(xs[: t + 1]) / (t + 1) for t in range(len(xs))]   # plain loop, no softmax

    a, b = layer(["the", "river", "bank"]), layer(["the", "money", "bank"])
    assert a[2].tolist() == [3.0, 0.0] and b[2].tolist() == [1.0, 2.0] and a[0].tolist() == [2.0, 2.0]
    cos = float(a[2] @ b[2]) / math.hypot(*a[2]) / math.hypot(*b[2])
    assert math.isclose(cos, 1 / math.sqrt(5))
    ns = demo_namespace("part1/intuition/contextual")
    np.testing.assert_array_equal(ns["H1a"], np.array(a))
    np.testing.assert_array_equal(ns["H1b"], np.array(b))


@given(st.integers(2, 12), st.integers(1, 5), st.data())
@settings(max_examples=30, deadline=None)
def test_a_step_on_one_token_moves_others_only_through_shared_directions(V, d, data):
    """1.2: a linear readout score(j) = beta^T c_j, one gradient step on -score(a). With one-hot codes no other
    score moves; with rows E the change of score(j), measured by taking the step, is the closed form
    eta E_a . E_j (a scalar loop of dot products)."""
    a = data.draw(st.integers(0, V - 1))
    E = np.random.default_rng(V * 10 + d).normal(size=(V, d))
    eta = 0.1
    for codes in (np.eye(V), E):
        beta = np.random.default_rng(1).normal(size=codes.shape[1])
        after = beta + eta * codes[a]                       # -grad of -score(a) is +codes[a]
        change = codes @ after - codes @ beta
        expected = eta * np.array([float(np.dot(codes[a], codes[j])) for j in range(V)])
        np.testing.assert_allclose(change, expected, atol=1e-12)
        if codes is not E:
            assert np.all(np.delete(change, a) == 0.0)


def _causal_layer(H, WQ, WK, WV):
    """A causal attention layer with residual, written with explicit loops (independent of esm)."""
    T, d = H.shape
    out = H.copy()
    for t in range(T):
        s = np.array([(H[t] @ WQ) @ (H[j] @ WK) / math.sqrt(WK.shape[1]) for j in range(t + 1)])
        w = np.exp(s - s.max())
        w /= w.sum()
        out[t] = H[t] + sum(w[j] * (H[j] @ WV) for j in range(t + 1))
    return out


def test_contextual_layer_reads_only_the_past_and_separates_equal_ids():
    """1.4: h^(0) of an id is its row; after a causal layer it depends on earlier tokens only."""
    rng = np.random.default_rng(1)
    V, d = 6, 4
    E = rng.normal(size=(V, d))
    Ws = [rng.normal(0, 0.8, (d, d)) for _ in range(3)]
    a, b = [0, 1, 2, 4], [0, 3, 2, 5]                 # same id 2 at position 2
    Ha, Hb = _causal_layer(E[a], *Ws), _causal_layer(E[b], *Ws)
    np.testing.assert_array_equal(E[a][2], E[b][2])   # layer 0: same row
    assert not np.allclose(Ha[2], Hb[2])              # layer 1: context differs at position 1
    np.testing.assert_allclose(Ha[0], Hb[0])          # position 0 has the same past
    # the vectorised form with esm.attention and a causal mask agrees with the loop
    H = E[a]
    out, _ = esm.attention(H @ Ws[0], H @ Ws[1], H @ Ws[2], mask=esm.causal_mask(len(a)))
    np.testing.assert_allclose(H + out, Ha, atol=1e-12)


def test_pipeline_shapes_for_a_padded_batch():
    """1.5: ids in {0..|V|-1}^{B x T} -> X in R^{B x T x d}, X[b, t] = E[ids[b, t]]."""
    vocab = {"<pad>": 0, "<unk>": 1, "the": 2, "cat": 3}
    texts = [["the", "cat", "the"], ["dog"]]
    rows = [[vocab.get(w, 1) for w in t] for t in texts]
    T = max(map(len, rows))
    ids = np.array([r + [0] * (T - len(r)) for r in rows])
    E = np.random.default_rng(2).normal(size=(len(vocab), 5))
    X = E[ids]
    assert ids.tolist() == [[2, 3, 2], [1, 0, 0]]
    assert X.shape == (2, 3, 5)
    for b in range(2):
        for t in range(T):
            np.testing.assert_array_equal(X[b, t], E[ids[b, t]])


def test_legends_and_late_text_follow_the_colour_scheme():
    """Figures of 1.2 and 1.4 add a legend and cell labels after `figure()` returned: esm.svg must
    still draw their text in currentColor, without an opaque legend frame."""
    fig, ax = esm.figure()
    ax.plot([0, 1], [0, 1], label="a line")
    ax.legend()
    ax.text(0.5, 0.5, "late text")
    out = esm.svg(fig, alt="legend test")
    import re
    texts = re.findall(r"<text[^>]*>(?:a line|late text)</text>", out)
    assert len(texts) == 2 and all("fill: currentColor" in t for t in texts)
    assert "#ffffff" not in out.lower()
