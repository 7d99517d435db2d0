"""7.5 Embedding geometry in retrieval: mean-pooled token states, cosine scores, recall@k."""
import numpy as np

from esm import check_close, check_equal, cosine, shape_table, table, top_k

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
    ("token table", "E", E, "V d", "last row is the zero padding row"),
    ("document ids", "", ids, "N T_max", "padded with the pad id"),
    ("mask", "", mask, "N T_max", "1 for a real token, 0 for padding"),
    ("document vectors", r"\mathbf s", S, "N d", "masked mean of token states"),
    ("query vectors", "", Qv, "n_q d", "mean of the query's token states"),
    ("scores", "", scores, "n_q N", r"$\cos(f(q), g(d))$"),
]))

# Independent: pool document 0 by a loop over its real tokens; score one pair with esm.cosine.
real = [t for t in ids[0] if t != PAD]
print(check_close("the pooled vector is the mean of the real tokens' states (loop, padding skipped)",
                  S[0], sum(E[t] for t in real) / len(real), atol=1e-12, eq="mean-pool"))
print(check_close("score(q_1, d_5) is the cosine of the pooled vectors", scores[1, 5],
                  cosine(Qv[1], S[5]), atol=1e-12, eq="cos-score"))
naive = E[ids].mean(axis=1)
print(check_equal("averaging the padding rows too gives a different (shrunken) vector",
                  bool(np.allclose(naive[0], S[0])), False))

def recall_at(k):
    """Vectorised: share of each query's relevant documents found in its top-k."""
    top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    hits = (doc_topic[top] == np.arange(n_topics)[:, None]).sum(1)
    return hits / docs_per_topic

rows = []
for k in (1, 3, 5):
    loop = np.array([len(set(top_k(scores[q], k)) & set(np.where(doc_topic == q)[0])) / docs_per_topic
                     for q in range(n_topics)])
    print(check_close(f"recall@{k} per query equals |relevant and top-{k}| / |relevant| (sets)",
                      recall_at(k), loop, atol=0.0, eq="recall" if k == 3 else None))
    rows.append((f"recall@{k}", *[f"{r:.2f}" for r in recall_at(k)], f"{recall_at(k).mean():.2f}"))
print(table(("metric", *[f"query {q}" for q in range(n_topics)], "mean"), rows))
