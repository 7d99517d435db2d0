"""P1 Key takeaways, with the sizes of two published embedding tables computed."""
from esm import check_equal, table

V = 50257                                   # the GPT-2 / GPT-3 byte-pair vocabulary
widths = {"GPT-2 small": 768, "GPT-3 175B": 12288}
size = {name: V * d for name, d in widths.items()}
# Independent route: GPT-2 small's published total (124,439,808) minus everything that is not the token
# table (12 blocks of 12 d^2 + 13 d, 1,024 position rows, the final layer norm; chapter P8).
d, L, T_max = widths["GPT-2 small"], 12, 1024
print(check_equal("GPT-2 small table = published total minus blocks, position table and final norm",
                  size["GPT-2 small"], 124_439_808 - L * (12 * d * d + 13 * d) - T_max * d - 2 * d))
print(table(("concept", "what it means", "in numbers"), [
    ("embedding", "a learned vector that stands for one token", "one row $E_{i,:}$ of $E$"),
    ("embedding dimension $d$", "how many numbers each token gets",
     ", ".join(f"{d:,} ({n})" for n, d in widths.items())),
    ("table size", r"$\lvert\mathcal V\rvert\,d$ trainable numbers",
     ", ".join(f"{s:,} ({n})" for n, s in size.items())),
    ("semantic similarity", "related tokens get rows with a high cosine", "higher for related rows than for unrelated ones; the baseline depends on the table (where all rows share "
     "a common direction, unrelated rows also score well above 0)"),
    ("lookup table", "the embedding of id $i$ is row $i$; no arithmetic on the id", r"$\mathbf e_i^\top E=E_{i,:}$"),
]))
