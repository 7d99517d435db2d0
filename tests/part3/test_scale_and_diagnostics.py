"""Section 8: parameter counts against the published figures, the int8 bound kappa/2, the
outlier and padding claims, and the migration invariants on random vocabularies."""

from __future__ import annotations

import math
import runpy

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from conftest import SNIPPETS

DEMOS = SNIPPETS / "part3" / "scale-and-diagnostics"

# Published embedding tensors of the released checkpoints (shapes from their config.json /
# state dicts) and the published total parameter counts.
PUBLISHED_SHAPES = {
    "GPT-2 small": [(50257, 768), (1024, 768)],                       # wte (tied head), wpe
    "BERT-base": [(30522, 768), (512, 768), (2, 768)],                # word, position, token type
    "Llama 2 7B": [(32000, 4096), (32000, 4096)],                     # embed_tokens, lm_head
}
PUBLISHED_TOTALS = {"GPT-2 small": 124_439_808, "BERT-base": 109_482_240, "Llama 2 7B": 6_738_415_616}


@pytest.fixture(scope="module")
def counts():
    return runpy.run_path(str(DEMOS / "param_count.py"))


@pytest.mark.parametrize("model", list(PUBLISHED_SHAPES))
def test_embedding_count_matches_published_shapes(counts, model, demo_output):
    expected = sum(math.prod(s) for s in PUBLISHED_SHAPES[model])
    assert counts["closed_form"](counts["CONFIGS"][model]) == expected
    assert f"{expected:,}" in demo_output(DEMOS / "param_count.py")


@pytest.mark.parametrize("model", list(PUBLISHED_TOTALS))
def test_whole_model_count_matches_published_total(counts, model, demo_output):
    assert counts["whole_model"](model, counts["CONFIGS"][model]) == PUBLISHED_TOTALS[model]
    assert f"{PUBLISHED_TOTALS[model]:,}" in demo_output(DEMOS / "param_count.py")


def test_published_embedding_figures_stated_on_the_page(demo_output):
    page = (SNIPPETS.parent / "docs" / "part3" / "scale-and-diagnostics.md").read_text().replace("{,}", ",")
    for figure in ("124,439,808", "109,482,240", "6,738,415,616"):       # quoted from the releases
        assert figure in page, figure
    computed = demo_output(DEMOS / "param_count.py") + demo_output(DEMOS / "quantize.py")
    for name, figure in (("pc_gpt2_emb", "39,383,808"), ("pc_bert_emb", "23,835,648"),
                         ("pc_llama_emb", "262,144,000"), ("q_llama_f32", "524,288,000"),
                         ("q_llama_int8", "131,200,000")):
        assert f"value {name} = {figure}" in computed, name          # published to the page by glue
        assert "{{" + name + "}}" in page, name
    assert 50257 * 768 + 1024 * 768 == 39_383_808
    assert 30522 * 768 + 512 * 768 + 2 * 768 == 23_835_648
    assert 2 * 32000 * 4096 == 262_144_000
    assert 32000 * 4096 * 4 == 524_288_000 and 32000 * 4096 + 4 * 32000 == 131_200_000


@pytest.fixture(scope="module")
def quant():
    return runpy.run_path(str(DEMOS / "quantize.py"))["quantize_rows"]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 40), st.integers(1, 64), st.floats(1e-3, 1e3))
def test_int8_error_at_most_half_a_step(quant, seed, rows, d, scale):
    rng = np.random.default_rng(seed)
    X = rng.standard_t(3, (rows, d)) * scale
    q, s = quant(X)
    assert q.dtype == np.int8
    # The bound kappa/2 in closed form, entry by entry, with kappa recomputed from the row's maximum.
    for i in range(rows):
        step = max(abs(float(x)) for x in X[i]) / 127.0
        assert abs(s[i, 0] - step) <= 1e-12 * step
        assert all(abs(float(X[i, j]) - step * int(q[i, j])) <= step / 2 * (1 + 1e-9) for j in range(d))
        assert max(abs(int(v)) for v in q[i]) == 127


def test_outliers_and_padding_claims():
    ns = runpy.run_path(str(DEMOS / "outliers.py"))
    E, norms = ns["E"], ns["norms"]
    vals = norms[1:]
    z = (vals - vals.mean()) / vals.std()
    flagged = sorted(int(i) + 1 for i in np.where(np.abs(z) > 3)[0])
    assert flagged == [101, 202, 303, 450]
    assert not np.any(ns["E_after"][ns["PAD"]]) and not np.any(ns["grad_E"][ns["PAD"]])
    # A tied head reaches the padding row (p_pad h per scored position) unless its logit is masked.
    assert np.abs(ns["g_tied"]).max() > 1e-6 and np.abs(ns["g_tied_masked"]).max() == 0.0
    # Row gradients by finite differences for every coordinate of every row the batch uses.
    loss, eps = ns["loss"], 1e-6
    for v in np.unique(ns["ids"]):
        for j in range(0, E.shape[1], 7):
            Ep, Em = E.copy(), E.copy()
            Ep[v, j] += eps
            Em[v, j] -= eps
            assert abs((loss(Ep) - loss(Em)) / (2 * eps) - ns["grad_E"][v, j]) < 1e-8


@pytest.fixture(scope="module")
def migration():
    return runpy.run_path(str(DEMOS / "migration.py"))


POOL = [f"w{i}" for i in range(30)]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(POOL), min_size=1, max_size=20, unique=True),
       st.lists(st.sampled_from(POOL), min_size=1, max_size=20, unique=True),
       st.integers(0, 1000))
def test_migration_invariants(migration, old_vocab, new_vocab, seed):
    E = np.random.default_rng(seed).normal(size=(len(old_vocab), 5))
    E_new, pi = migration["migrate"](E, old_vocab, new_vocab)
    assert E_new.shape == (len(new_vocab), 5)                             # one row per new id
    for j, tok in enumerate(new_vocab):
        if tok in old_vocab:                                              # shared: row carried over
            assert pi[j] == old_vocab.index(tok)
            assert np.array_equal(E_new[j], E[old_vocab.index(tok)])
        else:                                                             # new: the mean old row
            assert pi[j] == -1
            assert np.allclose(E_new[j], E.mean(axis=0), atol=1e-12)
    shared = [t for t in new_vocab if t in old_vocab]
    if shared:                                                            # a text of shared strings
        text = " ".join(shared)
        enc = migration["encode"]
        assert np.array_equal(E[enc(text, old_vocab)], E_new[enc(text, new_vocab)])
