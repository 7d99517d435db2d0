"""The training chapter's run: its settings, the baselines the run is measured against, sampling from the
trained model, and the plumbing around the page's loop (`esm.loop`, whose `train`, `evaluate`
and `eval_windows` are importable from here with the run's settings by default).

A module of the esm package that its ``__init__`` does not re-export (demos import it as
``esm.train``). Every function is deterministic: fixed seeds, no clock, one BLAS thread.
``trained`` runs `train` once for every block that asks with the same inputs; where the runs are
kept between processes is up to whoever runs the demos (`store`).
"""
from __future__ import annotations

import hashlib
import json

import numpy as np

from . import loop as _loop
from .backprop import forward, init_gpt2, param_arrays
from .math import softmax
from .weights import one_blas_thread

__all__ = ["unigram_loss", "bigram_loss", "top_p_keep", "sample_tokens", "sample_many", "TRAIN", "ABLATION", "POSITION_BATCHES", "SNAPSHOTS", "eval_windows",
           "evaluate", "train", "trained", "store", "nudged_batch"]

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
    """The decoding chapter's nucleus: the smallest set of likeliest tokens whose mass reaches ``xi`` (a mask)."""
    order = np.argsort(-probs, kind="stable")
    m = int(np.searchsorted(np.cumsum(probs[order]), xi)) + 1
    keep = np.zeros(len(probs), dtype=bool)
    keep[order[:m]] = True
    return keep


def sample_tokens(model, prompt, n: int, rng=None, top_p: float | None = None) -> np.ndarray:
    """Continue ``prompt`` by ``n`` tokens: greedy (``rng`` None) or top-p sampling (the decoding chapter's rules),
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


def sample_many(model, prompt, n: int, seeds, top_p: float | None = None) -> np.ndarray:
    """`sample_tokens` with top-p sampling for each of ``seeds`` (a generator
    ``np.random.default_rng(seed)`` each), the continuations run side by side as one batch:
    returns ``(len(seeds), n)`` token ids."""
    rngs = [np.random.default_rng(s) for s in seeds]
    ids = np.tile(np.asarray(prompt), (len(rngs), 1))
    T_max = len(model["P"])
    for _ in range(n):
        Z = forward(model, ids[:, -T_max:])[:, -1]
        nxt = []
        for z, rng in zip(Z, rngs):
            p = softmax(z)
            if top_p is not None:
                p = np.where(top_p_keep(p, top_p), p, 0.0)
                p /= p.sum()
            nxt.append(int(rng.choice(len(p), p=p)))
        ids = np.concatenate([ids, np.array(nxt)[:, None]], axis=1)
    return ids[:, len(prompt):]


# ---------------------------------------------------------------------------------------------
# The training run
# ---------------------------------------------------------------------------------------------

#: The training chapter's run: the model's size, the batches, the optimiser's settings.
TRAIN = {"seed": 35, "d": 64, "L": 2, "n_heads": 4, "T": 64, "batch": 8, "steps": 2500, "lr": 8e-3,
         "warmup": 20, "min_lr": 8e-4, "weight_decay": 0.1, "clip": 1.0, "eval_every": 50, "eval_batches": 4}

#: The training chapter's ablation: the same run without attention (every position sees its own token only).
ABLATION = dict(TRAIN, attention=False)

#: P16's modern block trained beside GPT-2's: the same run (data, seeds, steps, optimiser) with P13's block
#: (RMSNorm, RoPE, SwiGLU, no biases, no position table; the head tied, as GPT-2's). Its SwiGLU width makes
#: a block's parameters, 4d^2 + 3 d d_ff + 2d, the nearest to GPT-2's 12 d^2 + 13 d (P16's count).
MODERN = dict(TRAIN, block="modern", d_ff=round((8 * TRAIN["d"] + 11) / 3))

#: How many fixed validation windows the loss by position is taken on (`eval_windows` with
#: ``eval_batches`` = POSITION_BATCHES): more than the run's own, as each position gets one
#: target per window.
POSITION_BATCHES = 32

#: The steps at which the training chapter's blocks keep a copy of the model (the run's last step is the model
#: itself): one list for all of them, so that they share one run.
SNAPSHOTS = (0, TRAIN["eval_every"], 2 * TRAIN["eval_every"], TRAIN["steps"] // 2)


def eval_windows(tokens, cfg=TRAIN):
    """The fixed, evenly spaced windows `evaluate` scores: inputs and targets, each (n, T)
    (`esm.loop.eval_windows`, the page's, with the run's settings by default)."""
    return _loop.eval_windows(tokens, cfg)


def evaluate(model, tokens, cfg=TRAIN, *, by_position: bool = False):
    """Mean loss on fixed, evenly spaced windows of ``tokens`` (the same windows at every step);
    with ``by_position``, the mean loss at each position of the window instead (an array of T).
    The page's `esm.loop.evaluate`, with the run's settings by default."""
    return _loop.evaluate(model, tokens, cfg, by_position=by_position)


def train(train_tokens, val_tokens, V: int, cfg=TRAIN, *, snapshots=(), trace: dict | None = None):
    """The page's loop (`esm.loop.train`) on one BLAS thread, as the published run had: returns
    the model, the training loss at every step, ``(step, train loss, val loss)`` every
    ``eval_every`` steps and copies of the model at the steps in ``snapshots``; with ``trace`` (a
    dict), each step's learning rate and gradient norm (before clipping) in its lists ``"lr"`` and
    ``"grad_norm"``."""
    one_blas_thread()
    return _loop.train(train_tokens, val_tokens, V, cfg, snapshots=snapshots, trace=trace)


def nudged_batch(tokens, V: int, seed: int = 0, starts=(0, 500), T: int = 8, scale: float = 0.02):
    """P10's gradient checks' model and batch: the run's initialisation (vocabulary ``V``) with every
    parameter nudged by normal noise of std ``scale`` (drawn with ``seed``), so that gains and biases
    sit off 1 and 0, where a backward pass that forgot one would still be right; and windows of ``T``
    of ``tokens`` at ``starts`` with their next tokens. Returns (model, inputs, targets)."""
    model = init_gpt2(TRAIN["seed"], V, TRAIN["T"], TRAIN["d"], TRAIN["L"], TRAIN["n_heads"])
    rng = np.random.default_rng(seed)
    for a in param_arrays(model).values():
        a += rng.normal(size=a.shape) * scale
    return (model, *_loop.windows(tokens, starts, T))


#: Where finished runs are kept between processes: None keeps each run in this process (a reader's
#: notebook trains once, however many of its cells ask). Whoever runs the demos may put here an
#: object with a ``get(name, make)`` method that returns ``make()``'s arrays, made once under
#: ``name`` (a hash of the run's inputs): the book's build hands over one that keeps runs in its
#: execution cache (mkdocs_esm.runs).
store = None
_RUNS: dict[str, dict] = {}


def run_name(train_tokens, val_tokens, V: int, cfg=TRAIN, snapshots=()) -> str:
    """The name `trained` keeps a run under: a hash of its inputs (the tokens, V, the settings, the
    snapshot steps)."""
    key = hashlib.sha256()
    for part in (np.asarray(train_tokens, np.int64).tobytes(), np.asarray(val_tokens, np.int64).tobytes(),
                 json.dumps([V, cfg, list(snapshots)], sort_keys=True).encode()):
        key.update(hashlib.sha256(part).digest())
    return key.hexdigest()[:32]


def trained(train_tokens, val_tokens, V: int, cfg=TRAIN, snapshots=(), traces: bool = False):
    """`train`, run once for each set of inputs (the tokens, V, the settings, the snapshot steps),
    so that the blocks of the training chapter that need the trained model share one run; kept in this process, or
    by `store`. Returns what `train` returns; with ``traces``, also a dict of each step's learning
    rate and gradient norm (`train`'s ``trace``)."""
    name = run_name(train_tokens, val_tokens, V, cfg, snapshots)

    def run() -> dict:
        trace: dict = {}
        model, curve, evals, snaps = train(train_tokens, val_tokens, V, cfg, snapshots=snapshots, trace=trace)
        arrays = {f"final/{k}": v for k, v in param_arrays(model).items()}
        arrays |= {f"snap{s}/{k}": v for s, d in snaps.items() for k, v in d.items()}
        return {"curve": curve, "evals": evals, "lr": np.array(trace.get("lr", [])),
                "grad_norm": np.array(trace.get("grad_norm", [])), **arrays}

    if store is not None:
        data = store.get(name, run)
    else:
        if name not in _RUNS:
            _RUNS[name] = run()
        data = _RUNS[name]

    def build(prefix):
        m = _loop.init_model(V, cfg)
        for name, arr in param_arrays(m).items():
            arr[...] = data[f"{prefix}/{name}"]
        return m
    out = build("final"), data["curve"], data["evals"], {s: build(f"snap{s}") for s in snapshots}
    return (*out, {"lr": data["lr"], "grad_norm": data["grad_norm"]}) if traces else out
