"""6.1 Why positions are needed: without them, self-attention commutes with every permutation."""
import numpy as np

from esm import attention, causal_mask, check_close, check_true, glue, shape_table, sinusoidal_positions

rng = np.random.default_rng(61)
T, d, d_k = 6, 8, 4
X = rng.normal(0, 1, (T, d))                     # token vectors, no position added
W_Q, W_K, W_V = (rng.normal(0, 1 / np.sqrt(d), (d, d_k)) for _ in range(3))
perm = rng.permutation(T)
Pi = np.eye(T)[perm]                             # permutation matrix: (Pi X)_t = X_{perm[t]}


def attn(X, mask=None):
    out, _ = attention(X @ W_Q, X @ W_K, X @ W_V, mask=mask)
    return out


out = attn(X)
out_perm = attn(Pi @ X)
_, A = attention(X @ W_Q, X @ W_K, X @ W_V)

print(shape_table({"T": T, "d": d, "d_k": d_k}, [
    ("token vectors", "X", X, "T d", "one row per position, no position signal"),
    ("projections", "W_Q", W_Q, "d d_k", r"likewise $W_K$, $W_V$"),
    ("permutation", r"\Pi", Pi, "T T", f"reorders rows as {perm.tolist()}"),
    ("attention weights", "A", A, "T T", r"$\operatorname{softmax}(QK^\top/\sqrt{d_k})$"),
    ("output", r"\operatorname{Attn}(X)", out, "T d_k", "one row per position"),
]))

print(check_close("Attn(Pi X) = Pi Attn(X): attention on shuffled rows vs shuffled output rows",
                  out_perm, Pi @ out, atol=1e-12, eq="perm-equivariance"))
equi_err = np.abs(out_perm - Pi @ out).max()
print(check_close("as a multiset nothing changed: the mean of the output rows is the same",
                  out_perm.mean(axis=0), out.mean(axis=0), atol=1e-12))
gap_mask = np.abs(attn(Pi @ X, causal_mask(T)) - Pi @ attn(X, causal_mask(T))).max()
print(check_true("a causal mask breaks the symmetry (it knows which key comes first)", gap_mask > 1e-3,
                 f"max |Attn_causal(Pi X) - Pi Attn_causal(X)| = {gap_mask:.3f}"))
PE = sinusoidal_positions(T, d)
gap_pe = np.abs(attn(Pi @ X + PE) - Pi @ attn(X + PE)).max()
print(check_true("adding position vectors breaks it too: shuffled words get other positions", gap_pe > 1e-3,
                 f"max |Attn(Pi X + PE) - Pi Attn(X + PE)| = {gap_pe:.3f}"))
print(glue("T_pm", T), glue("d_pm", d), glue("dk_pm", d_k), glue("perm", perm.tolist()), glue("equi_err", equi_err, ".0e"),
      glue("gap_mask", gap_mask, ".2f"), glue("gap_pe", gap_pe, ".2f"))
