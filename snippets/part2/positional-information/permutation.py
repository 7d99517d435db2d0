"""6.1 Why positions are needed: without them, self-attention commutes with every permutation."""
import numpy as np

from esm import attention, causal_mask, check_close, check_true, shape_table, sinusoidal_positions

rng = np.random.default_rng(61)
T, d, d_k = 6, 8, 4
X = rng.normal(0, 1, (T, d))                     # token vectors, no position added
W_Q, W_K, W_V = (rng.normal(0, 1 / np.sqrt(d), (d, d_k)) for _ in range(3))
perm = rng.permutation(T)
P = np.eye(T)[perm]                              # permutation matrix: (P X)_t = X_{perm[t]}


def attn(X, mask=None):
    out, _ = attention(X @ W_Q, X @ W_K, X @ W_V, mask=mask)
    return out


out = attn(X)
out_perm = attn(P @ X)
_, A = attention(X @ W_Q, X @ W_K, X @ W_V)

print(shape_table({"T": T, "d": d, "d_k": d_k}, [
    ("token vectors", "X", X, "T d", "one row per position, no position signal"),
    ("projections", "W_Q", W_Q, "d d_k", r"likewise $W_K$, $W_V$"),
    ("permutation", "P", P, "T T", f"reorders rows as {perm.tolist()}"),
    ("attention weights", "A", A, "T T", r"$\operatorname{softmax}(QK^\top/\sqrt{d_k})$"),
    ("output", r"\operatorname{Attn}(X)", out, "T d_k", "one row per position"),
]))

print(check_close("Attn(PX) = P Attn(X): attention on shuffled rows vs shuffled output rows",
                  out_perm, P @ out, atol=1e-12, eq="perm-equivariance"))
print(check_close("as a multiset nothing changed: the mean of the output rows is the same",
                  out_perm.mean(axis=0), out.mean(axis=0), atol=1e-12))
gap_mask = np.abs(attn(P @ X, causal_mask(T)) - P @ attn(X, causal_mask(T))).max()
print(check_true("a causal mask breaks the symmetry (it knows which key comes first)", gap_mask > 1e-3,
                 f"max |Attn_causal(PX) - P Attn_causal(X)| = {gap_mask:.3f}"))
PE = sinusoidal_positions(T, d)
gap_pe = np.abs(attn(P @ X + PE) - P @ attn(X + PE)).max()
print(check_true("adding position vectors breaks it too: shuffled words get other positions", gap_pe > 1e-3,
                 f"max |Attn(PX + PE) - P Attn(X + PE)| = {gap_pe:.3f}"))
