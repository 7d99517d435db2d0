"""Exercise: attention cannot see order (6.1). The proof of Attn(PX) = P Attn(X) step by step, each
step against an entry loop; which permutations survive a distance bias; what a causal mask does
to the identity, and which output rows a swap leaves alone under it."""
from itertools import permutations

import numpy as np

from esm import attention, causal_mask, check_close, check_equal, check_true, glue, softmax

rng = np.random.default_rng(61)
T, d, d_k = 4, 3, 2
X = rng.normal(0.0, 1.0, (T, d))
W_Q, W_K, W_V = (rng.normal(0.0, 1.0, (d, d_k)) for _ in range(3))
perm = np.array([2, 0, 3, 1])                   # row i of the shuffled input is row perm[i] of X
P = np.eye(T)[perm]


def attn(Z, mask=None):
    return attention(Z @ W_Q, Z @ W_K, Z @ W_V, mask=mask)[0]


S = (X @ W_Q) @ (X @ W_K).T / np.sqrt(d_k)
S_p = (P @ X @ W_Q) @ (P @ X @ W_K).T / np.sqrt(d_k)
loop = np.array([[S[perm[i], perm[j]] for j in range(T)] for i in range(T)])
print(check_close("the section's proof, step 1: the scores of PX are P S P^T, entry (i, j) = S[perm i, perm j] (loop)", S_p, loop,
                  atol=1e-12))
A = softmax(S)
print(check_close("step 2: a row softmax commutes with permuting rows and columns together", softmax(S_p),
                  P @ A @ P.T, atol=1e-12))
print(check_close("step 3: P A P^T (P X W_V) = P (A X W_V), since P^T P = I: Attn(PX) = P Attn(X)",
                  attn(P @ X), P @ attn(X), atol=1e-12))
M = causal_mask(T)
moved = int(np.sum(P @ M @ P.T != M))
print(check_true("(b) premise: P M P^T differs from the causal mask M (a permutation that is not the identity "
                 "reorders who comes first)", moved > 0, f"{moved} of {T * T} entries differ"))
out, out_p = attn(X, M), attn(P @ X, M)
print(check_close("(b) with the mask, output row 0 is the value row of the token placed first (original order)",
                  out[0], X[0] @ W_V, atol=1e-12))
print(check_close("(b) ... and of the shuffled order, token perm[0] = 2", out_p[0], X[perm[0]] @ W_V, atol=1e-12))
gap = float(np.abs(out_p - P @ out).max())
print(check_true("(b) so the masked layer is not equivariant: Attn_M(PX) and P Attn_M(X) differ", gap > 1e-6,
                 f"max |difference| {gap:.3g}"))
# (b) what holds instead: Attn_M(PX) = P Attn_M'(X) with M' = P^T M P, the mask moved with the tokens.
M_moved = np.array([[M[np.flatnonzero(perm == a)[0], np.flatnonzero(perm == b)[0]] for b in range(T)] for a in range(T)])
print(check_true("(b) P^T M P (matrix product) equals M' built entry by entry from M'[perm i, perm j] = M[i, j] (loop)",
                 np.array_equal((P.T @ M @ P) > 0.5, M_moved), f"{int(M_moved.sum())} allowed entries"))
print(check_close("(b) Attn_M(PX) = P Attn_M'(X) with M' = P^T M P, for the demo's permutation", out_p,
                  P @ attn(X, M_moved), atol=1e-12))
R_ = np.eye(T)[::-1]
M_rev = (R_.T @ M @ R_) > 0.5
print(check_true("(b) for the reversal, M' allows key j for query i exactly when j >= i (anti-causal)",
                 np.array_equal(M_rev, np.triu(np.ones((T, T), dtype=bool))), f"M' = {M_rev.astype(int).tolist()}"))
print(check_close("(b) a causal layer fed the reversed text is the anti-causal layer, reversed", attn(R_ @ X, M),
                  R_ @ attn(X, M_rev), atol=1e-12))
# (a) a bias B_ij = b(|i - j|), b strictly decreasing (here -|i - j| / 2): the proof goes through when P B P^T = B.
B = -0.5 * np.abs(np.arange(T)[:, None] - np.arange(T)[None, :])
keep = [list(q) for q in permutations(range(T)) if np.array_equal(np.eye(T)[list(q)] @ B @ np.eye(T)[list(q)].T, B)]
print(check_true("(a) of all 24 permutations, only the identity and the reversal keep P B P^T = B (loop over all)",
                 keep == [list(range(T)), list(range(T))[::-1]], f"kept: {keep}"))


def attn_b(Z):
    return attention(Z @ W_Q, Z @ W_K, Z @ W_V, bias=B)[0]


R = np.eye(T)[::-1]
print(check_close("(a) with the bias, the reversal still commutes with the layer", attn_b(R @ X), R @ attn_b(X),
                  atol=1e-12))
gap_b = float(np.abs(attn_b(P @ X) - P @ attn_b(X)).max())
print(check_true("(a) ... and the demo's permutation does not", gap_b > 1e-6, f"max |difference| {gap_b:.3g}"))
# (c) causal mask, no positions: swap the first two tokens. Row t reads tokens 0..t with query t.
swap = np.array([1, 0, 2, 3])
out_s = attn(X[swap], M)
same = [t for t in range(T) if np.allclose(out_s[t], out[t], atol=1e-12, rtol=0)]
print(check_true("(c) rows 2 and 3 are the same after swapping tokens 0 and 1; rows 0 and 1 are not", same == [2, 3],
                 f"rows that agree: {same}"))
print(check_close("(c) row 0 after the swap is the value row of token 1 (it reads only itself)", out_s[0], X[1] @ W_V,
                  atol=1e-12))
# (c) any swap of tokens i < j: rows t < i and t > j stay the same, rows i..j change (all pairs of the demo).
pairs = [(i, j) for i in range(T) for j in range(i + 1, T)]
for i, j in pairs:
    sw = np.arange(T)
    sw[[i, j]] = [j, i]
    same_ij = [t for t in range(T) if np.allclose(attn(X[sw], M)[t], out[t], atol=1e-12, rtol=0)]
    print(check_equal(f"(c) swapping tokens {i} and {j}: the rows that stay the same are t < {i} and t > {j}", same_ij,
                      [t for t in range(T) if t < i or t > j]))
print(glue("pm_pairs", len(pairs)), glue("pm_perm", perm.tolist()), glue("pm_T", T), glue("pm_gap", gap, ".2f"),
      glue("pm_gap_b", gap_b, ".2f"), glue("pm_same", same), sep="")
