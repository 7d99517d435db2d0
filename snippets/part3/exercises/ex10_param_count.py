"""Exercise 10.10: embedding parameters, tied and untied, for GPT-2 small and Llama 2 7B."""
from esm import check_equal, table

def count(V, d, tied, T_max=0):
    return V * d * (1 if tied else 2) + T_max * d

g_tied, g_untied = count(50257, 768, True, 1024), count(50257, 768, False, 1024)
l_untied, l_tied = count(32000, 4096, False), count(32000, 4096, True)
print(table(("model", "tied", "untied", "difference"),
            [("GPT-2 small", f"{g_tied:,}", f"{g_untied:,}", f"{g_untied - g_tied:,}"),
             ("Llama 2 7B", f"{l_tied:,}", f"{l_untied:,}", f"{l_untied - l_tied:,}")]))
print(check_equal("(b) GPT-2 small as released (tied): 50,257 x 768 + 1,024 x 768", g_tied, 39_383_808))
print(check_equal("(b) Llama 2 7B as released (untied): 2 x 32,000 x 4,096", l_untied, 262_144_000))
print(check_equal("(c) tying would save Llama 2 7B one table, 131,072,000 parameters",
                  l_untied - l_tied, 131_072_000))
print(f"\nShares of the published totals: GPT-2 small {g_tied / 124_439_808:.1%}, "
      f"Llama 2 7B {l_untied / 6_738_415_616:.1%}.")
