"""Claims of docs/part2/training-embeddings.md (5.1-5.5), checked against independent
computations: finite differences (esm.numerical_grad, itself tested against a closed form),
plain-Python loops, closed forms."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DOCS, SNIPPETS, demo_namespace
from esm import numerical_grad

PAGE = (DOCS / "part2" / "training-embeddings.md").read_text(encoding="utf-8")


def demo(name: str) -> dict:
    return demo_namespace(f"part2/training-embeddings/{name}")


def ce(W, h, y) -> float:
    z = [float(sum(W[j][c] * h[c] for c in range(len(h)))) for j in range(len(W))]
    m = max(z)
    return -(z[y] - m) + math.log(sum(math.exp(v - m) for v in z))


# -- 5.1 --------------------------------------------------------------------------------------------

@given(st.integers(2, 9), st.integers(1, 5), st.integers(0, 10_000))
@settings(max_examples=25, deadline=None)
def test_output_row_and_hidden_gradients_against_finite_differences(V, d, seed):
    rng = np.random.default_rng(seed)
    W, h = rng.normal(size=(V, d)), rng.normal(size=d)
    y = int(rng.integers(V))
    z = W @ h
    p = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    coef = p - np.eye(V)[y]
    assert np.allclose(np.outer(coef, h), numerical_grad(lambda M: ce(M, h, y), W), atol=1e-7)
    assert np.allclose(W.T @ coef, numerical_grad(lambda v: ce(W, v, y), h), atol=1e-7)
    assert abs(np.outer(coef, h).sum(axis=0)).max() < 1e-12   # the mean row does not move


def test_lm_gradient_numbers(demo_output):
    ns = demo("lm_gradient")
    W, h, y, eta = ns["W"], ns["h"], ns["y"], ns["eta"]
    z = [float(sum(W[j][c] * h[c] for c in range(len(h)))) for j in range(len(W))]
    p = [math.exp(v) / sum(math.exp(u) for u in z) for v in z]
    assert math.isclose(p[y], ns["p"][y], abs_tol=1e-12) and math.isclose(-math.log(p[y]), ns["loss"], abs_tol=1e-12)
    assert max(range(len(p)), key=p.__getitem__) == ns["fav"]
    # the step of the prose, row by row, in plain Python
    W2 = [[W[j][c] + eta * ((1.0 if j == y else 0.0) - p[j]) * h[c] for c in range(len(h))] for j in range(len(W))]
    assert math.isclose(ns["loss"] - ce(W2, h, y), ns["drop"], abs_tol=1e-12)
    assert ns["drop"] < ns["first_order"] < 1.05 * ns["drop"]
    for name in ("coef_y", "coef_fav", "h_h", "coef_h", "gh_h", "z1_h"):
        assert "{{" + name + "}}" in PAGE
    # the rows, their gradients and the rows after the step are in the table the demo prints
    out = demo_output(SNIPPETS / "part2" / "training-embeddings" / "lm_gradient.py")
    for row in ("| $0$ ($y$) | $(1,0)$ | $-\\tfrac{2}{3}$ | $(-\\tfrac{2}{3},-\\tfrac{2}{3})$ | $(2,1)$ | $3$ |",
                "| $2$ | $(-1,2)$ | $\\tfrac{1}{3}$ | $(\\tfrac{1}{3},\\tfrac{1}{3})$ | $(-\\tfrac{3}{2},\\tfrac{3}{2})$ | $0$ |"):
        assert row in out, row
    # the by-hand example in exact fractions: equal logits, then the step with eta = 3/2
    from fractions import Fraction as F
    Wh, hh, yh, eh = [[1, 0], [0, 1], [-1, 2]], [1, 1], 0, F(3, 2)
    assert [ns["W_h"][j][c] for j in range(3) for c in range(2)] == [x for row in Wh for x in row]
    ph = [F(1, 3)] * 3
    W1 = [[Wh[j][c] - eh * (ph[j] - (j == yh)) * hh[c] for c in range(2)] for j in range(3)]
    assert [sum(a * b for a, b in zip(w, hh)) for w in W1] == [3, 0, 0]
    assert [sum(ph[j] * Wh[j][c] for j in range(3)) - Wh[yh][c] for c in range(2)] == [-1, 1]


# -- 5.2 --------------------------------------------------------------------------------------------

def sgns_pair_loss(v, u_o, U_neg) -> float:
    def logsig(x):
        return -math.log1p(math.exp(-x)) if x > -30 else x
    return -logsig(float(u_o @ v)) - sum(logsig(-float(u @ v)) for u in U_neg)


@given(st.integers(1, 6), st.integers(1, 4), st.integers(0, 10_000))
@settings(max_examples=30, deadline=None)
def test_sgns_gradients_used_in_training_against_finite_differences(d, K, seed):
    rng = np.random.default_rng(seed)
    v, u_o, U_neg = rng.normal(size=d), rng.normal(size=d), rng.normal(size=(K, d))
    sig = lambda x: 1 / (1 + math.exp(-x))                       # noqa: E731
    g_pos = sig(u_o @ v) - 1.0
    g_neg = np.array([sig(u @ v) for u in U_neg])
    assert np.allclose(g_pos * u_o + g_neg @ U_neg, numerical_grad(lambda x: sgns_pair_loss(x, u_o, U_neg), v), atol=1e-7)
    assert np.allclose(g_pos * v, numerical_grad(lambda x: sgns_pair_loss(v, x, U_neg), u_o), atol=1e-7)
    assert np.allclose(np.outer(g_neg, v), numerical_grad(lambda x: sgns_pair_loss(v, u_o, x), U_neg), atol=1e-7)


def test_the_two_steps_by_hand_in_exact_fractions():
    """The worked example again, written from the prose: sigma(0) = 1/2, eta = 1, one noise word a step."""
    from fractions import Fraction as F
    ns = demo("sgns_step")
    C = {"cat": [F(1), F(0)], "dog": [F(0), F(1)]}
    Ct = {x: [F(0), F(0)] for x in ("fed", "car", "sky")}
    for centre, context, noise in (("cat", "fed", "car"), ("dog", "fed", "sky")):
        c = list(C[centre])
        assert sum(a * b for a, b in zip(Ct[context], c)) == 0 and sum(a * b for a, b in zip(Ct[noise], c)) == 0
        half = F(1, 2)                                   # sigma(0) for both scores
        C[centre] = [c[a] - ((half - 1) * Ct[context][a] + half * Ct[noise][a]) for a in range(2)]
        Ct[context] = [Ct[context][a] - (half - 1) * c[a] for a in range(2)]
        Ct[noise] = [Ct[noise][a] - half * c[a] for a in range(2)]
    assert C["dog"] == [F(1, 4), F(1)] and Ct["fed"] == [F(1, 2), F(1, 2)] and C["cat"] == [F(1), F(0)]
    w = ns["w"]
    assert [list(ns["C_h"][w[x]]) for x in ("cat", "dog")] == [C["cat"], C["dog"]]
    assert [list(ns["Ct_h"][w[x]]) for x in ("fed", "car", "sky")] == [Ct["fed"], Ct["car"], Ct["sky"]]
    assert math.isclose(ns["cos_h"], 1 / math.sqrt(17), rel_tol=1e-12)
    assert "{{dog_h}}" in PAGE and "{{cos_h}}" in PAGE and "{{fed1_h}}" in PAGE


def test_skipgram_softmax_touches_every_row_and_negative_sampling_few():
    ns = demo("sgns_step")
    C, Ct, i, o, negs, V = ns["C"], ns["Ct"], ns["i"], ns["o"], ns["negs"], ns["V"]
    z = [float(Ct[j] @ C[i]) for j in range(V)]
    p = [math.exp(v) / sum(math.exp(u) for u in z) for v in z]
    loss_of = lambda M: -math.log(math.exp(float(M[o] @ C[i])) / sum(math.exp(float(r @ C[i])) for r in M))  # noqa: E731
    fd = numerical_grad(loss_of, Ct)
    assert np.allclose(fd, [[(p[j] - (j == o)) * x for x in C[i]] for j in range(V)], atol=1e-7)
    assert np.all(np.abs(fd).sum(axis=1) > 0)
    fd_ns = numerical_grad(lambda M: sgns_pair_loss(C[i], M[o], M[negs]), Ct)
    assert sorted(np.flatnonzero(np.abs(fd_ns).sum(axis=1) > 1e-9)) == sorted([o, *negs])
    assert ns["touched"] == (V, len(negs) + 1) and o not in negs and len(set(negs)) == len(negs)
    assert (ns["V_cited"], ns["N_neg_cited"]) == (692_000, 5) and 692_000 // 6 == 115_333    # about 115,000
    assert "{{cost_ratio}}" in PAGE and "692K" in PAGE


def test_the_toy_corpus_is_what_the_prose_says():
    ns = demo("sgns")
    groups, vocab, sentences = ns["GROUPS"], ns["vocab"], ns["run"]["sentences"]
    assert len(groups) == 3 and all(len(words) == 6 for words in groups.values())
    assert ns["d"] == 2 and ns["N_neg"] == 5 and ns["batch"] == 32 and ns["lr"] == 0.025
    assert len(sentences) == 3 * ns["n_sent"]
    for s in sentences:                                  # three different words, all of one group
        assert len(s) == 3 == len(set(s)) and len({ns["group"][i] for i in s}) == 1
    # every ordered pair of different positions in a sentence (the window, 2, spans a sentence of 3)
    assert ns["N"] == sum(len(s) * (len(s) - 1) for s in sentences) == 6 * len(sentences)
    counts = np.zeros(len(vocab))
    for s in sentences:
        for i in s:
            counts[i] += 1
    assert np.array_equal(counts, ns["counts"])
    nu = [c ** 0.75 / sum(x ** 0.75 for x in counts) for c in counts]
    assert np.allclose(nu, ns["noise"], atol=1e-15)
    top = max(range(len(vocab)), key=lambda k: counts[k])
    assert top == ns["top"] and counts[top] / counts.sum() > nu[top]
    rare = min(range(len(vocab)), key=lambda k: counts[k])
    assert rare == ns["rare"] and counts[rare] / counts.sum() < nu[rare]
    assert ns["history"][-1] < ns["history"][0] and len(ns["history"]) == ns["epochs"] + 1


def test_the_run_shown_by_loops():
    """The run shown (seed 52), measured again by loops: cosines of centre rows, scores of the
    corpus's pairs, the two means; a line through the origin between the tables found by a scan of
    directions (not the demo's arc); and the record's seed 52 is the same run."""
    ns = demo("sgns")
    C, Ct, group, V, run = ns["C"], ns["Ct"], ns["group"], ns["V"], ns["run"]

    def cos(u, v):
        return float(u @ v) / math.sqrt(float(u @ u) * float(v @ v))
    pairs_same = [(a, b) for a in range(V) for b in range(V) if a != b and group[a] == group[b]]
    pairs_cross = [(a, b) for a in range(V) for b in range(V) if group[a] != group[b]]
    score = lambda a, b: float(sum(C[a][k] * Ct[b][k] for k in range(2)))            # noqa: E731
    true = [score(i, o) for i, o in zip(run["centres"], run["outs"])]
    by_loop = {"same_min": min(cos(C[a], C[b]) for a, b in pairs_same),
               "cross_max": max(cos(C[a], C[b]) for a, b in pairs_cross),
               "cone": cos(C.sum(axis=0), Ct.sum(axis=0)),
               "true_mean": sum(true) / len(true), "true_below": sum(t < 0 for t in true) / len(true),
               "same_score": sum(score(a, b) for a, b in pairs_same) / len(pairs_same),
               "cross_score": sum(score(a, b) for a, b in pairs_cross) / len(pairs_cross)}
    for q, v in by_loop.items():
        assert math.isclose(v, ns["measured"][q], abs_tol=1e-12), q
    assert by_loop["true_mean"] < 0 and by_loop["true_below"] > 0.5
    assert by_loop["cross_score"] < by_loop["same_score"] < 0
    angles = np.radians(np.arange(0, 360, 0.1))                       # a separating direction, by a scan
    units = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    assert np.any(((C @ units.T).min(axis=0) > 0) & ((Ct @ units.T).max(axis=0) < 0))
    from esm.sweeps import record
    rec = record("sgns")
    assert all(math.isclose(rec.per_seed[ns["SEED"]][q], v, abs_tol=1e-12) for q, v in by_loop.items())
    for name in ("true_mean", "true_below", "cross_score", "same_score", "best_below", "n_rec", "gap_run",
                 "gap_lo", "cone_hi", "span_run", "cross_run", "cross_centred"):
        assert "{{" + name + "}}" in PAGE, name
    assert "make sweep" not in PAGE and "recorded on" not in PAGE     # the record's provenance is in the checks


def test_the_free_optimum_of_a_pair():
    """The best score of (i, j) with every score free: #_ij (-log sigma(z)) + m (-log sigma(-z)) is
    least at z = log(#_ij / m), found here by a grid, and below 0 exactly when the pair is drawn as
    noise more often than it is seen."""
    for seen, m in ((3, 7.5), (9, 4.0), (1, 1.0)):
        zs = np.linspace(-6, 6, 120001)
        loss = seen * np.log1p(np.exp(-zs)) + m * np.log1p(np.exp(zs))
        assert abs(zs[np.argmin(loss)] - math.log(seen / m)) < 1e-3
        assert (math.log(seen / m) < 0) == (m > seen)


def test_the_sentences_draw_their_words_one_at_a_time():
    """The prose: a sentence draws its three words one at a time, the k-th in proportion to 1/k among
    those not yet drawn. The inclusion probabilities of that rule, summed over every ordered triple,
    against the demo's own draw (rng.choice without replacement) repeated 20,000 times; both are
    flatter than 1/k."""
    from itertools import permutations
    ns = demo("sgns")
    zipf = [1 / k for k in range(1, 7)]
    incl = [0.0] * 6
    for triple in permutations(range(6), 3):
        prob, left = 1.0, list(range(6))
        for w in triple:
            prob *= zipf[w] / sum(zipf[x] for x in left)
            left.remove(w)
        for w in triple:
            incl[w] += prob
    rng = np.random.default_rng(7)
    n = 20_000
    got = np.bincount(np.concatenate([rng.choice(6, size=3, replace=False, p=ns["zipf"]) for _ in range(n)]),
                      minlength=6) / n
    se = np.sqrt(np.array(incl) * (1 - np.array(incl)) / n)
    assert np.all(np.abs(got - incl) < 5 * se)
    assert incl[0] / incl[5] < zipf[0] / zipf[5]                     # flatter than 1/k


def test_the_picture_holds_for_seeds_beyond_the_record():
    """The claims are not a property of the recorded seeds: 10 more, with the demo's code."""
    from esm.sweeps import record
    ns = demo("sgns")
    later = range(max(record("sgns").seeds) + 1, max(record("sgns").seeds) + 11)
    for s in later:
        C, Ct, run = ns["train"](s)
        m = ns["measure"](C, Ct, run)
        assert m["gap"] > 0 and m["cone"] < 0 and m["arc"] < 180 and m["true_mean"] < 0, s
        assert m["cross_score"] < m["same_score"], s


# -- 5.3 --------------------------------------------------------------------------------------------

def test_cooccurrence_counts_and_ratios_by_a_plain_loop():
    from collections import Counter
    from fractions import Fraction as F
    ns = demo("cooccurrence")
    text = ns["corpus"].replace("\n", " ")
    sentences = [s.split() for s in text.split(".") if s.strip()]
    assert len(sentences) == len(ns["sentences"]) == 20
    pairs, totals = Counter(), Counter()
    for s in sentences:
        for a in s:
            for b in s:
                if a != b:
                    pairs[a, b] += 1
                    totals[a] += 1
    idx = ns["idx"]
    assert all(ns["counts"][idx[a], idx[b]] == n for (a, b), n in pairs.items())
    assert int(ns["counts"].sum()) == sum(pairs.values())
    ratio = {j: F(pairs["ice", j], totals["ice"]) / F(pairs["steam", j], totals["steam"])
             for j in ("solid", "gas", "water", "fashion")}
    assert ratio == ns["ratio"] and ratio["solid"] > 1 > ratio["gas"]
    assert F(pairs["ice", "solid"], totals["ice"]) == F(pairs["ice", "water"], totals["ice"])


@given(st.integers(2, 8), st.integers(1, 4), st.integers(0, 10_000))
@settings(max_examples=25, deadline=None)
def test_glove_ratio_is_a_difference_of_dot_products(V, d, seed):
    """Under the log-bilinear model, log(p(j|i) / p(j|i')) - (C_i - C_i') . C~_j does not depend on j."""
    rng = np.random.default_rng(seed)
    C, Ct, b, bt = rng.normal(size=(V, d)), rng.normal(size=(V, d)), rng.normal(size=V), rng.normal(size=V)
    X = [[math.exp(float(C[i] @ Ct[j]) + b[i] + bt[j]) for j in range(V)] for i in range(V)]
    i, k = 0, V - 1
    rest = [math.log((X[i][j] / sum(X[i])) / (X[k][j] / sum(X[k]))) - float((C[i] - C[k]) @ Ct[j]) for j in range(V)]
    assert max(rest) - min(rest) < 1e-9
    assert math.isclose(rest[0], b[i] - b[k] - math.log(sum(X[i]) / sum(X[k])), abs_tol=1e-9)


def test_glove_weight_function():
    ns = demo("glove")
    f = ns["f"]
    assert float(f(0.0)) == 0.0 and float(f(100.0)) == 1.0 and float(f(1e6)) == 1.0
    assert math.isclose(float(f(100 - 1e-9)), 1.0, abs_tol=1e-9)   # continuous at x_max
    xs = np.linspace(0, 100, 501)
    assert np.all(np.diff(f(xs)) >= 0)                               # non-decreasing
    for x, closed in ((1, 10 ** -1.5), (10, 10 ** -0.75), (50, 2 ** -0.75)):
        assert math.isclose(float(f(float(x))), closed, rel_tol=1e-12)


def test_glove_gradient_step_against_finite_differences():
    ns = demo("glove")
    X, f = ns["counts"], ns["f"]                # the co-occurrence counts #_ij
    rng = np.random.default_rng(3)
    V, d = ns["V"], ns["d"]
    W, Wt, b, bt = rng.normal(size=(V, d)), rng.normal(size=(V, d)), rng.normal(size=V), rng.normal(size=V)

    def J(W, Wt, b, bt):
        total = 0.0
        for i in range(V):
            for j in range(V):
                if X[i, j] > 0:
                    total += float(f(X[i, j])) * (W[i] @ Wt[j] + b[i] + bt[j] - math.log(X[i, j])) ** 2
        return total

    gW, gWt, gb, gbt = ns["glove_grads"](W, Wt, b, bt)              # the demo's gradients
    assert np.allclose(gW, numerical_grad(lambda M: J(M, Wt, b, bt), W), rtol=1e-6, atol=1e-5)
    assert np.allclose(gWt, numerical_grad(lambda M: J(W, M, b, bt), Wt), rtol=1e-6, atol=1e-5)
    assert np.allclose(gb, numerical_grad(lambda v: J(W, Wt, v, bt), b), rtol=1e-6, atol=1e-5)
    assert np.allclose(gbt, numerical_grad(lambda v: J(W, Wt, b, v), bt), rtol=1e-6, atol=1e-5)
    assert all(float(f(X[i, j])) == 0.0 for i in range(V) for j in range(V) if X[i, j] == 0)
    assert ns["end"] < ns["start"]


# -- 5.4 --------------------------------------------------------------------------------------------

def test_drift_training_matches_a_per_example_loop():
    """The demo's vectorised update (np.add.at) against a plain loop over the batch, 3 steps."""
    ns = demo("drift")
    E0, W0, inputs, targets = ns["E0"], ns["W0"], ns["inputs"], ns["targets"]
    E, W = E0.copy(), W0.copy()
    r = np.random.default_rng(0)
    batch, lr = 100, ns["lr"]
    for _ in range(3):
        j = r.integers(0, len(inputs), batch)
        gE, gW = np.zeros_like(E), np.zeros_like(W)
        for x, y in zip(inputs[j], targets[j]):
            z = W @ E[x]
            p = np.exp(z - z.max())
            p /= p.sum()
            p[y] -= 1.0
            gW += np.outer(p, E[x]) / batch
            gE[x] += W.T @ p / batch
        E, W = E - lr * gE, W - lr * gW
    assert np.allclose(ns["fine_tune"](steps=3), E, atol=1e-12)


def test_drift_claims():
    ns = demo("drift")
    counts, drift, E0, E1 = ns["counts"], ns["drift"], ns["E0"], ns["E1"]
    unseen = counts == 0
    assert unseen.sum() == 15 and np.array_equal(E1[unseen], E0[unseen])
    assert counts[0] == max(counts)                              # id 0 is the most frequent
    # Spearman by hand: ranks of counts and drifts over seen rows (no ties among drifts)
    c, dr = counts[~unseen], drift[~unseen]
    rc = [sorted(c).index(v) + (list(c).count(v) - 1) / 2 for v in c]   # average rank for ties
    rd = [sorted(dr).index(v) for v in dr]
    rho = np.corrcoef(rc, rd)[0, 1]
    assert math.isclose(rho, ns["rho"], abs_tol=1e-12) and rho > 0.7
    factor = 1.0
    for _ in range(ns["steps"]):
        factor *= 1 - ns["lr"] * ns["wd"]
    assert math.isclose(factor, ns["factor"], rel_tol=1e-12) and "{{factor}}" in PAGE


# -- 5.5 --------------------------------------------------------------------------------------------

@given(st.integers(2, 30), st.integers(1, 5), st.integers(1, 6), st.integers(0, 10_000))
@settings(max_examples=40, deadline=None)
def test_kl_closed_form_and_jensen_bound(V, k, d, seed):
    rng = np.random.default_rng(seed)
    E, h = rng.normal(size=(V, d)) + rng.normal(size=d), rng.normal(size=d)
    z = [float(E[i] @ h) for i in range(V)]
    zmean = float(E.mean(axis=0) @ h)                            # logit of the mean row
    Z = sum(math.exp(v) for v in z)
    Zp = Z + k * math.exp(zmean)
    kl = sum(math.exp(v) / Z * math.log((math.exp(v) / Z) / (math.exp(v) / Zp)) for v in z)
    assert math.isclose(kl, math.log(1 + k * math.exp(zmean) / Z), rel_tol=1e-9, abs_tol=1e-12)
    assert kl <= math.log(1 + k / V) + 1e-12


def test_resize_numbers():
    ns = demo("resize")
    H, E, V = ns["Hs"], ns["E"], ns["V"]
    n = 5                                                        # context 5, KL by its definition in a loop
    zo = [float(H[n] @ E[i]) for i in range(V)]
    zn = [float(H[n] @ r) for r in ns["E_mean"][V:]]
    Z, Zp = sum(math.exp(v) for v in zo), sum(math.exp(v) for v in zo + zn)
    kl = sum(math.exp(v) / Z * math.log((math.exp(v) / Z) / (math.exp(v) / Zp)) for v in zo)
    assert math.isclose(kl, ns["kl_mean"][n], rel_tol=1e-9, abs_tol=1e-15)
    assert ns["kl_mean"].max() < math.log(1 + ns["n_new"] / V) < ns["kl_zero"].mean() < ns["kl_rand"].mean()
    for name in ("kl_max", "kl_bound", "kl_rand", "kl_mean", "mass_rand", "kl_zero"):
        assert "{{" + name + "}}" in PAGE
