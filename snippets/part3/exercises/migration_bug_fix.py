"""Fix of the debugging exercise on a vocabulary migration (8.5): the new vocabulary is sorted, so
appending rows gave kept tokens other tokens' rows. Rows are moved by token string; the same check passes."""
from itertools import permutations

import numpy as np

from esm import check_close, check_equal, check_true, glue

old_vocab = ["the", "cat", "sat", "on", "mat"]
new_vocab = sorted(old_vocab + ["dog", "ran"])          # the new tokenizer's file: ids by sorted order
old_id = {tok: i for i, tok in enumerate(old_vocab)}
new_id = {tok: i for i, tok in enumerate(new_vocab)}
E_old = np.array([[i * i, 2 * i + 1] for i in range(len(old_vocab))], dtype=float)   # row i = (i^2, 2i + 1)


def check_migration(E_new):
    """Every kept token must read, under its new id, the row it had under its old id."""
    got = np.array([E_new[new_id[t]] for t in old_vocab])
    return check_close("every kept token reads its old row under its new id (lookup by token string)", got, E_old,
                       atol=0.0)


def migrate_fixed(E_old):
    E_new = np.tile(E_old.mean(axis=0), (len(new_vocab), 1))   # new tokens start at the mean row
    for tok, i in old_id.items():
        E_new[new_id[tok]] = E_old[i]                    # kept tokens: moved by string, not by id
    return E_new


def run_fixed():
    return check_migration(migrate_fixed(E_old))


print(run_fixed())
# The mean row, by hand from the rule: mean of i^2 over 0..4 is 30/5 = 6, mean of 2i + 1 is 25/5 = 5 (no old row).
E_fix = migrate_fixed(E_old)
print(check_close('the new tokens "dog" and "ran" read the mean row (6, 5), computed by hand from the rule',
                  E_fix[[new_id["dog"], new_id["ran"]]], [[6.0, 5.0], [6.0, 5.0]], atol=0.0))
print(check_true("the mean row is none of the old rows, so the check can tell a kept token from a new one",
                 not any(np.array_equal(E_old.mean(axis=0), row) for row in E_old), f"mean row {E_old.mean(axis=0)}"))
# (a) what each token reads after the broken migration (old rows in place, then two mean rows), by comparing rows.
E_broken_sorted = np.vstack([E_old, np.tile(E_old.mean(axis=0), (2, 1))])
reads = {}
for tok in new_vocab:
    row = E_broken_sorted[new_id[tok]]
    owners = [t for t in old_vocab if np.array_equal(E_old[old_id[t]], row)]
    reads[tok] = owners[0] if owners else "the mean row"
print(check_equal("(a) 'cat' reads the old row of 'the' (old id 0 = new id of 'cat')", reads["cat"], old_vocab[new_id["cat"]]))
lost = [t for t in old_vocab if reads[t] == "the mean row"]
print(check_equal("(a) the kept tokens whose new id is past the old table read the mean row", lost,
                  [t for t in old_vocab if new_id[t] >= len(old_vocab)]))
# (b) every order of the seven tokens: how many kept tokens does the broken (append) migration give a wrong row?
wrong, passes = [], 0
for order in permutations(new_vocab):
    ids = {tok: i for i, tok in enumerate(order)}
    E_broken = np.vstack([E_old, np.tile(E_old.mean(axis=0), (2, 1))])       # the broken code, for this order
    bad = sum(not np.array_equal(E_broken[ids[t]], E_old[old_id[t]]) for t in old_vocab)
    wrong.append(bad)
    passes += bad == 0
print(check_close("(b) mean number of kept tokens with a wrong row over all 7! orders = 5 (1 - 1/7) = 30/7",
                  float(np.mean(wrong)), 30 / 7, atol=1e-12))
print(check_equal("(b) orders for which the broken migration passes = 2 (old tokens first, in their old order)",
                  passes, 2))
moved = [t for t in old_vocab if new_id[t] != old_id[t]]
print(glue("mig_moved", ", ".join(f"'{t}'" for t in moved)), glue("mig_n", len(moved)),
      glue("mig_reads", ", ".join(f"'{t}' reads " + (r if r == "the mean row" else f"the row of '{r}'")
                                  for t, r in reads.items())),
      glue("mig_lost", " and ".join(f"'{t}'" for t in lost)),
      glue("mig_new_reads", " and ".join(f"'{t}' (the row of '{reads[t]}')" for t in ["dog", "ran"])),
      glue("mig_wrong_mean", float(np.mean(wrong)), ".2f"), glue("mig_orders", len(wrong)), glue("mig_pass", passes), sep="")
