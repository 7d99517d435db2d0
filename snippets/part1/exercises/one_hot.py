"""Exercise: a smoothed one-hot lookup, (1 - alpha) O + alpha / |V|, as a lookup plus the mean row;
what that saves at GPT-2 size, and the gradient every unused row shares."""
from fractions import Fraction

import numpy as np

from esm import check_close, check_equal, check_true, glue, numerical_grad, one_hot, shape_table

rng = np.random.default_rng(102)
V, d = 7, 3
ALPHA = Fraction(1, 10)
alpha = float(ALPHA)
E = rng.normal(0.0, 1.0, (V, d))
ids = np.array([2, 6, 2, 0])
T = len(ids)
P = (1 - alpha) * one_hot(ids, V) + alpha / V          # every row a probability vector

print(shape_table({"T": T, "V": V, "d": d}, [
    ("smoothed codes", "P", P, "T V", r"$(1-\alpha)O+\alpha/\lvert\mathcal V\rvert$"),
    ("table", "E", E, "V d", ""), ("product", "PE", P @ E, "T d", ""),
]))
mean_row = E.mean(axis=0)
print(check_close("(a) row t of PE is (1 - alpha) E[i_t] + alpha * mean row", P @ E,
                  (1 - alpha) * E[ids] + alpha * mean_row, atol=1e-12))


def dense_flops(P, M):
    """Flops of P @ M (one multiplication and one addition per term), counted by running it as three loops."""
    count, out = 0, np.zeros((P.shape[0], M.shape[1]))
    for t in range(P.shape[0]):
        for j in range(M.shape[1]):
            for v in range(P.shape[1]):
                out[t, j] += P[t, v] * M[v, j]
                count += 2
    return count, out


def factored_flops(ids, M, a):
    """The route of (a), in flops: one addition per table entry for the column sums, one multiplication per
    column for the shared row alpha * mean, then a scaling and an addition per output entry."""
    count, total = 0, np.zeros(M.shape[1])
    for v in range(M.shape[0]):
        for j in range(M.shape[1]):
            total[j] += M[v, j]
            count += 1
    shared = np.zeros(M.shape[1])
    for j in range(M.shape[1]):
        shared[j] = (a / M.shape[0]) * total[j]       # alpha / |V| is one constant
        count += 1
    out = np.zeros((len(ids), M.shape[1]))
    for t, i in enumerate(ids):
        for j in range(M.shape[1]):
            out[t, j] = (1 - a) * M[i, j] + shared[j]
            count += 2
    return count, out


n_dense, out_dense = dense_flops(P, E)
n_fact, out_fact = factored_flops(ids, E, alpha)
print(check_close("(b) both loops give the same product", out_dense, out_fact, atol=1e-12))
print(check_equal("(b) the loops count 2T|V|d and (|V| + 1 + 2T)d flops", [n_dense, n_fact],
                  [2 * T * V * d, (V + 1 + 2 * T) * d]))
T_g, V_g, d_g = 1024, 50257, 768                # GPT-2 small's vocabulary and width, one 1,024-token sequence
dense_g, fact_g = 2 * T_g * V_g * d_g, (V_g + 1 + 2 * T_g) * d_g
# (b) the factor 2 T |V| / (|V| + 1 + 2T) rises with T towards |V| and is |V|/2 at T = (|V| + 1)/2, from the flop
# formulas; the loops above count them on the small example.
factor = lambda t: (2 * t * V_g * d_g) / ((V_g + 1 + 2 * t) * d_g)
Ts = np.arange(1, 200_001)
print(check_true("(b) the factor rises at every T from 1 to 200,000 and stays below |V|",
                 bool(np.all(np.diff(factor(Ts)) > 0) and np.all(factor(Ts) < V_g)), f"{factor(200_000):.0f} at T = 200,000"))
t_half = int(Ts[np.argmax(factor(Ts) >= V_g / 2)])                  # the first T at which it reaches |V|/2, by scan
print(check_equal("(b) it first reaches |V|/2 at T = (|V| + 1)/2 (scan vs closed form)", t_half, (V_g + 1) // 2))
print(check_close("(b) ... exactly there: 2T|V| / (|V| + 1 + 2T) = |V|/2 at T = (|V| + 1)/2", factor((V_g + 1) / 2), V_g / 2,
                  atol=1e-9))
# (b) which sizes make the dense product cheaper: the loops' own counts on small random tables, against the
# sign of (2T - 1)(|V| - 1) - 2.
small = np.random.default_rng(7)
sign_loops, sign_formula = {}, {}
for v_s in range(1, 7):
    for t_s in range(1, 5):
        ids_s = small.integers(0, v_s, size=t_s)
        P_s = (1 - alpha) * one_hot(ids_s, v_s) + alpha / v_s
        n_d, _ = dense_flops(P_s, small.normal(size=(v_s, 2)))
        n_f, _ = factored_flops(ids_s, small.normal(size=(v_s, 2)), alpha)
        sign_loops[v_s, t_s] = int(np.sign(n_f - n_d))
        sign_formula[v_s, t_s] = int(np.sign(2 - (2 * t_s - 1) * (v_s - 1)))
print(check_equal("(b) where the dense product is not dearer, |V| up to 6 and T up to 4: loops' counts vs 2 - (2T - 1)(|V| - 1) >= 0",
                  sorted(k for k, s_ in sign_loops.items() if s_ >= 0), sorted(k for k, s_ in sign_formula.items() if s_ >= 0)))
wins = sorted(k for k, s_ in sign_loops.items() if s_ > 0)
ties = sorted(k for k, s_ in sign_loops.items() if s_ == 0)
win_v2 = [k for k in wins if k[0] > 1]
print(check_equal("(b) the dense product wins at |V| = 1 for every T and at one other (|V|, T); the two tie at one (|V|, T)",
                  [len([k for k in wins if k[0] == 1]), len(win_v2), len(ties)], [4, 1, 1]))
# (c) gradient: P^T G = (1 - alpha) O^T G + (alpha/|V|) 1 (sum_t G_t)^T
G = rng.normal(0.0, 1.0, (T, d))
num = numerical_grad(lambda table: float(np.sum(G * (P @ table))), E.copy())   # independent: central differences
closed = (1 - alpha) * one_hot(ids, V).T @ G + alpha / V * G.sum(axis=0)
print(check_close("(c) the gradient is (1 - alpha) O^T G + (alpha/|V|) sum_t G_t on every row (vs finite differences)",
                  num, closed, atol=1e-8))
unused = [v for v in range(V) if v not in ids]
print(check_close("(c) every unused row gets the same gradient (rows 1, 3, 4, 5 vs row 1)", num[unused],
                  np.tile(num[unused[0]], (len(unused), 1)), atol=1e-8))
stepped = E - 0.5 * num
print(check_close("(c) so a gradient step leaves the difference of two unused rows unchanged",
                  stepped[3] - stepped[1], E[3] - E[1], atol=1e-8))
print(glue("e2_dense", dense_g, ","),
      glue("e2_fact", fact_g, ","), glue("e2_ratio", dense_g / fact_g, ".0f"),
      glue("e2_t_half", t_half, ","), glue("e2_unused", ", ".join(map(str, unused))),
      glue("e2_win_v1", wins[0][0]), glue("e2_win_v2", win_v2[0][0]), glue("e2_win_t", win_v2[0][1]),
      glue("e2_tie_v", ties[0][0]), glue("e2_tie_t", ties[0][1]), sep="")
