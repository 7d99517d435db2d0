"""The numpy MiniLM encoder of snippets/esm/ against an independent implementation:
sentence-transformers / transformers on PyTorch (float32). Their outputs are stored in
tests/data/minilm_reference.json (how they were made: tools/minilm_reference.py); when torch and
sentence-transformers are importable the route is also run live."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import esm
import minilm_reference

REF = minilm_reference.stored()


def test_reference_says_where_it_comes_from():
    assert "sentence-transformers" in REF["source"] and "torch" in REF["source"]
    assert REF["sentences"] == minilm_reference.SENTENCES


def test_sentence_vectors_match_the_reference():
    got = esm.minilm_embed(REF["sentences"])
    np.testing.assert_allclose(got, np.array(REF["vectors"]), atol=1e-5, rtol=0)


def test_sentence_vectors_in_float64_match_the_reference():
    ids, mask, H = esm.minilm_run(tuple(REF["sentences"]), np.float64)
    got = esm.normalize_rows(esm.mean_pool(H[-1], mask))
    np.testing.assert_allclose(got, np.array(REF["vectors"]), atol=1e-5, rtol=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("k", range(len(minilm_reference.STATES)))
def test_states_of_every_layer_match_the_reference(k, dtype):
    ref = REF["states"][k]
    ids, _, H = esm.minilm_run((REF["sentences"][ref["sentence"]],), dtype)
    assert H.dtype == dtype
    assert ids[0].tolist() == ref["ids"]                       # tokenizers vs transformers' tokenizer
    np.testing.assert_allclose(H[:, 0, ref["position"]], np.array(ref["states"]), atol=1e-5, rtol=0)


@pytest.mark.skipif(not (importlib.util.find_spec("torch") and importlib.util.find_spec("sentence_transformers")),
                    reason="the independent route (torch, sentence-transformers) is not installed")
def test_live_independent_route_matches_the_stored_reference():
    live = minilm_reference.compute()
    np.testing.assert_allclose(np.array(live["vectors"]), np.array(REF["vectors"]), atol=1e-6, rtol=0)
    for a, b in zip(live["states"], REF["states"]):
        np.testing.assert_allclose(np.array(a["states"]), np.array(b["states"]), atol=1e-6, rtol=0)
