"""1.5 on a real tokenizer: all-MiniLM-L6-v2's WordPiece (30,522 pieces, uncased), run with the
`tokenizers` library from the model's tokenizer.json, then the lookup into its table.

A word in the vocabulary is one piece; a rarer word is split, greedily, into the longest pieces
the vocabulary has, and every piece after the first is marked with ``##``.
"""
import numpy as np

from esm import check_equal, glue, minilm, shape_table, table, tokenize, wordpieces

WORDS = ["bank", "embeddings", "tokenization", "unbelievably", "GloVe", "MiniLM", "anisotropy"]
pieces = {w: wordpieces(w) for w in WORDS}
E = minilm().weights["embeddings.word_embeddings.weight"]
text = "Embeddings of rare words"
ids, mask = tokenize([text])
X = E[ids]

print(shape_table({"B": 1, "T": ids.shape[1], "d": E.shape[1], "V": len(E)}, [
    ("token table of MiniLM", "E", E, "V d", "one row per WordPiece"),
    ("ids of one text", r"\mathrm{ids}", ids, "B T", "`[CLS]` first, `[SEP]` last"),
    ("looked-up rows", "X", X, "B T d", "before positions are added (6.3)"),
]))
print(check_equal("gluing the pieces back (dropping ##) gives each word, lower-cased",
                  ["".join(p.removeprefix("##") for p in pieces[w]) for w in WORDS], [w.lower() for w in WORDS]))
print(check_equal("only pieces after the first carry ##",
                  all(not p[0].startswith("##") and all(q.startswith("##") for q in p[1:]) for p in pieces.values()),
                  True))


def greedy_wordpiece(word, vocab):
    """Longest match first, written from the vocabulary list alone: at each start take the longest
    piece the vocabulary has (with ## after the first), else the word is [UNK]."""
    out, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                out.append(piece)
                start = end
                break
        else:
            return ["[UNK]"]
    return out


vocab = set(minilm().tokenizer.get_vocab())
print(check_equal(f"the tokenizer's splits of {len(WORDS)} words vs a greedy longest-match WordPiece "
                  "written above from the vocabulary list (after lower-casing)",
                  [pieces[w] for w in WORDS], [greedy_wordpiece(w.lower(), vocab) for w in WORDS]))
print(check_equal("lookup: X[0, t] is row ids[0, t] of E for every t", X[0], np.stack([E[i] for i in ids[0]])))
tokens = minilm().tokenizer.encode(text).tokens
print(glue("wp_V", len(E), ","))
print(glue("wp_embeddings", " ".join(pieces["embeddings"])))
print(glue("wp_unbelievably", " ".join(pieces["unbelievably"])))
print(glue("wp_text_tokens", " ".join(tokens)))
print(table(("word", "WordPiece tokens", "ids"),
            [(w, " ".join(f"`{p}`" for p in pieces[w]),
              ", ".join(str(i) for i in minilm().tokenizer.encode(w, add_special_tokens=False).ids)) for w in WORDS]))
