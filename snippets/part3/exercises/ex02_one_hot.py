"""Exercise 10.2: one-hot product equals lookup, and what it would cost at GPT-2 size."""
import numpy as np

from esm import check_close, check_equal, one_hot, shape_table

rng = np.random.default_rng(102)
V, d = 7, 3
E = rng.normal(0.0, 1.0, (V, d))
ids = np.array([2, 6, 2, 0])
OH = one_hot(ids, V)

print(shape_table({"T": len(ids), "V": V, "d": d}, [
    ("one-hot rows", "O", OH, "T V", "a single 1 per row"),
    ("table", "E", E, "V d", ""),
    ("product", "OE", OH @ E, "T d", "equals $E[\\mathbf i]$"),
]))
print(check_close("(b) O E equals E[ids] (indexing)", OH @ E, E[ids], atol=0.0))
# Cost of the product at GPT-2 size for one sequence of 1,024 tokens: T |V| d multiply-adds.
T, Vg, dg = 1024, 50257, 768
macs = T * Vg * dg
print(check_equal("(b) T |V| d multiply-adds for T = 1,024 at GPT-2 size", macs, 39_523_713_024))
# Gradient of sum(O E * G) with respect to E is O^T G: only the rows in ids get anything.
G = rng.normal(0.0, 1.0, (len(ids), d))
grad = OH.T @ G
print(check_close("(c) gradient rows of unused ids are exactly zero", grad[[1, 3, 4, 5]],
                  np.zeros((4, d)), atol=0.0))
print(check_close("(c) row 2, used twice, gets the sum of two position gradients", grad[2],
                  G[0] + G[2], atol=1e-12))
