"""What the trained token table learned: nearest neighbours, row length against frequency,
the mean cosine, and the frequency prior the tied head keeps in the table."""
import math

import numpy as np

from esm import (check_close, check_equal, check_less, check_true, cosine_matrix, glue, mean_pairwise_cosine, spearman,
                 table, top_k)
from esm.backprop import forward
from esm.sweeps import record
from esm.tokenizer import VOCAB_SIZE, data, visible
from esm.train import SNAPSHOTS, TRAIN, trained

D = data()
V = VOCAB_SIZE
model, curve, evals, snaps = trained(D.train, D.val, V, TRAIN, snapshots=SNAPSHOTS)
E, E0 = model["E"].astype(float), snaps[0]["E"].astype(float)
tokens = list(D.alphabet) + [a + b for a, b in D.merges]
count = np.bincount(D.train, minlength=V)


def shown(s):
    return f"`{visible(s)}`"


C = cosine_matrix(E)
probes = [" the", " I", "ing", ",", "A"]
rows = []
for t in probes:
    i = tokens.index(t)
    rows.append([shown(t), f"{count[i]:,}", " ".join(shown(tokens[j]) for j in top_k(C[i], 4, exclude=[i]))])
print(table(["token", "count in training", "4 nearest by cosine"], rows))
# One row by another route: cosines by math.fsum of products, sorted.
i = tokens.index(" the")
loop = sorted(((math.fsum(a * b for a, b in zip(E[i], E[j])) / math.sqrt(math.fsum(a * a for a in E[i]) * math.fsum(b * b for b in E[j])), j)
               for j in range(V) if j != i), reverse=True)
print(check_equal("nearest neighbours of ' the' = by a loop of explicit dot products", [j for _, j in loop[:4]],
                  top_k(C[i], 4, exclude=[i]).tolist()))


rho, rho0 = spearman(np.linalg.norm(E, axis=1), count), spearman(np.linalg.norm(E0, axis=1), count)
cos_bar, cos_bar0 = mean_pairwise_cosine(E), mean_pairwise_cosine(E0)
print(glue("rho", rho, ".2f"), glue("rho0", rho0, ".2f"), glue("cos_bar", cos_bar, ".3f"), glue("cos_bar0", cos_bar0, ".3f"))
sweep = record("p11")
rho_hi = math.ceil(sweep.spread("rho")[1] * 10) / 10               # the largest recorded rho, rounded up
print(check_less(f"row length and frequency: rank correlation below {rho_hi} after training (rarer tokens, longer rows; "
                 f"the largest of the {len(sweep.seeds)} recorded seeds, {sweep.spread('rho')[1]:.3f}, rounded up)", rho, rho_hi,
                 names=("Spearman rho", f"{rho_hi}")))
print(check_less("... and at initialisation within +-0.2 (no relation yet)", abs(rho0), 0.2, names=("|rho_0|", "0.2")))
off = ~np.eye(V, dtype=bool)
print(check_close("mean cosine over pairs (4.3's O(Nd) form) = mean of the off-diagonal cosine matrix", cos_bar,
                  float(C[off].mean()), atol=1e-12))

# The tied head: the logits are z_t = E h_t (h_t the final state), linear in h_t, so their mean over
# positions is E mu_f, mu_f the mean final state (a derivation, shown in the prose, not a check). It
# follows the token's frequency: the unigram prior lies mainly along one direction of the shared table.
starts = np.linspace(0, len(D.val) - TRAIN["T"] - 1, 32).astype(int)
x = np.stack([D.val[s:s + TRAIN["T"]] for s in starts])
_, (_, _, Xf, _) = forward(model, x, keep=True)
mu = Xf.reshape(-1, Xf.shape[-1]).mean(0).astype(float)
r_prior = float(np.corrcoef(E @ mu, np.log(count))[0, 1])
rho_prior = spearman(E @ mu, count)
print(glue("r_prior", r_prior, ".2f"), glue("rho_prior", rho_prior, ".2f"), glue("mu_norm", float(np.linalg.norm(mu)), ".1f"))
r_lo = math.floor(sweep.spread("r_prior")[0] * 10) / 10              # the smallest recorded r, rounded down
print(check_less(f"the mean logit E mu_f correlates with log frequency above {r_lo} (the smallest of the recorded seeds, "
                 f"{sweep.spread('r_prior')[0]:.3f}, rounded down)", r_lo, r_prior, names=(f"{r_lo}", "Pearson r")))
print(check_less("row lengths follow frequency more weakly than E mu_f does (rank correlations, the same measure)",
                 abs(rho), rho_prior, names=("|rho| of row length", "rho of E mu_f")))
sweep = record("p11")
print(check_true(f"this table's measures (seed {TRAIN['seed']}) = the record's ({sweep.cited()})",
                 *sweep.matches(TRAIN["seed"], {"rho": rho, "rho0": rho0, "cos_bar": cos_bar, "r_prior": r_prior,
                                                "rho_prior": rho_prior})))
