"""Exercise: one-hot product equals lookup, and what it would cost at GPT-2 size."""
import numpy as np

from esm import check_close, check_equal, glue, numerical_grad, one_hot, shape_table

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
print(check_close("(a) O E equals E[ids] (indexing)", OH @ E, E[ids], atol=0.0))


def product_macs(O, M):
    """Multiply-adds of O @ M counted by running the product as three loops."""
    count, out = 0, np.zeros((O.shape[0], M.shape[1]))
    for t in range(O.shape[0]):
        for j in range(M.shape[1]):
            for v in range(O.shape[1]):
                out[t, j] += O[t, v] * M[v, j]
                count += 1
    return count, out


macs_small, out = product_macs(OH, E)
print(check_equal("(b) the loop counts T |V| d multiply-adds for this small case", macs_small,
                  len(ids) * V * d))
T_g, V_g, d_g = 1024, 50257, 768                # GPT-2 small's vocabulary and width, one 1,024-token sequence
G = rng.normal(0.0, 1.0, (len(ids), d))
grad = OH.T @ G
num = numerical_grad(lambda table: float(np.sum(G * (OH @ table))), E.copy())   # independent: central differences
print(check_close("(c) O^T G equals the finite-difference gradient of l(E) = sum(G * (O E)) over all of E", grad, num,
                  atol=1e-8))
print(check_close("(c) consequence: gradient rows of unused ids are exactly zero", grad[[1, 3, 4, 5]],
                  np.zeros((4, d)), atol=0.0))
print(check_close("(c) consequence: row 2, used twice, gets the sum of two position gradients", grad[2],
                  G[0] + G[2], atol=1e-12))
print(glue("e2_macs", T_g * V_g * d_g, ","), glue("e2_macs_sci", float(T_g * V_g * d_g), ".0e"),
      glue("e2_zero", 1 - 1 / V_g, ".3%"), glue("e2_small", macs_small), sep="")
