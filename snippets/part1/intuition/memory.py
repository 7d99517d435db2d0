"""1.3 Embedding space as model memory: the table's size in parameters and in bytes."""
import tracemalloc

import numpy as np

from esm import check_equal, glue, shape_table, table

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


def table_bytes(n_rows, width, n_bits):
    """bytes = |V| d n_bits / 8."""
    return n_rows * width * n_bits // 8


def allocated_bytes(dtype, shape):
    """The largest block the memory allocator hands out while numpy creates an array of this
    format and shape (tracemalloc sees numpy's allocations): its data buffer, measured, not
    computed from the array's own size and item size (which is what ndarray.nbytes is)."""
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    before = set(tracemalloc.take_snapshot().traces)
    a = np.empty(shape, dtype=dtype)
    new_blocks = set(tracemalloc.take_snapshot().traces) - before
    if not was_tracing:
        tracemalloc.stop()
    del a
    return max(t.size for t in new_blocks)


for name, arr, bits in (("fp32", E32, 32), ("fp16", E16, 16), ("int8", E8, 8)):
    print(check_equal(f"{name}: |V| d n_bits/8 equals the data block the allocator hands out for a "
                      f"{V} x {d} {arr.dtype} array (measured with tracemalloc)",
                      table_bytes(V, d, bits), allocated_bytes(arr.dtype, (V, d)), eq="table-memory"))

# GPT-2 small (Radford et al., 2019): |V| = 50,257, d = 768. Its whole parameter count is
# chapter P8's subject; this section needs only the table.
Vg, dg = 50_257, 768
print(glue("gpt2_V", Vg, ","))
print(glue("gpt2_d", dg))
print(glue("gpt2_table_params", Vg * dg, ","))
print(glue("gpt2_bytes_fp16", table_bytes(Vg, dg, 16), ","))
print(glue("gpt2_mb_fp32", table_bytes(Vg, dg, 32) / 1e6, ".0f"))
print(glue("gpt2_mb_fp16", table_bytes(Vg, dg, 16) / 1e6, ".0f"))
print(glue("gpt2_mb_int8", table_bytes(Vg, dg, 8) / 1e6, ".0f"))
print(glue("gpt2_row_bytes", table_bytes(1, dg, 32), ","))
added = 1_000

# Published sizes: BERT-base uncased (Devlin et al., 2019; vocabulary 30,522),
# Llama 2 7B (Touvron et al., 2023; vocabulary 32,000, width 4,096).
models = [("GPT-2 small", Vg, dg), ("BERT-base", 30_522, 768), ("Llama 2 7B", 32_000, 4_096)]
rows = []
for name, nv, nd in models:
    rows.append((name, f"{nv:,}", f"{nd:,}", f"{nv * nd:,}",
                 f"{table_bytes(nv, nd, 32) / 1e6:,.1f}", f"{table_bytes(nv, nd, 16) / 1e6:,.1f}",
                 f"{table_bytes(nv, nd, 8) / 1e6:,.1f}"))
print(table((r"model", r"$\lvert\mathcal V\rvert$", "$d$", "parameters", "MB fp32", "MB fp16", "MB int8"), rows))
