"""P4 Softmax of the scores (2, 4, 1), step by step, against math.exp."""
import math

import numpy as np

from esm import check_close, check_equal, glue, softmax, table

s = np.array([2.0, 4.0, 1.0])
e = [math.exp(v) for v in s]
total = sum(e)
a = softmax(s)
print(table(("", "key 0", "key 1", "key 2", "sum"), [
    ("score $S_{ts}$", *[f"{v:g}" for v in s], ""),
    ("$e^{S_{ts}}$", *[f"{v:.3f}" for v in e], f"{total:.3f}"),
    ("weight $A_{ts}=e^{S_{ts}}/\\sum_{s'} e^{S_{ts'}}$", *[f"{v:.4f}" for v in a], f"{a.sum():.4f}"),
]))
print(check_close("esm.softmax equals exp / sum written with math.exp", a, np.array(e) / total, eq="softmax"))
source_sum, source_weights = 64.71, [0.11, 0.84, 0.04]            # as the source notes print them
print(glue("s", [int(v) for v in s]), glue("exps", e, ".3f"), glue("total", total, ".3f"), glue("weights", a, ".4f"),
      glue("ratio", float(a[1] / a[0]), ".2f"), glue("share", float(a[1]), ".0%"),
      glue("src_weights", source_weights, ".2f"), glue("src_sum", sum(source_weights), ".2f"))
print(check_close("the sum of exponentials rounds to the notes' 64.71", total, source_sum, atol=0.005))
print(check_equal("rounded to two decimals the weights are the notes' (0.11, 0.84, 0.04)",
                  [round(float(v), 2) for v in a], source_weights))
print(check_close("a gap of 2 in score is a factor e^2 = 7.39 in weight", a[1] / a[0], math.exp(2.0), atol=1e-12))
print(check_close("adding the same constant to every score changes nothing", softmax(s + 100.0), a, atol=1e-12))
