"""Debugging exercise: a vocabulary migration. The broken code runs; the check it fails (every kept
token reads its old row) is printed as the expected failure."""
import numpy as np

from esm import check_close, check_equal, expect_failure

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


def migrate_broken(E_old):
    new_rows = np.tile(E_old.mean(axis=0), (len(new_vocab) - len(old_vocab), 1))
    return np.vstack([E_old, new_rows])                  # the old rows, then one mean row per new token


def run_broken():
    return check_migration(migrate_broken(E_old))


print(check_equal("the broken migration runs and gives one row per new token (the bug is silent)",
                  migrate_broken(E_old).shape, (len(new_vocab), 2)))
print(expect_failure(run_broken))
