"""8.2 Memory and quantization: per-row int8 codes, the s/2 error bound, and the cosine kept."""
import numpy as np

from esm import check_close, check_equal, check_less, check_true, shape_table, table

rng = np.random.default_rng(82)
V, d = 1000, 64
norms = np.exp(rng.normal(0.0, 0.5, (V, 1)))            # rows of unequal size, as in real tables
E = rng.normal(0.0, 1.0, (V, d)) * norms / np.sqrt(d)

def quantize_rows(X):
    """Symmetric int8 per row: s_i = max_j |X_ij| / 127, q = round(X / s)."""
    s = np.abs(X).max(axis=1, keepdims=True) / 127.0
    q = np.round(X / s).astype(np.int8)
    return q, s

q, s = quantize_rows(E)
E_hat = q.astype(float) * s                              # dequantised rows
err = np.abs(E - E_hat)

print(shape_table({"V": V, "d": d}, [
    ("table (float)", "E", E, "V d", "4 bytes per entry as float32"),
    ("codes", "q", q, "V d", "int8, 1 byte per entry"),
    ("scales", r"\mathbf s", s[:, 0], "V", "one float per row"),
    ("dequantised table", r"\hat E", E_hat, "V d", r"$s_i\,q_{ij}$"),
]))

# Independent: the bound, entry by entry, in a loop over rows with its own max.
worst = max(float(np.max(np.abs(E[i] - s[i, 0] * q[i]) / (max(abs(E[i])) / 127.0))) for i in range(V))
print(check_less("every entry's error is at most half a step, |x - s q| <= s/2", worst, 0.5 + 1e-12,
                 names=("max |x - s q| / s", "1/2 (+1e-12)"), eq="int8"))
per_row_max = np.abs(q.astype(int)).max(axis=1)
print(check_true("in every row the largest entry maps to +-127, and no code leaves [-127, 127]",
                 np.all(per_row_max == 127), f"min and max over rows of max_j |q_ij|: "
                 f"{per_row_max.min()}, {per_row_max.max()}"))
cos = np.sum(E * E_hat, 1) / (np.linalg.norm(E, axis=1) * np.linalg.norm(E_hat, axis=1))
print(check_less("the cosine between a row and its int8 copy stays above 0.999", 0.999, cos.min(),
                 names=("0.999", "min cos")))

# One scale for the whole table: large rows set the step, small rows lose their precision.
s_t = np.abs(E).max() / 127.0
E_t = np.round(E / s_t) * s_t
cos_t = np.sum(E * E_t, 1) / (np.linalg.norm(E, axis=1) * np.linalg.norm(E_t, axis=1) + 1e-300)
print(check_less("a single per-table scale loses more on the smallest rows than per-row scales",
                 1 - cos[np.argmin(norms)], 1 - cos_t[np.argmin(norms)],
                 names=("1 - cos per-row", "1 - cos per-table")))

# Memory of Llama 2 7B's input table, from the arrays' own byte counts (np.empty allocates lazily).
Vl, dl = 32000, 4096
rows = []
for name, dtype, extra in (("float32", np.float32, 0), ("bfloat16 / float16", np.float16, 0),
                           ("int8 + float32 scale per row", np.int8, Vl * 4)):
    nbytes = np.empty((Vl, dl), dtype=dtype).nbytes + extra
    rows.append((name, f"{nbytes:,}", f"{nbytes / 2 ** 20:,.1f} MiB"))
    if dtype is np.int8:
        print(check_equal("int8 table + scales: |V| d * 8/8 + 4 |V| bytes", nbytes, Vl * dl + 4 * Vl))
print(table(("Llama 2 7B input table as", "bytes", "size"), rows))
print(f"\nLargest error in this demo: {err.max():.2e}; mean step s: {s.mean():.2e}; "
      f"min cosine per-row {cos.min():.6f}, per-table {cos_t.min():.6f}.")
