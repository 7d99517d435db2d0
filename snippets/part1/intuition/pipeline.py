"""1.5 Pipeline position after tokenization: text -> ids (B x T) -> vectors (B x T x d).

The tokenizer is a toy written for this demo: whitespace split over a seven-word vocabulary,
with <unk> for anything else and <pad> to make the rows of the batch equally long.
"""
import numpy as np

from esm import check_close, check_equal, check_true, shape_table, table

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
    ("input vectors", "X", X, "B T d", r"$X_{b,t,:}=E_{\mathrm{ids}_{b,t},:}$, first residual state"),
]))
print(table(["text", "ids"], [(t, str(r.tolist())) for t, r in zip(texts, ids)]))

print(check_equal("ids are integers", ids.dtype.kind, "i"))
print(check_true("every id lies in {0, ..., |V|-1}", (ids.min() >= 0) & (ids.max() <= V - 1),
                 f"min {ids.min()}, max {ids.max()}, |V|-1 = {V - 1}", eq="pipeline-shapes"))
print(check_equal("X has shape (B, T, d)", X.shape, (B, T, d), eq="pipeline-shapes"))
loop = np.array([[E[ids[b, t]] for t in range(T)] for b in range(B)])
print(check_close("X[b, t] is row ids[b, t] of E (loop over b and t)", X, loop, eq="pipeline-shapes"))
print(check_equal("'dog' is not in the vocabulary and becomes <unk>", int(ids[1, 1]), UNK))
print(check_equal("the short text is padded with <pad> (id 0) to length T", ids[1, 3:], np.array([PAD] * (T - 3))))
print(check_close("'the' at (0, 0) and (0, 4) gets the same vector: no position yet",
                  X[0, 0], X[0, 4], atol=0.0))
