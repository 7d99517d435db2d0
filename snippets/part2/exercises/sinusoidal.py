"""Exercise: sinusoidal encodings, one entry by hand, and the shift as a rotation."""
import numpy as np

from esm import check_close, glue, shape_table, sinusoidal_positions

T, d = 8, 6
PE = sinusoidal_positions(T, d)
print(shape_table({"T": T, "d": d}, [("encodings", "P", PE, "T d", "row p encodes position p")]))
print(check_close("(a) PE[3, 2] = sin(3 / 10000^(2/6))", PE[3, 2], np.sin(3 / 10000 ** (2 / 6)), atol=1e-15))
print(check_close("(a) PE[1, 0] = sin(1)", PE[1, 0], np.sin(1.0), atol=1e-15))
# Shift by k: each pair (sin, cos) at frequency w rotates by the angle k w, whatever p is.
k = 3
M = np.zeros((d, d))
for j in range(d // 2):
    w = 10000 ** (-2 * j / d)
    c, s = np.cos(k * w), np.sin(k * w)
    M[2 * j:2 * j + 2, 2 * j:2 * j + 2] = [[c, s], [-s, c]]
print(check_close("(b) PE[p + 3] = M_3 PE[p] for every p (one matrix for all positions)",
                  PE[:T - k] @ M.T, PE[k:], atol=1e-12))
print(f"\nrow 3: {np.round(PE[3], 4)}")
print(glue("e7_T", T), glue("e7_d", d), glue("e7_pe10", PE[1, 0], ".4f"), glue("e7_pe32", PE[3, 2], ".4f"),
      glue("e7_den", 10000 ** (2 / 6), ".2f"), glue("e7_k", k), sep="")
