"""2.1 Embedding matrix: row i of E is the vector of token i; the table has |V| d parameters."""
import numpy as np

from esm import check_close, check_equal, glue, shape_table

V, d = 5, 4
E = np.arange(V * d, dtype=np.float32).reshape(V, d)   # entry (i, k) is d i + k
i = 3

print(shape_table({"V": V, "d": d}, [
    ("embedding table", "E", E, "V d", "one row per token id"),
    ("row of token 3", "E_{3,:}", E[i], "d", "the vector of token 3"),
    ("column 1", "E_{:,1}", E[:, 1], "V", "coordinate 1 of every token: not a token"),
]))

by_hand = [d * i + k for k in range(d)]                  # entry (i, k) of this table is d i + k
print(check_close(f"row {i} read as E[{i}] equals the entries d i + k written by hand", E[i], by_hand,
                  atol=0.0, eq="embedding-matrix"))
# Rows are contiguous in memory (C order): row i starts i d (bytes per number) after row 0,
# measured here from the addresses numpy reports, and the d numbers of a row sit side by side.
offset = E[i].__array_interface__["data"][0] - E.__array_interface__["data"][0]
print(check_equal(f"row {i} starts {offset} bytes into the buffer = i x d x 4 bytes",
                  offset, i * d * 4))
print(check_equal("the numbers of one row are adjacent (stride between coordinates, bytes)",
                  E.strides[1], 4))

# The size of a 50,000 x 4,096 table: the product |V| d, arithmetic only (no check: comparing the
# product with a sum of |V| rows of d numbers would compare |V| d with itself).
V_big, d_big = 50_000, 4_096
big_size = V_big * d_big

print(glue("mat_d", d))
print(glue("mat_i", i))
print(glue("mat_offset", offset))
print(glue("big_V", V_big, ","))
print(glue("big_d", d_big, ","))
print(glue("big_params_m", big_size / 1e6, ".1f"))
print(glue("big_untied_m", 2 * big_size / 1e6, ".1f"))
