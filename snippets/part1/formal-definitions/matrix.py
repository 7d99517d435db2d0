"""2.1 Embedding matrix: row i of E is the vector of token i; the table has |V| d parameters."""
import numpy as np

from esm import check_close, check_equal, shape_table

V, d = 5, 4
E = np.arange(V * d, dtype=np.float32).reshape(V, d)   # rows 0..4; row 3 is [12, 13, 14, 15]
i = 3

print(shape_table({"V": V, "d": d}, [
    ("embedding table", "E", E, "V d", "one row per token id"),
    ("row of token 3", "E_{3,:}", E[i], "d", "the vector of token 3"),
    ("column 1", "E_{:,1}", E[:, 1], "V", "coordinate 1 of every token: not a token"),
]))

print(check_close("row 3 read as E[3] equals its d entries read one by one",
                  E[i], np.array([E[i, j] for j in range(d)]), eq="embedding-matrix"))
print(check_close("row 3 of the demo table is [12, 13, 14, 15]", E[i], [12, 13, 14, 15]))
# Rows are contiguous in memory (C order): row i starts i * d * 4 bytes after row 0.
offset = E[i].__array_interface__["data"][0] - E.__array_interface__["data"][0]
print(check_equal("row 3 starts 3 x 4 x 4 = 48 bytes into the buffer (rows are contiguous)",
                  offset, i * d * E.itemsize))

# The size of a 50,000 x 4,096 table, without allocating it: a broadcast view has the shape only.
big = np.broadcast_to(np.float32(0), (50_000, 4_096))
rows_summed = sum(4_096 for _ in range(50_000))        # one row of 4,096 numbers per token
print(check_equal("50,000 x 4,096 table: parameters (view size vs a sum over rows)",
                  big.size, rows_summed, eq="embedding-matrix"))
print(check_equal("that is 204.8 million parameters", big.size / 1e6, 204.8))
print(check_equal("an untied output head of the same shape doubles it (millions)",
                  2 * big.size / 1e6, 409.6))
print(check_equal("GPT-2 small: 50,257 x 768 = 38,597,376 parameters (published)",
                  np.broadcast_to(np.float32(0), (50_257, 768)).size, 38_597_376))
