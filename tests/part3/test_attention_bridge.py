"""Section 7 against independent computations: the by-hand example and its two heads, the
variance of scores, the hard limit of attention, entropy against temperature, MiniLM's attention
weights, PCA against the covariance eigenproblem, pooling and recall@k by brute force."""

from __future__ import annotations

import itertools
import runpy

import numpy as np
from hypothesis import given, settings, strategies as st

import esm
from conftest import SNIPPETS

DEMOS = SNIPPETS / "part3" / "attention-bridge"


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 12), st.integers(1, 8))
def test_low_temperature_is_a_hard_lookup(seed, T, d_k):
    rng = np.random.default_rng(seed)
    q, K, V = rng.normal(size=(1, d_k)), rng.normal(size=(T, d_k)), rng.normal(size=(T, 3))
    s = (K @ q[0]) / np.sqrt(d_k)
    best, second = np.sort(s)[-1], np.sort(s)[-2]
    if best - second < 1e-3:
        return                                  # no unique maximum: the limit is not a single row
    tau = (best - second) / 40.0                # gap / tau = 40: weights off the winner < T e^-40
    out, w = esm.attention(q, K, V, temperature=tau)
    assert np.allclose(out[0], V[int(np.argmax(s))], atol=1e-12 * T + T * np.exp(-40) * np.abs(V).max())


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_entropy_rises_with_temperature_towards_log_T(seed):
    rng = np.random.default_rng(seed)
    T = 6
    scores = rng.normal(size=T)
    ents = []
    for tau in np.geomspace(0.05, 1e4, 30):
        p = np.exp(scores / tau - np.max(scores / tau))
        p /= p.sum()
        ents.append(-sum(x * np.log(x) for x in p if x > 0))
    assert all(b >= a - 1e-12 for a, b in zip(ents, ents[1:]))
    assert abs(ents[-1] - np.log(T)) < 1e-3


def test_qkv_score_matrix_is_low_rank_bilinear_form():
    ns = runpy.run_path(str(DEMOS / "qkv.py"))
    M = ns["W_Q"] @ ns["W_K"].T
    assert np.linalg.matrix_rank(M) == ns["d_k"] < ns["d"]
    Hs, S = ns["Hs"], ns["S"]
    for b, t, s in itertools.product(range(Hs.shape[0]), range(Hs.shape[1]), range(Hs.shape[1])):
        assert abs(S[b, t, s] - sum(Hs[b, t, i] * M[i, j] * Hs[b, s, j]
                                    for i in range(M.shape[0]) for j in range(M.shape[1]))) < 1e-12


def test_contextualization_is_causal_and_identical_at_layer_zero():
    ns = runpy.run_path(str(DEMOS / "contextualize.py"))
    a, b = ns["a"], ns["b"]
    assert np.array_equal(a[:, 0], b[:, 0])              # position 0 never sees the difference
    assert np.array_equal(a[0, 2], b[0, 2])              # same id, same position, layer 0
    assert ns["cos_last"][-1] < 0.8


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(5, 40), st.integers(2, 10))
def test_explained_variance_is_the_covariance_spectrum(seed, n, d):
    X = np.random.default_rng(seed).normal(size=(n, d)) * np.arange(1, d + 1)
    Xc = X - X.mean(0)
    sig = np.linalg.svd(Xc, compute_uv=False)
    cov = sum(np.outer(x, x) for x in Xc) / (n - 1)       # covariance by a loop over rows
    ev = np.sort(np.linalg.eigvalsh(cov))[::-1][:len(sig)]
    assert np.allclose(sig ** 2 / (n - 1), ev, atol=1e-9 * ev.max())


def test_pca_demo_hides_the_clusters_on_the_top_two_axes():
    ns = runpy.run_path(str(DEMOS / "pca.py"))
    assert ns["ratio"][:2].sum() > 0.5
    assert max(ns["sep"][:2]) < 0.1 < 5 < ns["sep"][2]


def test_pooling_and_recall_by_brute_force():
    ns = runpy.run_path(str(DEMOS / "retrieval.py"))
    E, ids, PAD, S = ns["E"], ns["ids"], ns["PAD"], ns["S"]
    for n in range(len(ids)):
        real = [E[t] for t in ids[n] if t != PAD]
        assert np.allclose(S[n], np.mean(real, axis=0), atol=1e-12)
    scores, topic = ns["scores"], ns["doc_topic"]
    for k in (1, 3, 5):
        for q in range(scores.shape[0]):
            ranked = sorted(range(scores.shape[1]), key=lambda j: (-scores[q, j], j))[:k]
            rel = {j for j in range(len(topic)) if topic[j] == q}
            assert ns["recall_at"](k)[q] == len(rel & set(ranked)) / len(rel)
    assert ns["recall_at"](1).max() <= 1 / 3          # one slot, three relevant documents


def test_by_hand_example_is_whole_numbers_and_masked_averaging():
    ns = runpy.run_path(str(DEMOS / "by_hand.py"))
    S, A, V = ns["S"], ns["A"], ns["V"]
    assert S.dtype.kind == "i" and np.abs(S).max() <= 2          # scores a pencil can work with
    assert np.allclose(np.triu(A, 1), 0) and np.allclose(A.sum(1), 1)
    e2 = np.e ** 2
    assert np.allclose(A[2], [e2 / (e2 + 2), 1 / (e2 + 2), 1 / (e2 + 2)])
    assert np.allclose(ns["A_eq"] @ V, [V[:t + 1].mean(0) for t in range(3)])   # the running mean



def test_by_hand_grid_draws_the_masked_weights():
    """The grid parsed as XML here: a shaded cell for every s <= t with a fill opacity that maps
    back to the weight, a grey one for every s > t, and the weight printed in each shaded cell."""
    import xml.etree.ElementTree as ET
    ns = runpy.run_path(str(DEMOS / "by_hand.py"))
    A, c = ns["A"], ns["c"]
    root = ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{ns["grid"]}</svg>')
    tag = lambda el: el.tag.split("}")[1]
    shaded, grey = {}, set()
    for el in root:
        if tag(el) == "rect":
            cell = ((int(el.get("y")) - 30) // c, (int(el.get("x")) - 44) // c)
            if el.get("fill"):
                shaded[cell] = (float(el.get("fill-opacity")) - 0.1) / 0.7
            else:
                grey.add(cell)
    assert set(shaded) == {(t, s) for t in range(3) for s in range(t + 1)}
    assert grey == {(t, s) for t in range(3) for s in range(t + 1, 3)}
    for (t, s), a in shaded.items():
        assert abs(a - A[t, s]) < 1e-4
    printed = sorted(el.text for el in root if tag(el) == "text" and "." in el.text)
    assert printed == sorted(f"{A[t, s]:.2f}" for t, s in shaded)


def test_qkv_figure_blocks_have_the_shapes_of_the_arrays():
    import xml.etree.ElementTree as ET
    ns = runpy.run_path(str(DEMOS / "qkv.py"))
    root = ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{ns["pic"]}</svg>')
    u = ns["u"]
    sizes = [(int(el.get("height")) // u, int(el.get("width")) // u) for el in root if el.tag.endswith("rect")]
    arrays = [ns["Hs"][0], ns["W_Q"], ns["W_K"], ns["W_V"], ns["Q"][0], ns["K"][0], ns["V"][0], ns["S"][0]]
    assert sizes == [a.shape for a in arrays]
    # one grid line between every two neighbouring rows and columns of every block
    assert ns["lines"].count("M") == sum(r - 1 + k - 1 for r, k in sizes)


def test_residual_stream_figure_is_the_block():
    ns = runpy.run_path(str(DEMOS / "contextualize.py"))
    assert ns["drawn"] == ["Attn", "MLP"]                 # the stream meets attention first
    assert np.allclose(ns["x"], ns["a"][1], atol=1e-12)   # run as drawn: layer 1 of text A

def test_two_heads_by_the_library_attention_per_column():
    ns = runpy.run_path(str(DEMOS / "two_heads.py"))
    # Each head by esm.attention on its own column (d_k = 1, so the library's scale is 1), then W_O.
    Q, K, V, W_O = (ns[k].astype(float) for k in ("Q", "K", "V", "W_O"))
    heads = []
    for h in range(2):
        a, _ = esm.attention(Q[:, h:h + 1], K[:, h:h + 1], V[:, h:h + 1], mask=esm.causal_mask(3))
        heads.append(a)
    assert np.allclose(np.hstack(heads) @ W_O, ns["out"], atol=1e-12)


def test_score_variance_grows_with_width_by_exact_enumeration():
    for d_k in (1, 2, 3):
        vals = [np.dot(q, k) for q in itertools.product((-1, 1), repeat=d_k)
                for k in itertools.product((-1, 1), repeat=d_k)]
        assert np.var(vals) == d_k


def test_minilm_attention_rows_and_layer_output():
    tokens, A = esm.minilm_attention("A small test.", np.float64)
    L, H, T, _ = A.shape
    assert (L, H) == (6, 12) and T == len(tokens) and tokens[0] == "[CLS]" and tokens[-1] == "[SEP]"
    assert np.all(A >= 0) and np.allclose(A.sum(-1), 1, atol=1e-12)
    # Layer 1, head 0, by hand from the stored tensors: scores, exp, normalise.
    ids, mask = esm.tokenize(["A small test."])
    h = esm.minilm_states(ids, mask, np.float64)[0, 0]
    w = esm.minilm().weights
    d_k = h.shape[1] // H
    q = h @ np.asarray(w["encoder.layer.0.attention.self.query.weight"], float).T[:, :d_k] \
        + np.asarray(w["encoder.layer.0.attention.self.query.bias"], float)[:d_k]
    k = h @ np.asarray(w["encoder.layer.0.attention.self.key.weight"], float).T[:, :d_k] \
        + np.asarray(w["encoder.layer.0.attention.self.key.bias"], float)[:d_k]
    e = np.exp(q @ k.T / np.sqrt(d_k))
    assert np.allclose(A[0, 0], e / e.sum(1, keepdims=True), atol=1e-12)
