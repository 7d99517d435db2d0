"""Claims of docs/part1/intuition.md (1.2-1.5), checked against independent computations."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import esm


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


def test_published_gpt2_small_table():
    """1.3: GPT-2 small (Radford et al. 2019): |V| = 50,257, d = 768; 124,439,808 parameters in all."""
    params = 50_257 * 768
    assert params == 38_597_376
    assert params * 4 == 154_389_504                 # fp32 bytes
    assert round(100 * params / 124_439_808, 1) == 31.0
    assert 32_000 * 4_096 == 131_072_000             # Llama 2 7B token table
    assert 30_522 * 768 == 23_440_896                # BERT-base


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
