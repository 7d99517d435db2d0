"""Fix of the debugging exercise on a vocabulary migration (8.5): the new vocabulary is sorted, so
appending rows gave kept tokens other tokens' rows. Rows are moved by token string; the same check passes."""
import numpy as np

from esm import check_close, glue

old_vocab = ["the", "cat", "sat", "on", "mat"]
new_vocab = sorted(old_vocab + ["dog", "ran"])          # the new tokenizer's file: ids by sorted order
old_id = {tok: i for i, tok in enumerate(old_vocab)}
new_id = {tok: i for i, tok in enumerate(new_vocab)}
E_old = np.arange(len(old_vocab) * 2, dtype=float).reshape(-1, 2)   # row i = (2i, 2i + 1)


def check_migration(E_new):
    """Every token of both vocabularies must read, under its new id, the row it had under its old id."""
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
moved = [t for t in old_vocab if new_id[t] != old_id[t]]
print(glue("mig_moved", ", ".join(f"'{t}'" for t in moved)), glue("mig_n", len(moved)), sep="")
