"""The training chapter's explorable: a token's nearest rows of the token table by cosine, at five points of the run
(the copies the run keeps, and its end), beside the validation loss there. Every setting is
computed here; the browser shows the chosen one."""
import math

import numpy as np

from esm import check_close, check_equal, check_less, check_true, cosine_matrix, glue, table, top_k
from esm.backprop import init_gpt2
from esm.explore import Control, bar, explorable, out
from esm.sweeps import record
from esm.tokenizer import VOCAB_SIZE, data, visible
from esm.train import SNAPSHOTS, TRAIN, trained

D = data()
V, d = VOCAB_SIZE, TRAIN["d"]
model, curve, evals, snaps = trained(D.train, D.val, V, TRAIN, snapshots=SNAPSHOTS)
steps = [*SNAPSHOTS, TRAIN["steps"]]
tables = {s: snaps[s]["E"].astype(float) for s in SNAPSHOTS} | {TRAIN["steps"]: model["E"].astype(float)}
val = {int(s): float(v) for s, _, v in evals}                 # the validation loss, every eval_every steps
tokens = list(D.alphabet) + [a + b for a, b in D.merges]
probes = [" the", " and", " I", "ing", "ed", ",", ".", "A"]
k = 5


near, states = {}, {}
for j, s in enumerate(steps):
    C = cosine_matrix(tables[s])
    for i, t in enumerate(probes):
        r = tokens.index(t)
        near[(i, j)] = [(int(n), float(C[r, n])) for n in top_k(C[r], k, exclude=[r])]
        states[(i, j)] = ([visible(tokens[n]) for n, _ in near[(i, j)]] + [f"{c:.2f}" for _, c in near[(i, j)]]
                          + [f"{100 * max(c, 0.0):.1f}%" for _, c in near[(i, j)]] + [f"{val[s]:.3f}"])
        states[(i, j)].append(f"'{visible(t)}' at step {s}: nearest " + ", ".join(
            f"'{a}' {c}" for a, c in zip(states[(i, j)][:k], states[(i, j)][k:2 * k]))
            + f"; validation loss {val[s]:.3f} nats.")    # what a screen reader hears when a control moves

default = (0, 1)                                             # ' the' at step 50; the table below shows the end
dft = states[default]
rows = ['<span class="esm-explore__head">nearest rows</span><span class="esm-explore__head">bar</span>'
        '<span class="esm-explore__head">cosine</span>']
rows += [f'<span>{m + 1}. {out(m, dft[m], tag="code")}</span>{bar(2 * k + m, dft[2 * k + m])}{out(k + m, dft[k + m])}'
         for m in range(k)]
body = (f'<div class="esm-explore__rows esm-explore__rows--stack">{"".join(rows)}</div>'
        f'<p class="esm-explore__sum">Validation loss at this step: {out(3 * k, dft[3 * k])} nats '
        f'({val[0]:.3f} at step 0).</p><p class="esm-explore__said" aria-live="polite">{out(3 * k + 1, dft[3 * k + 1])}</p>')
controls = [Control("token", [visible(t) for t in probes], kind="select", say=[f"token '{visible(t)}'" for t in probes]),
            Control("training step", steps, default=default[1], say=[f"step {s}" for s in steps])]   # shown = say
print(explorable(controls, body, states=states,
                 caption=f"The {k} rows of the tiny GPT's token table nearest to a token's row by cosine, at steps "
                         f"{', '.join(map(str, steps[:-1]))} and {steps[-1]} of its run (␣ is a space, ↵ a line "
                         "break). Bars span cosine 0 to 1."))


def kind(t):
    """A token's coarse role: a word start (a space, then letters), punctuation or white space, a
    capital letter first, or a piece of a word."""
    if t[:1] == " " and t[1:].isalpha():
        return "start"
    if not any(ch.isalnum() for ch in t):
        return "punct"
    return "capital" if t[0].isupper() else "piece"


# Every row, at each step: the share of its k nearest rows of its own kind, its nearest cosine, and the
# share of the centred table's variance along its first five principal directions (7.4).
kinds = [kind(t) for t in tokens]
same, nearest, top5 = {}, {}, {}
rng_shape = np.random.default_rng(12)
for s in steps:
    C = cosine_matrix(tables[s])
    same[s] = float(np.mean([[kinds[n] == kinds[r] for n in top_k(C[r], k, exclude=[r])] for r in range(V)]))
    nearest[s] = float(np.mean([max(C[r, n] for n in range(V) if n != r) for r in range(V)]))
    sv = np.linalg.svd(tables[s] - tables[s].mean(axis=0), compute_uv=False)
    top5[s] = float(np.sum(sv[:5] ** 2) / np.sum(sv ** 2))
# The shape alone: random rows with the table's own mean and covariance (20 draws), their nearest cosines.
shape = {}
for s in (steps[1], steps[-1]):
    mu, cov = tables[s].mean(axis=0), np.cov(tables[s], rowvar=False)
    shape[s] = float(np.mean([np.mean(np.sort(cosine_matrix(rng_shape.multivariate_normal(mu, cov, size=V)), axis=1)[:, -2])
                              for _ in range(20)]))
sizes = np.array([kinds.count(c) for c in set(kinds)])
random_same = float(np.sum(sizes * (sizes - 1)) / (V * (V - 1)))   # a random other row's chance to be of one's kind

# What random directions give: the largest of V - 1 cosines between one direction and independent uniform
# ones in d dimensions, whose density is proportional to (1 - t^2)^((d - 3)/2): E[max] = 1 - int F(t)^(V-1) dt.
t = np.linspace(-1.0, 1.0, 400_001)
f = (1 - t * t) ** ((d - 3) / 2)
F = np.concatenate([[0.0], np.cumsum((f[1:] + f[:-1]) / 2 * np.diff(t))])
F /= F[-1]
chance = 1.0 - float(np.sum((F[1:] ** (V - 1) + F[:-1] ** (V - 1)) / 2 * np.diff(t)))
rng = np.random.default_rng(11)                                    # the same by simulation: fresh N(0, 1) tables
draws = [np.sort(cosine_matrix(rng.normal(size=(V, d)))[0, 1:])[-1] for _ in range(400)]
se = float(np.std(draws) / np.sqrt(len(draws)))
print(check_close(f"E[largest of {V - 1} cosines] in d = {d} (the integral) = the mean of 400 simulated tables, "
                  "within 4 standard errors", chance, float(np.mean(draws)), atol=4 * se))
init = init_gpt2(TRAIN["seed"], V, TRAIN["T"], d, TRAIN["L"], TRAIN["n_heads"], dtype=np.float64)["E"]
print(check_equal("the table at step 0 = GPT-2's initialisation (esm.backprop.init_gpt2, the run's seed)",
                  bool(np.array_equal(snaps[0]["E"], init)), True))

# Two settings by a loop of explicit dot products (math.fsum), sorted, ties to the lower index.
for i, j in ((2, 0), (0, 1)):
    E, r = tables[steps[j]], tokens.index(probes[i])
    cos = sorted(((math.fsum(a * b for a, b in zip(E[r], E[n]))
                   / math.sqrt(math.fsum(a * a for a in E[r]) * math.fsum(b * b for b in E[n])), -n)
                  for n in range(V) if n != r), reverse=True)
    print(check_equal(f"the {k} nearest to {visible(probes[i])!r} at step {steps[j]} = by a loop of dot products",
                      [-n for _, n in cos[:k]], [n for n, _ in near[(i, j)]]))

end, first = steps[-1], steps[1]
pair = [tokens[n] for n, _ in near[(0, len(steps) - 1)][:2]]
DETERMINERS = {" a", " an", " my", " his", " her", " thy", " your", " our", " their", " this", " that", " no"}
print(check_true("the two nearest to ' the' at the end are determiners (a hand list)", set(pair) <= DETERMINERS, f"{pair}"))
print(check_less(f"the mean nearest cosine falls from step {first} to the end", nearest[end], nearest[first],
                 names=(f"step {end}", f"step {first}")))
# The same measures over the recorded sweep of the run (tools/seed_sweep.py): this run is the record's
# run of its seed, and which tokens end nearest to ' the' is the seed's.
sweep = record("p11")
print(check_true(f"this run's table measures (seed {TRAIN['seed']}) = the record's ({sweep.cited()})",
                 *sweep.matches(TRAIN["seed"], {f"{m}_{lab}": v[s] for m, v in (("near", nearest), ("same", same), ("top5", top5))
                                                for lab, s in (("0", 0), ("first", first), ("end", end))}
                                | {"the_determiners": float(set(pair) <= DETERMINERS)})))
# The prose's reading of the table below, on every recorded run: from step 50 to the end the nearest cosines
# and the top-5 share fall, while the share of neighbours of one's own kind stays above half.
runs = sweep.per_seed.values()
print(check_true("on every recorded run the mean nearest cosine and the top-5 share fall from step 50 to the end",
                 all(v["near_end"] < v["near_first"] and v["top5_end"] < v["top5_first"] for v in runs),
                 f"{len(sweep.seeds)} runs"))
print(check_less(f"on every recorded run, at step {first} and at the end, more than half of a row's {k} nearest are of its kind "
                 f"on average over the {V} rows", 0.5, min(min(v["same_first"], v["same_end"]) for v in runs),
                 names=("1/2", "smallest mean share")))
per_row = {s: np.array([np.mean([kinds[n] == kinds[r] for n in top_k(cosine_matrix(tables[s])[r], k, exclude=[r])])
                        for r in range(V)]) for s in (first, end)}
print(check_close(f"the mean share is the mean of the {V} rows' shares (step {first} and the end)",
                  [float(per_row[first].mean()), float(per_row[end].mean())], [same[first], same[end]], atol=1e-12))
few = {first: int(np.sum(per_row[first] <= 0.4))}                 # rows with at most 2 of their 5 nearest of their kind
print(glue("nb_same_first", same[first], ".0%"), glue("nb_few_first", few[first]))
# The four measures at three points of the run, as a table (at step 0 the rows are random draws themselves).
print(table(["step", "validation loss", "nearest cosine (mean)", "the same for random rows of the table's shape",
             f"of the {k} nearest, share of one's own kind", "variance on the first 5 principal directions"],
            [[f"{s}", f"{val[s]:.3f}", f"{nearest[s]:.2f}", f"{shape[s]:.2f}" if s in shape else "(random)", f"{same[s]:.0%}", f"{top5[s]:.0%}"]
             for s in (0, first, end)]))
moved = [visible(p) for i, p in enumerate(probes)
         if len({n for n, _ in near[(i, 1)]} & {n for n, _ in near[(i, len(steps) - 1)]}) <= 2]
print(glue("nb_near0", nearest[0], ".2f"), glue("nb_chance", chance, ".2f"), glue("nb_first", first),
      glue("nb_d", d), glue("nb_V", V), glue("nb_V1", V - 1), glue("nb_same_random", random_same, ".0%"),
      glue("nb_moved", ", ".join(f"`{p}`" for p in moved)),
      glue("nb_the_first", ", ".join(f"`{visible(tokens[n])}`" for n, _ in near[(0, 1)])),
      glue("nb_the_end", " and ".join(f"`{visible(p)}`" for p in pair)),
      glue("nb_det_runs", round(sum(sweep.values("the_determiners").values()))), sep="")
