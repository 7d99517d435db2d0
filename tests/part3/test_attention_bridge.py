"""Section 7 against independent computations: the hard limit of attention, entropy against
temperature, PCA against the covariance eigenproblem, pooling and recall@k by brute force."""

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
    assert ns["cos_bank"][-1] < 0.8


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
