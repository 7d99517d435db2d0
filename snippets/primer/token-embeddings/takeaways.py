"""P1 Key takeaways, with the sizes of two published embedding tables computed."""
from esm import check_equal, table

V = 50257                                   # the GPT-2 / GPT-3 byte-pair vocabulary
widths = {"GPT-2 small": 768, "GPT-3 175B": 12288}
size = {name: V * d for name, d in widths.items()}
# Independent count: rows times a loop-sum of ones along a row.
print(check_equal("GPT-2 small table: 50,257 rows of 768 numbers", size["GPT-2 small"], V * sum(1 for _ in range(768))))
print(table(("concept", "what it means", "in numbers"), [
    ("embedding", "a learned vector that stands for one token", "one row $E_{i,:}$ of $E$"),
    ("embedding dimension $d$", "how many numbers each token gets",
     ", ".join(f"{d:,} ({n})" for n, d in widths.items())),
    ("table size", r"$\lvert\mathcal V\rvert\,d$ trainable numbers",
     ", ".join(f"{s:,} ({n})" for n, s in size.items())),
    ("semantic similarity", "related tokens get rows with a high cosine", "cosine near 1 for related rows, near 0 for unrelated ones"),
    ("lookup table", "the embedding of id $i$ is row $i$; no arithmetic on the id", r"$\mathbf e_i^\top E=E_{i,:}$"),
]))
