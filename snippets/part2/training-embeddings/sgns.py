"""5.2 Skip-gram with negative sampling in d = 2 on three groups of words: one run, and the recorded
sweep of this demo's train() and measure() over seeds (tools/seed_sweep.py)."""
import math
from collections import Counter

import numpy as np

from esm import (PALETTE, check_close, check_less, check_true, cosine, cosine_matrix, figure, glue, log_sigmoid,
                 shape_table, sigmoid, svg)
from esm.sweeps import record

GROUPS = {"animals": ["cat", "dog", "horse", "cow", "pet", "farm"],
          "food": ["bread", "rice", "soup", "cheese", "cook", "eat"],
          "transport": ["car", "bus", "train", "bike", "ride", "road"]}
vocab = [x for words in GROUPS.values() for x in words]
idx = {x: i for i, x in enumerate(vocab)}
group = np.repeat(np.arange(len(GROUPS)), 6)     # the group of each word
V, d, window, N_neg = len(vocab), 2, 2, 5
n_sent, length = 60, 3                           # sentences per group, words per sentence
zipf = 1 / np.arange(1, 7)
zipf /= zipf.sum()          # a sentence draws its words one at a time, the k-th in proportion to 1/k among those left


def corpus_of(rng):
    """n_sent sentences per group, each of `length` different words of that group, shuffled."""
    sentences = [[idx[words[k]] for k in rng.choice(6, size=length, replace=False, p=zipf)]
                 for words in GROUPS.values() for _ in range(n_sent)]
    return [sentences[k] for k in rng.permutation(len(sentences))]


def pairs_of(sentences):
    """Every (centre, context) pair within `window` words, in the same sentence."""
    centres, outs = [], []
    for ids in sentences:
        for t in range(len(ids)):
            for s in range(max(0, t - window), min(len(ids), t + window + 1)):
                if s != t:
                    centres.append(ids[t])
                    outs.append(ids[s])
    return np.array(centres), np.array(outs)


def sgns_loss(C, Ct, c, o, neg):
    """Per-pair loss (sgns); c, o of shape (N,), neg of shape (N, N_neg)."""
    Cc = C[c]
    return -(log_sigmoid(np.sum(Ct[o] * Cc, axis=1)) + log_sigmoid(-np.einsum("nkd,nd->nk", Ct[neg], Cc)).sum(axis=1))


def batch_step(C, Ct, c, o, neg, lr):
    """One step on a batch of pairs, in place: each pair's gradients (sgns-grad-centre),
    (sgns-grad-context) summed; a row that occurs several times gets the sum of its terms."""
    Cc, Co, Cn = C[c], Ct[o], Ct[neg]                          # copies: (B, d), (B, d), (B, N_neg, d)
    g_o = sigmoid(np.sum(Co * Cc, axis=1)) - 1.0               # sigma(z_o) - 1, one per pair
    g_n = sigmoid(np.sum(Cn * Cc[:, None, :], axis=2))         # sigma(z_jk), one per noise word
    np.add.at(C, c, -lr * (g_o[:, None] * Co + np.sum(g_n[:, :, None] * Cn, axis=1)))
    np.add.at(Ct, o, -lr * g_o[:, None] * Cc)
    np.add.at(Ct, neg, -lr * g_n[:, :, None] * Cc[:, None, :])


lr, epochs, batch = 0.025, 20, 32                # word2vec's starting rate for skip-gram is 0.025


def train(seed, record=False):
    """A corpus and a training run drawn with `seed`: (C, Ct, what it recorded)."""
    rng = np.random.default_rng(seed)
    sentences = corpus_of(rng)
    centres, outs = pairs_of(sentences)
    counts = np.bincount(np.concatenate(sentences), minlength=V).astype(float)
    noise = counts ** 0.75 / np.sum(counts ** 0.75)           # nu(j), proportional to count(j)^(3/4)
    C = rng.uniform(-0.5 / d, 0.5 / d, (V, d))                # word2vec's start: small random centre rows
    Ct = np.zeros((V, d))                                     # and a context table of zeros
    fixed = rng.choice(V, size=(len(centres), N_neg), p=noise)  # noise words kept, to compare epochs on one loss
    history = [sgns_loss(C, Ct, centres, outs, fixed).mean()] if record else []
    for _ in range(epochs):
        order = rng.permutation(len(centres))
        negs = rng.choice(V, size=(len(order), N_neg), p=noise)      # this epoch's noise words
        for b in range(0, len(order), batch):
            j = order[b:b + batch]
            batch_step(C, Ct, centres[j], outs[j], negs[b:b + batch], lr)
        if record:
            history.append(sgns_loss(C, Ct, centres, outs, fixed).mean())
    return C, Ct, dict(sentences=sentences, centres=centres, outs=outs, counts=counts, noise=noise, fixed=fixed,
                       history=history)


same = (group[:, None] == group[None, :]) & ~np.eye(V, dtype=bool)    # two different words of one group
cross = group[:, None] != group[None, :]                                 # two words of different groups


def arc(C, Ct):
    """The smallest angle, in degrees, holding every centre row and every context row turned round
    (-C~_j): below 180, a line through the origin has every centre row on one side and every context
    row on the other. Returned with the direction in the middle of that angle."""
    pts = np.vstack([C, -Ct])
    a = np.sort(np.arctan2(pts[:, 1], pts[:, 0]))
    gaps = np.diff(np.append(a, a[0] + 2 * np.pi))
    k = int(np.argmax(gaps))                      # the largest empty gap; the rows fill the rest
    start, span = a[(k + 1) % len(a)], 2 * np.pi - gaps[k]
    mid = start + span / 2
    return float(np.degrees(span)), np.array([np.cos(mid), np.sin(mid)])


def measure(C, Ct, run):
    """What the prose says of a run (the sweep records these for every seed)."""
    cm, S = cosine_matrix(C), C @ Ct.T            # cosines of centre rows; scores C_i . C~_j
    true = S[run["centres"], run["outs"]]         # the scores of the corpus's (centre, context) pairs
    return {"same_min": float(cm[same].min()), "cross_max": float(cm[cross].max()),
            "gap": float(cm[same].min() - cm[cross].max()),
            "cone": cosine(C.mean(axis=0), Ct.mean(axis=0)), "arc": arc(C, Ct)[0], "span": arc(C, Ct[:0])[0],
            "true_mean": float(true.mean()), "true_below": float(np.mean(true < 0)),
            "same_score": float(S[same].mean()), "cross_score": float(S[cross].mean())}


SEED = 52
C, Ct, run = train(SEED, record=True)
counts, noise, history = run["counts"], run["noise"], run["history"]
N = len(run["centres"])
measured = measure(C, Ct, run)

print(shape_table({"V": V, "d": d, "N": N, r"N_{\text{neg}}": N_neg}, [
    ("centre table", "C", C, "V d", r"row $C_{i,:}$; the embeddings kept"),
    ("context table", r"\tilde C", Ct, "V d", r"row $\tilde C_{o,:}$"),
    ("centre ids", "i", run["centres"], "N", f"one per (centre, context) pair within {window} words"),
    ("context ids", "o", run["outs"], "N", "the word seen near the centre"),
    ("noise distribution", r"\nu", noise, "V", r"$\propto\operatorname{count}(j)^{3/4}$"),
]))

# nu from the counts tallied again; the noise words the run drew against nu, within 5 standard errors.
tally = Counter(w for s in run["sentences"] for w in s)
total = math.fsum(math.pow(tally[j], 0.75) for j in range(V))
print(check_close("nu(j) = count(j)^(3/4) / sum_j' count(j')^(3/4), the counts tallied again word by word", noise,
                  [math.pow(tally[j], 0.75) / total for j in range(V)], atol=1e-12, eq="noise"))
drawn = np.bincount(run["fixed"].ravel(), minlength=V) / run["fixed"].size
se = np.sqrt(noise * (1 - noise) / run["fixed"].size)
print(check_less(f"the {run['fixed'].size} noise words the run drew: every word's share within 5 standard errors of "
                 "nu(j)", float(np.max(np.abs(drawn - noise) / se)), 5.0,
                 names=("max |share - nu(j)| / standard error", "5"), eq="noise"))
top, rare = int(np.argmax(counts)), int(np.argmin(counts))
uni = counts / counts.sum()

# One batch step against the same step as a loop over its pairs, each pair's gradients by the formulas.
rng = np.random.default_rng(0)
j = rng.choice(N, size=batch, replace=False)
c, o, neg = run["centres"][j], run["outs"][j], rng.choice(V, size=(batch, N_neg), p=noise)
C1, Ct1 = C.copy(), Ct.copy()
batch_step(C1, Ct1, c, o, neg, lr)
C2, Ct2 = C.copy(), Ct.copy()
for n in range(batch):
    ci = C[c[n]]
    g_o = 1 / (1 + np.exp(-(Ct[o[n]] @ ci))) - 1
    C2[c[n]] -= lr * g_o * Ct[o[n]]
    Ct2[o[n]] -= lr * g_o * ci
    for jk in neg[n]:
        g = 1 / (1 + np.exp(-(Ct[jk] @ ci)))
        C2[c[n]] -= lr * g * Ct[jk]
        Ct2[jk] -= lr * g * ci
print(check_close(f"a batch step (np.add.at) vs a loop over its {batch} pairs, gradients summed", np.hstack([C1, Ct1]),
                  np.hstack([C2, Ct2]), atol=1e-12, eq="sgns-grad-context"))
print(check_close("the mean loss at the start is (1 + N_neg) log 2: every score is 0 while the context table is",
                  history[0], (1 + N_neg) * math.log(2), atol=1e-12, eq="sgns"))
print(check_less(f"mean loss on the kept noise words after {epochs} epochs < at the start", history[-1], history[0],
                 names=("after", "start")))

# This run: the middle direction u of arc() has a positive dot product with every centre row and a
# negative one with every context row; centring (4.4) takes the shared direction out of the cosines.
span, u = arc(C, Ct)
print(check_true("this run: every centre row on one side of a line through the origin, every context row on the other",
                 float((C @ u).min()) > 0 > float((Ct @ u).max()),
                 f"u = ({u[0]:.3f}, {u[1]:.3f}): min C_i . u = {(C @ u).min():.3f}, max C~_j . u = {(Ct @ u).max():.3f}"))
centred = cosine_matrix(C - C.mean(axis=0))[cross].max()
print(check_less("this run: the largest cross-group cosine falls once the mean centre row is taken out", centred,
                 measured["cross_max"], names=("centred", "raw")))

# With every score free, word j near centre i costs #_ij (-log sigma(z)) for the pairs seen plus about
# N_neg #_i nu(j) (-log sigma(-z)) for the noise draws: least where the derivative is 0.
seen = np.zeros((V, V))
np.add.at(seen, (run["centres"], run["outs"]), 1)
m = (N_neg * seen.sum(axis=1)[:, None] * noise[None, :])[seen > 0]         # expected noise draws of j for i
best = np.log(seen[seen > 0] / m)
print(check_close("at the best free score log(#_ij / (N_neg #_i nu(j))) of each pair seen, the derivative "
                  "#_ij (sigma(z) - 1) + N_neg #_i nu(j) sigma(z) is 0", seen[seen > 0] * (sigmoid(best) - 1)
                  + m * sigmoid(best), np.zeros(len(best)), atol=1e-9, eq="sgns"))
best_below = float(np.mean(best < 0))

# Over seeds: the record of this demo's training (tools/seed_sweep.py), read like a cited figure.
sweep = record("sgns")
ok, detail = sweep.matches(SEED, measured)
print(check_true(f"this run is the record's seed {SEED} (the record: {sweep.cited()}): the same measurements",
                 ok, detail))
lo = {q: sweep.spread(q)[0] for q in sweep.data["quantities"]}
hi = {q: sweep.spread(q)[1] for q in sweep.data["quantities"]}
n_rec = len(sweep.seeds)
# The checks below read the record's extremes; the seeds that set them are trained again here, so each
# bound is what this code gives, not only what the file says.
ends = {"gap": min, "same_min": min, "cross_max": max, "arc": max, "cone": max, "true_mean": max,
        "cross_score": max, "same_score": min}
extreme = sorted({pick(sweep.values(q), key=sweep.values(q).get) for q, pick in ends.items()})
retrained = [sweep.matches(s, measure(*train(s))) for s in extreme]
print(check_true(f"the record's extreme seeds {extreme}, trained again, give their recorded measurements",
                 all(ok for ok, _ in retrained), "; ".join(why for ok, why in retrained if not ok) or "all equal"))
print(check_less(f"in each of the {n_rec} recorded seeds every same-group cosine exceeds every cross-group cosine: "
                 "the smallest gap > 0", 0.0, lo["gap"], names=("0", "smallest gap")))
print(check_less("and across seeds: the largest cross-group cosine of any recorded seed < the smallest same-group "
                 "cosine of any", hi["cross_max"], lo["same_min"], names=("max over seeds", "min over seeds")))
print(check_less(f"in each of the {n_rec} recorded seeds a line through the origin separates the centre rows from the "
                 "context rows: the widest arc < 180 degrees", hi["arc"], 180.0, names=("widest arc", "180")))
print(check_less(f"in each of the {n_rec} recorded seeds the mean centre row and the mean context row point apart",
                 hi["cone"], 0.0, names=("max cos(mean C, mean C~)", "0")))
print(check_less(f"in each of the {n_rec} recorded seeds the true pairs' mean score is below 0", hi["true_mean"], 0.0,
                 names=("max of the mean score", "0")))
print(check_less(f"in each of the {n_rec} recorded seeds the mean cross-group score is below the mean same-group "
                 "score of any seed", hi["cross_score"], lo["same_score"],
                 names=("max mean cross-group score", "min mean same-group score")))

print(glue("n_sent", n_sent), glue("N_pairs", N), glue("epochs", epochs),
      glue("loss_start", history[0], ".3f"), glue("loss_end", history[-1], ".3f"),
      glue("uni_top", uni[top], ".3f"), glue("nu_top", noise[top], ".3f"),
      glue("uni_rare", uni[rare], ".3f"), glue("nu_rare", noise[rare], ".3f"))
print(glue("true_mean", measured["true_mean"], ".2f"), glue("true_below", measured["true_below"], ".0%"),
      glue("same_score", measured["same_score"], ".2f"), glue("cross_score", measured["cross_score"], ".2f"),
      glue("best_below", best_below, ".0%"),
      glue("cross_run", measured["cross_max"], ".2f"), glue("cross_centred", centred, ".2f"))


out = {q: sweep.spread(q, 2) for q in ("gap", "cone")}   # rounded outward
print(glue("n_rec", n_rec), glue("gap_lo", out["gap"][0], ".2f"), glue("gap_run", measured["gap"], ".2f"),
      glue("cone_hi", out["cone"][1], ".2f"), glue("span_run", measured["span"], ".0f"))

fig, (ax, ax2) = figure(1, 2, size=(7.4, 3.5), gridspec_kw={"width_ratios": [1.2, 1], "wspace": 0.5})
dots = []
for g, name in enumerate(GROUPS):
    rows = group == g
    dots.append(ax.scatter(C[rows, 0], C[rows, 1], s=20, color=PALETTE[g]))
    ax.scatter(Ct[rows, 0], Ct[rows, 1], s=20, facecolors="none", edgecolors=PALETTE[g], linewidths=1.2)
    for table_rows, label in ((C[rows], name), (Ct[rows], f"{name}, context")):
        u_g = table_rows.mean(axis=0) / np.linalg.norm(table_rows.mean(axis=0))   # the label goes outward
        far = table_rows[np.argmax(table_rows @ u_g)]
        if u_g[0] > abs(u_g[1]):                                 # to the right of a cluster on the right
            at = dict(xytext=(7, 0), ha="left", va="center")
        elif -u_g[0] > abs(u_g[1]):                              # above a cluster on the left, off the axis
            at = dict(xytext=(0, 6), ha="center", va="bottom")
        else:                                                    # above or below the others
            at = dict(xytext=(0, 7 * np.sign(u_g[1])), ha="center", va="bottom" if u_g[1] > 0 else "top")
        ax.annotate(label, far, textcoords="offset points", fontsize=8, color=PALETTE[g], **at)
ax.scatter([], [], s=20, color=PALETTE[4], label="centre rows $C$")
ax.scatter([], [], s=20, facecolors="none", edgecolors=PALETTE[4], label=r"context rows $\tilde C$")
ax.axhline(0, color=PALETTE[4], lw=0.6)
ax.axvline(0, color=PALETTE[4], lw=0.6)
reach = 1.6 * np.abs(np.vstack([C, Ct])).max()             # room for the labels on every side
ax.plot([-reach * u[1], reach * u[1]], [reach * u[0], -reach * u[0]], color=PALETTE[4], lw=0.8, ls=":")
ax.set_xlim(-reach, reach)
ax.set_ylim(-reach, reach)
ax.set_aspect("equal")
ax.legend(loc="upper left", frameon=False, fontsize=8.5, handletextpad=0.2, borderaxespad=0.2)
ax.set_title(f"one run (seed {SEED}), d = {d}", fontsize=9)
drawn_pts = np.concatenate([dot.get_offsets() for dot in dots])
print(check_close("the figure's filled points are the rows of C, group by group", drawn_pts,
                  np.concatenate([C[group == g] for g in range(len(GROUPS))]), atol=1e-12))
same_rec, cross_rec = (np.array(list(sweep.values(q).values())) for q in ("same_min", "cross_max"))
bins = np.arange(math.floor(cross_rec.min() * 50) / 50, 1.0 + 1e-9, 0.01)
ax2.hist(same_rec, bins=bins, color=PALETTE[3], label="smallest same-group")
ax2.hist(cross_rec, bins=bins, color=PALETTE[5], label="largest cross-group")
ax2.set_xlabel("cosine of two centre rows")
ax2.set_ylabel("seeds")
ax2.legend(loc="center", bbox_to_anchor=(0.45, 0.62), frameon=False, fontsize=8.5)
ax2.set_title(f"{n_rec} recorded runs, one value of each per run", fontsize=9)
print(svg(fig, alt=f"Left: the {V} centre rows learned in d = {d} with seed {SEED}, as filled points in three "
          f"colours, one fan per group, each fan named; the context rows, hollow, sit on the opposite side of the "
          f"origin, and a dotted line through the origin separates the two tables. Right: histograms over {n_rec} "
          f"recorded seeds of each run's smallest same-group cosine (from {lo['same_min']:.3f} to {hi['same_min']:.3f}) "
          f"and largest cross-group cosine (from {lo['cross_max']:.3f} to {hi['cross_max']:.3f}): the two do not "
          f"overlap",
          caption="Skip-gram with negative sampling on a corpus of three groups of words. Left: one run's "
          "centre rows (filled, each group's fan named) and context rows (hollow), on either side of the dotted "
          "line. Right: over the recorded seeds, the least similar pair within a group of any run is more similar "
          "than the most similar pair across groups of any run."))
