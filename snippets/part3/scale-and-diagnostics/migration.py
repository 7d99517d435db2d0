"""8.5 Migration and compatibility tests: moving an embedding table from one tokenizer's ids
to another's, and the invariants that say it was done right."""
import numpy as np

from esm import check_close, check_equal, glue, shape_table, table


def migrate(E, old_vocab, new_vocab):
    """Table for ``new_vocab`` (a list of token strings, index = new id): rows of strings that
    the old vocabulary had are copied from their old id; new strings get the mean old row.
    Returns ``(E_new, pi)`` with ``pi[j]`` the old id of new id j, or -1 for a new string."""
    old_id = {tok: i for i, tok in enumerate(old_vocab)}
    pi = np.array([old_id.get(tok, -1) for tok in new_vocab])
    E_new = np.where((pi >= 0)[:, None], E[np.maximum(pi, 0)], E.mean(axis=0))
    return E_new, pi


def encode(text, vocab):
    """A toy whitespace tokenizer: one id per word."""
    index = {tok: i for i, tok in enumerate(vocab)}
    return np.array([index[w] for w in text.split()])


old_vocab = ["<pad>", "<unk>", "the", "cat", "sat", "on", "mat", "dog", "ran", "a"]
new_vocab = ["<pad>", "<unk>", "<bos>", "a", "the", "dog", "cat", "ran", "sat", "on", "rug", "<eos>"]
rng = np.random.default_rng(85)
d = 6
E = rng.normal(0.0, 1.0, (len(old_vocab), d))
E_new, pi = migrate(E, old_vocab, new_vocab)

print(shape_table({"V_{\\mathrm{old}}": len(old_vocab), "V_{\\mathrm{new}}": len(new_vocab), "d": d}, [
    ("old table", "E", E, "V_{\\mathrm{old}} d", "rows addressed by old ids"),
    ("id map", r"\pi", pi, "V_{\\mathrm{new}}", "old id of each new id, -1 if the string is new"),
    ("new table", "E'", E_new, "V_{\\mathrm{new}} d", "rows addressed by new ids"),
]))
print(table(("new id", "string", "old id", "row"),
            [(j, f"`{t}`", pi[j] if pi[j] >= 0 else "new", "copied" if pi[j] >= 0 else "mean row")
             for j, t in enumerate(new_vocab)]))

# Invariant 1: every string both vocabularies share keeps its row (loop over strings).
shared = [t for t in new_vocab if t in old_vocab]
print(check_close(f"each of the {len(shared)} shared strings has the same row under its new id",
                  np.array([E_new[new_vocab.index(t)] for t in shared]),
                  np.array([E[old_vocab.index(t)] for t in shared]), atol=0.0, eq="migrate"))
# Invariant 2: a text made of shared strings embeds to the same vectors through either path.
text = "the dog sat on a cat"
print(check_close(f"'{text}': E[old ids] equals E'[new ids]", E[encode(text, old_vocab)],
                  E_new[encode(text, new_vocab)], atol=0.0))
# Invariant 3: new strings start at the mean old row; dropped strings ("mat") leave no row.
new_rows = [j for j, t in enumerate(new_vocab) if t not in old_vocab]
print(check_close(f"the {len(new_rows)} new strings ({', '.join(new_vocab[j] for j in new_rows)}) start at the mean old row",
                  E_new[new_rows], np.tile(E.sum(0) / len(E), (len(new_rows), 1)), atol=1e-12))
# Together, invariants 1 and 3 pin down every row of E' only if shared and new ids cover all new ids once
# (a vocabulary with a repeated string would break this; E_new.shape alone would not show it).
shared_ids = [new_vocab.index(t) for t in shared]
print(check_equal("invariants 1 and 3 cover every new id exactly once (shared ids + new ids = 0 .. |V_new| - 1)",
                  sorted(shared_ids + new_rows), list(range(len(new_vocab)))))
# The wrong migration: keep the old table and address it with new ids (all below the old |V| here,
# so the lookup raises nothing).
wrong = E[encode(text, new_vocab)]
moved = int(np.sum(np.any(wrong != E[encode(text, old_vocab)], axis=1)))
print(check_equal("reusing the old table with new ids gives wrong rows to every word of the text",
                  moved, len(text.split())))
dropped = [t for t in old_vocab if t not in new_vocab]
print(glue("mg_text", text),
      glue("mg_old_ids", encode(text, old_vocab)), glue("mg_new_ids", encode(text, new_vocab)),
      glue("mg_n", len(text.split())), glue("mg_moved", moved), sep="")
