"""9.9 A token position of an LM is not a document embedding: the first position is the same
for every document (it is <bos>), so it ranks nothing."""
import numpy as np

from esm import check_close, check_equal, cosine_matrix, glue, table

rng = np.random.default_rng(99)
V, d, BOS = 30, 12, 0
E = rng.normal(0.0, 1.0, (V, d))
docs = [np.r_[BOS, rng.integers(1, V, 6)] for _ in range(5)]
query = np.r_[BOS, docs[3][1:4]]                  # the query repeats three words of document 3

def states(ids):                                  # a causal encoder: position t sees 0..t
    X = E[ids]
    return np.cumsum(X, axis=0) / np.arange(1, len(ids) + 1)[:, None]

first = np.array([states(doc)[0] for doc in docs])
pooled = np.array([states(doc)[1:].mean(0) for doc in docs])
s_first = cosine_matrix(states(query)[0][None], first)[0]
s_pooled = cosine_matrix(states(query)[1:].mean(0)[None], pooled)[0]
print(table(("document", *[str(i) for i in range(len(docs))]),
            [("score, first position", *[f"{x:.3f}" for x in s_first]),
             ("score, mean of the other positions", *[f"{x:.3f}" for x in s_pooled])]))
print(check_close("wrong: the first-position 'embedding' scores every document 1.0", s_first,
                  np.ones(len(docs)), atol=1e-12))
print(check_equal("right: mean-pooled states rank document 3 first", int(np.argmax(s_pooled)), 3))
print(glue("m9_first", float(s_first.min()), ".1f"), glue("m9_best", float(s_pooled[3]), ".3f"), sep="")
