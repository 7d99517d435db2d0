"""7.5 Embedding geometry in retrieval: mean pooling, cosine scores, recall@k. No encoder: a token's state is its row
of a toy table whose rows cluster by topic (a stand-in for a trained encoder's states, see 9.9)."""
import numpy as np

from esm import check_close, check_equal, check_less, cosine, glue, shape_table, table, top_k

rng = np.random.default_rng(75)
n_topics, words_per_topic, d = 4, 10, 24
centres = rng.normal(0.0, 1.0, (n_topics, d))
topic_of = np.repeat(np.arange(n_topics), words_per_topic)          # word -> topic
n_words = len(topic_of)
PAD = n_words                                                        # the last row is padding
E = np.vstack([centres[topic_of] + 0.9 * rng.normal(0.0, 1.0, (n_words, d)), np.zeros((1, d))])

# Twelve documents (three per topic) of 5 to 8 words, padded to T_max = 8.
T_max, docs_per_topic = 8, 3
doc_topic = np.repeat(np.arange(n_topics), docs_per_topic)
N = len(doc_topic)
ids = np.full((N, T_max), PAD)
for n, c in enumerate(doc_topic):
    length = rng.integers(5, T_max + 1)
    pool = np.where(topic_of == c)[0]
    words = rng.choice(pool, length)
    words[rng.random(length) < 0.3] = rng.integers(0, n_words)       # some off-topic words
    ids[n, :length] = words
mask = (ids != PAD).astype(float)                                    # 1 for real tokens

def pool(ids_, mask_):
    Hs = E[ids_]                                                     # (.., T, d) token states
    return (mask_[..., None] * Hs).sum(-2) / mask_.sum(-1, keepdims=True)

S = pool(ids, mask)                                                  # (N, d) document vectors
queries = np.array([rng.choice(np.where(topic_of == c)[0], 3) for c in range(n_topics)])
Qv = pool(queries, np.ones(queries.shape))                           # (n_topics, d)
Sn = S / np.linalg.norm(S, axis=1, keepdims=True)
Qn = Qv / np.linalg.norm(Qv, axis=1, keepdims=True)
scores = Qn @ Sn.T                                                   # cosine of every pair

print(shape_table({"N": N, "T_max": T_max, "d": d, "n_q": n_topics, "V": n_words + 1}, [
    ("toy token table", "E", E, "V d", "stands in for an encoder: a token's state is its row; last row is the zero padding row"),
    ("document ids", "", ids, "N T_max", "padded with the pad id"),
    ("mask", r"\chi", mask, "N T_max", "1 for a real token, 0 for padding"),
    ("document vectors", r"\bar{\mathbf h}", S, "N d", "masked mean of the tokens' rows, one row per document"),
    ("query vectors", "", Qv, "n_q d", "mean of the query's rows"),
    ("scores", "", scores, "n_q N", r"$\cos(f(q), g(D))$"),
]))

# Independent: pool document 0 by a loop over its real tokens; score one pair with esm.cosine.
real = [t for t in ids[0] if t != PAD]
print(check_close("the pooled vector is the mean of the real tokens' states (loop, padding skipped)",
                  S[0], sum(E[t] for t in real) / len(real), atol=1e-12, eq="mean-pool"))
print(check_close("score(query 1, document 5) is the cosine of the pooled vectors", scores[1, 5],
                  cosine(Qv[1], S[5]), atol=1e-12, eq="cos-score"))
# Averaging the padding positions in as well. With a zero padding row (this table) that only
# shrinks each vector by its share of real tokens sum_t chi_t / T_max; with a non-zero padding state, as
# real encoders produce, it pulls every document towards that state and changes directions.
naive = E[ids].mean(axis=1)
n_real = mask.sum(axis=1)
print(check_close("zero padding rows: the unmasked mean is the masked mean times sum_t chi_t / T_max",
                  naive, S * (n_real / T_max)[:, None], atol=1e-12))
pad_state = rng.normal(0.0, 1.0, d)                                  # a non-zero padding state
E_pad = E.copy(); E_pad[PAD] = pad_state
naive_nz = E_pad[ids].mean(axis=1)
shrink = (n_real[:, None] * S + (T_max - n_real)[:, None] * pad_state) / T_max   # the closed form
print(check_close("non-zero padding state h_pad: the unmasked mean is (n h_bar + (T_max - n) h_pad) / T_max, n = sum_t chi_t",
                  naive_nz, shrink, atol=1e-12))
padded = np.flatnonzero(n_real < T_max)                              # documents with padding
cos_shift = np.array([cosine(naive_nz[i], S[i]) for i in padded])
print(check_less("with a non-zero padding state every padded document's direction changes (cosine < 1)",
                 cos_shift.max(), 1 - 1e-6, names=("largest cosine", "1 - 1e-6")))

def recall_at(k, sc=None):
    """Vectorised: share of each query's relevant documents found in its top-k."""
    top = np.argsort(-(scores if sc is None else sc), axis=1, kind="stable")[:, :k]
    hits = (doc_topic[top] == np.arange(n_topics)[:, None]).sum(1)
    return hits / docs_per_topic


# Do the unmasked means with a non-zero padding state change the rankings? Score again and compare.
scores_nz = Qn @ (naive_nz / np.linalg.norm(naive_nz, axis=1, keepdims=True)).T
reordered = int(sum(not np.array_equal(np.argsort(-scores[i], kind="stable"), np.argsort(-scores_nz[i], kind="stable"))
                    for i in range(n_topics)))
print(check_less("unmasked means with a non-zero padding state reorder some query's documents",
                 0, reordered, names=("0", "queries whose order changes")))

rows = []
for k in (1, 3, 5):
    loop = np.array([len(set(top_k(scores[q], k)) & set(np.where(doc_topic == q)[0])) / docs_per_topic
                     for q in range(n_topics)])
    print(check_close(f"recall@{k} per query equals |relevant and top-{k}| / |relevant| (sets)",
                      recall_at(k), loop, atol=0.0, eq="recall" if k == 3 else None))
    rows.append((f"recall@{k}", *[f"{r:.2f}" for r in recall_at(k)], f"{recall_at(k).mean():.2f}"))
print(table(("metric", *[f"query {q}" for q in range(n_topics)], "mean"), rows))
print(glue("ret_topics", n_topics), glue("ret_per", docs_per_topic), glue("ret_r1", recall_at(1).mean(), ".2f"),
      glue("ret_r3", recall_at(3).mean(), ".2f"), glue("ret_r5", recall_at(5).mean(), ".2f"),
      glue("ret_cos_min", cos_shift.min(), ".3f"),
      glue("ret_cos_max", cos_shift.max(), ".3f"), glue("ret_reordered", reordered),
      glue("ret_r3_pad", recall_at(3, scores_nz).mean(), ".2f"), sep="")
