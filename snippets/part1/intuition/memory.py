"""1.3 Embedding space as model memory: the table's size in parameters and in bytes."""
import numpy as np

from esm import check_equal, shape_table, table

# The table really stored in memory: a small one, in three number formats.
V, d = 1000, 64
rng = np.random.default_rng(13)
E32 = rng.normal(0.0, 0.02, (V, d)).astype(np.float32)
E16 = E32.astype(np.float16)
E8 = np.clip(np.round(E32 / (np.abs(E32).max() / 127)), -127, 127).astype(np.int8)

print(shape_table({"V": V, "d": d}, [
    ("embedding table, fp32", "E", E32, "V d", "4 bytes per number"),
    ("the same table, fp16", "", E16, "V d", "2 bytes per number"),
    ("the same table, int8", "", E8, "V d", "1 byte per number (plus a scale)"),
    ("one row", "E_{i,:}", E32[0], "d", "what the table remembers about one token"),
]))


def table_bytes(n_rows, width, bits):
    """bytes = |V| d b / 8."""
    return n_rows * width * bits // 8


for name, arr, bits in (("fp32", E32, 32), ("fp16", E16, 16), ("int8", E8, 8)):
    print(check_equal(f"{name}: |V| d b/8 equals the bytes numpy allocated for the array",
                      table_bytes(V, d, bits), arr.nbytes, eq="table-memory"))

# Published sizes: GPT-2 small (Radford et al., 2019; 124,439,808 parameters in all),
# BERT-base uncased (vocabulary 30,522), Llama 2 7B (vocabulary 32,000, width 4,096).
models = [("GPT-2 small", 50_257, 768), ("BERT-base", 30_522, 768), ("Llama 2 7B", 32_000, 4_096)]
print(check_equal("GPT-2 small: 50,257 x 768 is the published 38,597,376 token-embedding parameters",
                  50_257 * 768, 38_597_376))
share = 38_597_376 / 124_439_808
print(check_equal("GPT-2 small: share of all 124,439,808 parameters held by the token table (%)",
                  round(100 * share, 1), 31.0))
rows = []
for name, nv, nd in models:
    rows.append((name, f"{nv:,}", f"{nd:,}", f"{nv * nd:,}",
                 f"{table_bytes(nv, nd, 32) / 1e6:,.1f}", f"{table_bytes(nv, nd, 16) / 1e6:,.1f}",
                 f"{table_bytes(nv, nd, 8) / 1e6:,.1f}"))
print(table((r"model", r"$\lvert\mathcal V\rvert$", "$d$", "parameters", "MB fp32", "MB fp16", "MB int8"), rows))
