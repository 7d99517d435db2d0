"""1.5 Pipeline position after tokenization: text -> ids (B x T) -> vectors (B x T x d).

The tokenizer is a toy written for this demo: whitespace split over a seven-word vocabulary,
with <unk> for anything else and <pad> to make the rows of the batch equally long.
"""
import numpy as np

from esm import check_close, check_equal, check_true, glue, shape_table, table

vocab = ["<pad>", "<unk>", "the", "cat", "sat", "on", "mat"]
token_to_id = {w: i for i, w in enumerate(vocab)}
PAD, UNK = token_to_id["<pad>"], token_to_id["<unk>"]


def tokenize(text):
    """Whitespace split, lower case, unknown words -> <unk>."""
    return [token_to_id.get(w, UNK) for w in text.lower().split()]


def batch(texts):
    """Right-pad every id list with <pad> to the longest one: an integer array B x T."""
    rows = [tokenize(t) for t in texts]
    T = max(len(r) for r in rows)
    return np.array([r + [PAD] * (T - len(r)) for r in rows], dtype=np.int64)


texts = ["The cat sat on the mat", "the dog sat"]
ids = batch(texts)
B, T = ids.shape
V, d = len(vocab), 3
rng = np.random.default_rng(15)
E = rng.normal(0.0, 1.0, (V, d))
X = E[ids]                                   # the lookup of 1.1, applied to the whole batch

print(shape_table({"B": B, "T": T, "V": V, "d": d}, [
    ("token ids", r"\mathrm{ids}", ids, "B T", r"integers in $\{0,\dots,\lvert\mathcal V\rvert-1\}$"),
    ("embedding table", "E", E, "V d", "one row per vocabulary entry, `<pad>` and `<unk>` included"),
    ("input vectors", "X", X, "B T d", r"$X_{n,t,:}=E_{\mathrm{ids}_{n,t},:}$, first residual state"),
]))
print(table(["text", "ids"], [(t, str(r.tolist())) for t, r in zip(texts, ids)]))

print(check_equal("ids are integers", ids.dtype.kind, "i"))
print(check_true("every id lies in {0, ..., |V|-1}", (ids.min() >= 0) & (ids.max() <= V - 1),
                 f"min {ids.min()}, max {ids.max()}, |V|-1 = {V - 1}", eq="pipeline-shapes"))
print(check_equal("X has shape (B, T, d)", X.shape, (B, T, d), eq="pipeline-shapes"))
loop = np.array([[E[ids[n, t]] for t in range(T)] for n in range(B)])
print(check_close("X[n, t] is row ids[n, t] of E (loop over n and t)", X, loop, eq="pipeline-shapes"))
# The ids written by hand from the vocabulary list above, word by word.
by_hand = np.array([[2, 3, 4, 5, 2, 6], [2, 1, 4, 0, 0, 0]])
print(check_equal("the batch of ids equals the one written by hand from the vocabulary", ids, by_hand))
unk_at = [t for t, w in enumerate(texts[1].split()) if w not in token_to_id]
print(check_equal("'dog' is not in the vocabulary and becomes <unk>", [int(ids[1, t]) for t in unk_at], [UNK]))
n_short = len(texts[1].split())
print(check_equal("the short text is padded with <pad> (id 0) to length T", ids[1, n_short:],
                  np.array([PAD] * (T - n_short))))
the_at = [t for t, w in enumerate(texts[0].lower().split()) if w == "the"]
print(check_close("the two occurrences of 'the' in the first text get the same vector: no position yet",
                  X[0, the_at[0]], X[0, the_at[1]], atol=0.0))

print(glue("pipe_text_b", texts[1]))
print(glue("pipe_ids_b", tokenize(texts[1])))
print(glue("pipe_ids_b_padded", ids[1]))
print(glue("pipe_text_a", texts[0]))
