"""Exercise: memory of GPT-2 small's token table at three precisions, against a batch of
activations, counted from arrays of the released shapes."""
import math
import tracemalloc

import numpy as np

from esm import check_close, check_equal, check_true, glue, shape_table, table

V, d, T_max = 50257, 768, 1024                   # GPT-2 small (its released configuration)
B, T = 8, 1024                                   # a training batch
rows = []
nbytes = {}
allocated = {}


def data_blocks(make):
    """Sizes of the memory blocks the allocator hands out while `make()` runs (tracemalloc sees numpy's
    allocations; np.empty reserves its data block without writing to it)."""
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    before = set(tracemalloc.take_snapshot().traces)
    kept = make()
    new = set(tracemalloc.take_snapshot().traces) - before
    if not was_tracing:
        tracemalloc.stop()
    del kept
    return sorted((t.size for t in new), reverse=True)


for name, dtype in (("float32", np.float32), ("float16", np.float16), ("int8", np.int8)):
    E = np.empty((V, d), dtype=dtype)           # np.empty: the shape and dtype; nothing is written
    scales = np.empty(V, dtype=np.float32) if dtype is np.int8 else np.empty(0, dtype=np.float32)
    nbytes[name] = E.nbytes + scales.nbytes
    # measured: the table's data block, plus the scales' block for int8 (the largest blocks allocated)
    n_blocks = 2 if dtype is np.int8 else 1
    allocated[name] = sum(data_blocks(lambda: (np.empty((V, d), dtype=dtype),
                                               np.empty(V if dtype is np.int8 else 0, dtype=np.float32)))[:n_blocks])
    rows.append((name, f"{nbytes[name]:,}", f"{nbytes[name] / 1e6:,.1f} MB"))
print(table(("token table as", "bytes", "MB"), rows))
acts = np.empty((B, T, d), dtype=np.float32)
print(shape_table({"V": V, "d": d, "B": B, "T": T}, [("token table", "E", np.empty((V, d)), "V d", "one copy"),
                                                     ("activations of one layer", "X", acts, "B T d", "float32")]))
# Independent: the data blocks the memory allocator hands out (tracemalloc), against the formula V d b / 8.
bits = {"float32": 32, "float16": 16, "int8": 8}
print(check_equal("(b) the allocator's data blocks (tracemalloc) equal |V| d n_bits / 8 (+ 4 |V| for the int8 scales)",
                  [allocated[k] for k in bits], [V * d * bits[k] // 8 + (4 * V if k == "int8" else 0) for k in bits]))
# Closed form of the saving: 4 |V| d bytes against |V| d + 4 |V|, a factor 4 d / (d + 4).
print(check_close("(b) int8 with per-row scales is 4d/(d+4) times smaller than float32",
                  nbytes["float32"] / nbytes["int8"], 4 * d / (d + 4), atol=1e-12))
ratio = acts.nbytes / nbytes["float32"]
# (b) int8 with one float32 scale per group of g entries: |V| d + 4 |V| d / g bytes, a factor 4g/(g + 4) under float32.
divisors = [g for g in range(1, d + 1) if d % g == 0]
group_bytes = {g: np.empty((V, d), dtype=np.int8).nbytes + np.empty((V, d // g), dtype=np.float32).nbytes for g in divisors}
print(check_close("(b) factor against float32, from the arrays' bytes vs the closed form 4g/(g + 4), every divisor g of d",
                  [nbytes["float32"] / group_bytes[g] for g in divisors], [4 * g / (g + 4) for g in divisors], atol=1e-12))
TARGET = 3.9                                     # the factor asked for
g_needed = 4 * TARGET / (4 - TARGET)             # 4g/(g + 4) >= F  <=>  g >= 4F/(4 - F)
g_min = min(g for g in divisors if nbytes["float32"] / group_bytes[g] >= TARGET)
print(check_equal("(b) the smallest divisor of d reaching the factor (bytes of the arrays) is the first divisor >= 4F/(4 - F)",
                  g_min, min(g for g in divisors if g >= g_needed - 1e-9)))
# (c) batch sizes at which activations outgrow the table: one layer, and all L = 12 layers of GPT-2 small.
L = 12
B_one = next(b for b in range(1, 10_000) if np.empty((b, T, d), dtype=np.float32).nbytes > nbytes["float32"])
B_all = next(b for b in range(1, 10_000) if L * b * T * d * 4 > nbytes["float32"])
print(check_equal("(c) the smallest B (loop over B) is the first integer above |V|/T, and above |V|/(L T)",
                  [B_one, B_all], [int(np.floor(V / T)) + 1, int(np.floor(V / (L * T))) + 1]))
# (c) GPT-2 XL (same vocabulary, d = 1,600, 48 layers): loops over B with its own byte counts.
d_xl, L_xl = 1600, 48
table_xl = V * d_xl * np.dtype(np.float32).itemsize
B_one_xl = next(b for b in range(1, 10_000) if b * T * d_xl * 4 > table_xl)
B_all_xl = next(b for b in range(1, 10_000) if L_xl * b * T * d_xl * 4 > table_xl)
print(check_equal("(c) GPT-2 XL: one layer from the same B as GPT-2 small (d cancels); 48 layers from the first B above "
                  "|V|/(48 T)", [B_one_xl, B_all_xl], [B_one, int(np.floor(V / (L_xl * T))) + 1]))
# (c) bf16 activations (two bytes an entry, as float16's) against the int8 table with its float32 row scales: loops
# over B with the arrays' bytes, against the first integer above |V| (d + 4) / (2 T d).
def first_b(width, layers, table_bytes):
    return next(b for b in range(1, 10_000) if layers * np.empty((b, T, width), dtype=np.float16).nbytes > table_bytes)


table_q_xl = np.empty((V, d_xl), dtype=np.int8).nbytes + np.empty(V, dtype=np.float32).nbytes
B_q = [first_b(d, 1, nbytes["int8"]), first_b(d, L, nbytes["int8"]), first_b(d_xl, 1, table_q_xl)]
print(check_equal("(c) bf16 activations vs the int8 table: the smallest B (loop) is the first integer above |V|(d + 4)/(L 2 T d)",
                  B_q, [math.floor(V * (dd + 4) / (ll * 2 * T * dd)) + 1 for dd, ll in ((d, 1), (d, L), (d_xl, 1))]))
# (a) a row-sparse gradient: the distinct rows a batch reads (float32) and one int64 index each.
ids = np.random.default_rng(113).integers(0, V, size=(B, T))
rows_read = np.unique(ids)
sparse_grad = (np.zeros((len(rows_read), d), dtype=np.float32), rows_read.astype(np.int64))
sparse_bytes = sum(a.nbytes for a in sparse_grad)
bound = min(V, B * T) * (4 * d + 8)
print(check_equal("(a) the sparse gradient's arrays take (distinct rows) (4d + 8) bytes", sparse_bytes,
                  len(rows_read) * (4 * d + 8)))
print(check_true("(a) ... at most the bound min(|V|, BT) (4d + 8)", sparse_bytes <= bound, f"{sparse_bytes:,} <= {bound:,}"))
expected_rows = V * (1 - (1 - 1 / V) ** (B * T))
print(check_close("(a) distinct rows of uniform ids, against the expectation |V| (1 - (1 - 1/|V|)^BT)", len(rows_read) / expected_rows,
                  1.0, atol=0.02))
print(glue("e13_B_q_one", B_q[0]), glue("e13_B_q_all", B_q[1]), glue("e13_B_q_xl", B_q[2]), sep="")
print(glue("e13_f32", nbytes["float32"], ","),
      glue("e13_f32_mb", nbytes["float32"] / 1e6, ".1f"),
      glue("e13_ratio", ratio, ".2f"), glue("e13_B", B), glue("e13_T", T, ","),
      glue("e13_factor", 4 * d / (d + 4), ".2f"), glue("e13_sp_bound", bound, ","), glue("e13_BT", B * T, ","),
      glue("e13_sp_rows", len(rows_read), ","), glue("e13_sp_bytes", sparse_bytes, ","),
      glue("e13_sp_bound_mb", bound / 1e6, ".1f"),
      glue("e13_exp_rows", expected_rows, ",.0f"), glue("e13_g_min", g_min), glue("e13_target", TARGET, ".1f"),
      glue("e13_g_needed", g_needed, ".0f"), glue("e13_g_bytes", group_bytes[g_min], ","),
      glue("e13_f_32", 4 * 32 / 36, ".2f"), glue("e13_f_gmin", 4 * g_min / (g_min + 4), ".3f"),
      glue("e13_B_one", B_one), glue("e13_B_all", B_all), glue("e13_B_all_xl", B_all_xl), glue("e13_L", L), glue("e13_VT", V / T, ".1f"),
      sep="")
