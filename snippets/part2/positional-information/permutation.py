"""6.1 Why positions are needed: without them, self-attention commutes with every permutation."""
import numpy as np

from esm import attention, causal_mask, check_close, check_true, glue, shape_table, sinusoidal_positions

# By hand first: three tokens in d = d_k = 2 with W_Q = W_K = W_V = I, so the scores are X X^T.
def tex(M):
    """A small integer matrix as LaTeX, for the prose."""
    return r"\begin{bmatrix}" + r"\\".join("&".join(str(int(v)) for v in row) for row in M) + r"\end{bmatrix}"


Xh = np.array([[2, 0], [0, 1], [1, 1]])
swap01 = np.eye(3, dtype=int)[[1, 0, 2]]          # Pi: swaps the first two tokens
Sh = Xh @ Xh.T
Sh_swapped = (swap01 @ Xh) @ (swap01 @ Xh).T
rows = [Xh[1], Xh[0], Xh[2]]                       # the swapped order, written out
loop = np.array([[sum(int(a) * int(b) for a, b in zip(rows[t], rows[s])) for s in range(3)] for t in range(3)])
print(check_close("by hand: the scores of the swapped tokens, entry by entry, are Pi S Pi^T (rows and columns swapped)",
                  loop, swap01 @ Sh @ swap01.T, atol=0, eq="perm-equivariance"))
out_h, _ = attention(Xh, Xh, Xh)
out_h_swapped, _ = attention(swap01 @ Xh, swap01 @ Xh, swap01 @ Xh)
print(check_close("by hand: the third token's output is unchanged, the first two outputs trade rows",
                  out_h_swapped, swap01 @ out_h, atol=1e-12))
causal_h = attention(Xh, Xh, Xh, mask=causal_mask(3))[0]
causal_h_swapped = attention(swap01 @ Xh, swap01 @ Xh, swap01 @ Xh, mask=causal_mask(3))[0]
print(check_close("by hand, causal: token (2, 0) alone at position 0 outputs its own row", causal_h[0], Xh[0], atol=1e-12))
moved = np.abs(causal_h_swapped[1] - causal_h[0]).max()
print(check_true("by hand, causal: moved to position 1, token (2, 0) also sees (0, 1) and its output changes",
                 moved > 1e-3, f"max change {moved:.2f}"))
# matrices are published as whole inline formulas ($...$), quoted outside math in the prose
print(glue("Xh", f"$X={tex(Xh)}$"), glue("Sh", f"$XX^\\top={tex(Sh)}$"), glue("Sh_swapped", f"${tex(Sh_swapped)}$"),
      glue("sc_third", Sh[2].tolist()), glue("sc_third_sw", Sh_swapped[2].tolist()))

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
print(glue("T_pm", T), glue("d_pm", d), glue("dk_pm", d_k), glue("perm", perm.tolist()))
