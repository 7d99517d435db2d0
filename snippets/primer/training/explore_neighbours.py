"""P11 explorable: a token's nearest rows of the token table by cosine, at five points of the run
(the copies the run keeps, and its end), beside the validation loss there. Every setting is
computed here; the browser shows the chosen one."""
import math

import numpy as np

from esm import check_equal, check_less, cosine_matrix, glue, top_k
from esm.explore import Control, bar, explorable, out
from esm.train import SNAPSHOTS, TRAIN, VOCAB_SIZE, data, trained

D = data()
V, d = VOCAB_SIZE, TRAIN["d"]
model, curve, evals, snaps = trained(D.train, D.val, V, TRAIN, snapshots=SNAPSHOTS)
steps = [*SNAPSHOTS, TRAIN["steps"]]
tables = {s: snaps[s]["E"].astype(float) for s in SNAPSHOTS} | {TRAIN["steps"]: model["E"].astype(float)}
val = {int(s): float(v) for s, _, v in evals}                 # the validation loss, every eval_every steps
tokens = list(D.alphabet) + [a + b for a, b in D.merges]
probes = [" the", " and", " I", "ing", "ed", ",", ".", "A"]
k = 5


def shown(t):
    return t.replace(" ", "␣").replace("\n", "↵")


near, states = {}, {}
for j, s in enumerate(steps):
    C = cosine_matrix(tables[s])
    for i, t in enumerate(probes):
        r = tokens.index(t)
        near[(i, j)] = [(int(n), float(C[r, n])) for n in top_k(C[r], k, exclude=[r])]
        states[(i, j)] = ([shown(tokens[n]) for n, _ in near[(i, j)]] + [f"{c:.2f}" for _, c in near[(i, j)]]
                          + [f"{100 * max(c, 0.0):.1f}%" for _, c in near[(i, j)]] + [f"{val[s]:.2f}"])

default = (0, len(steps) - 1)
dft = states[default]
rows = ['<span class="esm-explore__head">nearest rows</span><span class="esm-explore__head">cosine</span>'
        '<span class="esm-explore__head">value</span>']
rows += [f'<span>{m + 1}. {out(m, dft[m], tag="code")}</span>{bar(2 * k + m, dft[2 * k + m])}{out(k + m, dft[k + m])}'
         for m in range(k)]
body = (f'<div class="esm-explore__rows esm-explore__rows--stack">{"".join(rows)}</div>'
        f'<p class="esm-explore__sum" aria-live="polite">Validation loss at this step: {out(3 * k, dft[3 * k])} nats '
        f'({val[0]:.2f} at step 0).</p>')
controls = [Control("token", [shown(t) for t in probes], kind="select", say=[f"token {shown(t)}" for t in probes],
                    shown=[f"token {shown(t)}" for t in probes]),
            Control("training step", steps, default=len(steps) - 1, say=[f"step {s}" for s in steps],
                    shown=[f"step {s}" for s in steps])]
print(explorable(controls, body, states=states,
                 caption=f"The {k} rows of the tiny GPT's token table nearest to a token's row by cosine, at five "
                         f"points of its {TRAIN['steps']}-step run (␣ is a space, ↵ a line break). Bars span "
                         "cosine 0 to 1."))

# Two settings by a loop of explicit dot products (math.fsum), sorted.
for i, j in ((2, 0), (0, 1)):
    E, r = tables[steps[j]], tokens.index(probes[i])
    cos = sorted(((math.fsum(a * b for a, b in zip(E[r], E[n]))
                   / math.sqrt(math.fsum(a * a for a in E[r]) * math.fsum(b * b for b in E[n])), n)
                  for n in range(V) if n != r), reverse=True)
    print(check_equal(f"the {k} nearest to {shown(probes[i])!r} at step {steps[j]} = by a loop of dot products",
                      [n for _, n in cos[:k]], [n for n, _ in near[(i, j)]]))

# What random directions give: the largest cosine of one row with the others in fresh N(0, 1) tables of
# the same shape (another seed, many draws), against the step-0 table, which is such a draw.
rng = np.random.default_rng(11)
chance = float(np.mean([np.sort(cosine_matrix(rng.normal(size=(V, d)))[0, 1:])[-1] for _ in range(400)]))
top1 = {s: float(np.mean([near[(i, j)][0][1] for i in range(len(probes))])) for j, s in enumerate(steps)}
print(check_less(f"step 0's nearest cosines are within 0.05 of the largest of {V - 1} random cosines in d = {d}",
                 abs(top1[0] - chance), 0.05, names=("|difference|", "0.05")))
first = steps[1]
print(glue("nb_top0", top1[0], ".2f"), glue("nb_chance", chance, ".2f"), glue("nb_first", first),
      glue("nb_val_first", val[first], ".3f"), glue("nb_top_first", top1[first], ".2f"),
      glue("nb_top_end", top1[TRAIN["steps"]], ".2f"), glue("nb_d", d), glue("nb_V1", V - 1),
      glue("nb_the_first", ", ".join(f"`{shown(tokens[n])}`" for n, _ in near[(0, 1)])),
      glue("nb_the_end", " and ".join(f"`{shown(tokens[n])}`" for n, _ in near[(0, len(steps) - 1)][:2])), sep="")
