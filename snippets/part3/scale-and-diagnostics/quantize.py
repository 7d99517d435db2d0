"""8.2 Memory and quantization: per-row int8 codes, the kappa/2 error bound, and the cosine kept."""
import numpy as np

from esm import check_close, check_equal, check_less, check_true, glue, shape_table, table

rng = np.random.default_rng(82)
V, d = 1000, 64
size = np.exp(rng.normal(0.0, 0.5, (V, 1)))             # rows of unequal size, as in real tables
E = rng.normal(0.0, 1.0, (V, d)) * size / np.sqrt(d)
norms = np.linalg.norm(E, axis=1)                        # the row norms themselves

def quantize_rows(X):
    """Symmetric int8 per row: kappa_i = max_j |X_ij| / 127, codes round(X_ij / kappa_i)."""
    s = np.abs(X).max(axis=1, keepdims=True) / 127.0
    q = np.round(X / s).astype(np.int8)
    return q, s

q, s = quantize_rows(E)
E_hat = q.astype(float) * s                              # dequantised rows
err = np.abs(E - E_hat)

print(shape_table({"V": V, "d": d}, [
    ("table (float)", "E", E, "V d", "4 bytes per entry as float32"),
    ("codes", r"E^{\text{int8}}", q, "V d", "int8, 1 byte per entry"),
    ("scales", r"\boldsymbol\kappa", s[:, 0], "V", "one float per row"),
    ("dequantised table", r"\hat E", E_hat, "V d", r"$\kappa_i\,E^{\text{int8}}_{ij}$"),
]))

# Independent: the bound, entry by entry, in a loop over rows with its own max.
worst = max(float(np.max(np.abs(E[i] - s[i, 0] * q[i]) / (max(abs(E[i])) / 127.0))) for i in range(V))
print(check_less("every entry's error is at most half a step, |E_ij - kappa_i E^int8_ij| <= kappa_i/2", worst, 0.5 + 1e-12,
                 names=("max |E_ij - kappa_i E^int8_ij| / kappa_i", "1/2 (+1e-12)"), eq="int8"))
per_row_max = np.abs(q.astype(int)).max(axis=1)
print(check_true("in every row the largest entry maps to +-127, and no code leaves [-127, 127]",
                 np.all(per_row_max == 127), f"min and max over rows of max_j |E^int8_ij|: "
                 f"{per_row_max.min()}, {per_row_max.max()}"))
cos = np.sum(E * E_hat, 1) / (np.linalg.norm(E, axis=1) * np.linalg.norm(E_hat, axis=1))
# The kappa/2 bound caps the error vector at sqrt(d) kappa_i / 2, so cos(x, x_hat) >= sqrt(1 - r_i^2) with
# r_i = sqrt(d) kappa_i / (2 |x_i|): a lower bound from the formula, checked against every row.
r_bound = np.sqrt(d) * s[:, 0] / 2 / norms
print(check_true("every row's cosine with its int8 copy is at least sqrt(1 - r_i^2), r_i from the kappa_i/2 bound",
                 np.all(cos >= np.sqrt(1 - r_bound ** 2)), f"min cos {cos.min():.6f}, "
                 f"min bound {np.sqrt(1 - r_bound ** 2).min():.6f}"))

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
    rows.append((name, f"{nbytes:,}", f"{nbytes / 10 ** 6:,.1f} MB"))
print(table(("Llama 2 7B input table as", "bytes", "size"), rows))

# 4-bit groups as llama.cpp's Q4_0 stores them (ggml-quants.c, quantize_row_q4_0_ref): blocks
# of 32 entries, one scale kappa = m / -8 (ggml calls it d) where m is the block's entry of largest
# magnitude (with its sign), codes min(15, trunc(x/kappa + 8.5)) in 0..15, read back as kappa (code - 8). Written here
# entry by entry from that description, not from the formula (int8) above.
G = 32
blocks = E.reshape(-1, G)
Xq = np.empty_like(blocks)
for b, x in enumerate(blocks):
    m = x[np.argmax(np.abs(x))]
    dq = m / -8.0
    codes = [min(15, int(v / dq + 8.5)) for v in x]          # int() truncates toward zero, as C does
    Xq[b] = [dq * (c - 8) for c in codes]
step = np.abs(blocks[np.arange(len(blocks)), np.argmax(np.abs(blocks), axis=1)])[:, None] / 8.0
ratio4 = np.abs(blocks - Xq) / step
# The largest magnitude lands on code 0 exactly; an entry of the opposite sign with |x/kappa| above
# 7.5 is clipped to code 15 and can miss by up to a whole step, not half of one.
clipped = (blocks / (-step * np.sign(blocks[np.arange(len(blocks)), np.argmax(np.abs(blocks), axis=1)])[:, None])) > 7.5
print(check_less("Q4_0 blocks of 32: entries not clipped miss by at most half a step |kappa|/2",
                 ratio4[~clipped].max(), 0.5 + 1e-9, names=("max |x - x_hat| / |kappa|", "1/2")))
print(check_less("Q4_0: a clipped entry (opposite sign, |x/kappa| > 7.5) misses by at most one step |kappa|",
                 ratio4[clipped].max() if clipped.any() else 0.0, 1.0 + 1e-9,
                 names=("max over clipped entries", "1")))
cos4 = np.sum(E * Xq.reshape(V, d), 1) / (np.linalg.norm(E, axis=1) * np.linalg.norm(Xq.reshape(V, d), axis=1))
print(glue("q_cos_min", cos.min(), ".5f"),
      glue("q_cos_table", cos_t[np.argmin(norms)], ".3f"), glue("q_norm_span", norms.max() / norms.min(), ".0f"),
      glue("q4_G", G), glue("q4_clipped", int(clipped.sum())), glue("q4_entries", blocks.size, ","),
      glue("q4_worst_clipped", ratio4[clipped].max() if clipped.any() else 0.0, ".3f"),
      glue("q4_cos_min", cos4.min(), ".4f"),
      glue("q_llama_f32", Vl * dl * 4, ","), glue("q_llama_int8", Vl * dl + 4 * Vl, ","), sep="")
