"""Exercise: recall@k of a small dense retriever, and how it falls as documents get noisier."""
import numpy as np

from esm import check_close, check_equal, check_true, cosine_matrix, glue, shape_table, share_of_seeds, top_k

TOPICS, PER, d = 4, 3, 16
N = TOPICS * PER
topic = np.repeat(np.arange(TOPICS), PER)


def retrieve(seed, noise):
    rng = np.random.default_rng(seed)
    centre = rng.normal(0.0, 1.0, (TOPICS, d))
    docs = centre[topic] + noise * rng.normal(0.0, 1.0, (N, d))
    queries = centre + noise * rng.normal(0.0, 1.0, (TOPICS, d))
    return docs, queries, cosine_matrix(queries, docs)


def recall(S, k):
    """Vectorised: the share of each query's PER relevant documents in its top k."""
    top = np.argsort(-S, axis=1, kind="stable")[:, :k]
    return (topic[top] == np.arange(TOPICS)[:, None]).sum(1) / PER


SEED, NOISE = 112, 1.0
docs, queries, S = retrieve(SEED, NOISE)
print(shape_table({"N": N, "n_q": TOPICS, "d": d}, [("documents", "", docs, "N d", ""),
                                                    ("queries", "", queries, "n_q d", "one per topic"),
                                                    ("scores", "", S, "n_q N", "cosines")]))
for k in (1, 3, 5):
    loop = [len(set(top_k(S[q], k)) & set(np.flatnonzero(topic == q))) / PER for q in range(TOPICS)]
    print(check_close(f"(b) recall@{k} per query equals |relevant and top-{k}| / |relevant| (sets)", recall(S, k), loop, atol=0.0))
r1, r3, r5 = recall(S, 1).mean(), recall(S, 3).mean(), recall(S, 5).mean()
# (a) the bounds max(0, k - (N - PER)) / PER <= recall@k <= min(k, PER) / PER are a theorem: its checks are the
# proof's premise, the two extreme rankings (which must reach the bounds), and the bounds on the draws of (c).
print(check_equal("(a) premise: every query has exactly 3 relevant documents (count per topic)",
                  [int(np.sum(topic == q)) for q in range(TOPICS)], [PER] * TOPICS))
ks = np.arange(1, N + 1)
ceiling = np.minimum(ks, PER) / PER
floor = np.maximum(0, ks - (N - PER)) / PER
relevant = (topic[None, :] == np.arange(TOPICS)[:, None]).astype(float)
S_first, S_last = relevant, -relevant                  # relevant documents ranked first, or last (ties by index)
print(check_close("(a) relevant documents ranked first: recall@k = min(k, 3)/3 at every k = 1..12 (the ceiling)",
                  [recall(S_first, k).tolist() for k in ks], [[c] * TOPICS for c in ceiling], atol=1e-12))
print(check_close("(a) relevant documents ranked last: recall@k = max(0, k - 9)/3 at every k (the floor)",
                  [recall(S_last, k).tolist() for k in ks], [[f] * TOPICS for f in floor], atol=1e-12))
guaranteed = int(ks[floor > 0][0])
seeds = range(SEED, SEED + 50)
inside = all(np.all((recall(retrieve(s, nz)[2], k) >= lo - 1e-12) & (recall(retrieve(s, nz)[2], k) <= hi + 1e-12))
             for s in seeds for nz in (NOISE, 2 * NOISE) for k, lo, hi in zip(ks, floor, ceiling))
print(check_true("(a) every query of seeds 112..161, at both noise levels, lies between the floor and the ceiling at every k",
                 inside, f"recall positive for every embedding from k = {guaranteed}"))
drop = share_of_seeds(lambda s: recall(retrieve(s, 2 * NOISE)[2], 3).mean() <= recall(retrieve(s, NOISE)[2], 3).mean(), seeds)
print(check_equal("(c) over seeds 112..161, doubling the noise never raises the mean recall@3", drop, 1.0))
mean_r3 = float(np.mean([recall(retrieve(s, NOISE)[2], 3).mean() for s in seeds]))
mean_r3_noisy = float(np.mean([recall(retrieve(s, 2 * NOISE)[2], 3).mean() for s in seeds]))
print(glue("e12_N", N), glue("e12_topics", TOPICS), glue("e12_per", PER), glue("e12_d", d), glue("e12_noise", NOISE, "g"),
      glue("e12_r1", r1, ".2f"), glue("e12_r3", r3, ".2f"), glue("e12_r5", r5, ".2f"),
      glue("e12_mean_r3", mean_r3, ".2f"), glue("e12_mean_r3_noisy", mean_r3_noisy, ".2f"),
      glue("e12_guar", guaranteed), sep="")
