"""P4 The softmax's derivative: its Jacobian against finite differences, by hand on three scores,
and how scores of large spread saturate the softmax and stop the gradient."""
import math
from fractions import Fraction

import numpy as np

from esm import check_close, check_less, check_true, glue, numerical_grad, softmax, table

rng = np.random.default_rng(4)

# [softmax-jacobian]: da_i/ds_j = a_i (delta_ij - a_j), against central finite differences.
s = rng.normal(size=5)
a = softmax(s)
J = np.diag(a) - np.outer(a, a)
fd = np.stack([numerical_grad(lambda x: softmax(x)[i], s) for i in range(5)])   # row i: d a_i / d s
print(check_close("softmax Jacobian A_ts (delta_ss' - A_ts') equals central finite differences", J, fd, eq="softmax-jacobian",
                  atol=1e-9))

# By hand: the scores (log 2, 0, 0) give the weights (1/2, 1/4, 1/4); the Jacobian in fractions.
hand = [Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)]
J_hand = [[w * ((1 if i == j else 0) - hand[j]) for j, _ in enumerate(hand)] for i, w in enumerate(hand)]
s_hand = np.array([math.log(2), 0.0, 0.0])
print(check_close("the scores (log 2, 0, 0) give the weights (1/2, 1/4, 1/4)", softmax(s_hand),
                  np.array([float(w) for w in hand]), atol=1e-15))
print(check_close("the Jacobian there by finite differences = the fractions A_ts (delta_ss' - A_ts')",
                  np.stack([numerical_grad(lambda x: softmax(x)[i], s_hand) for i in range(3)]),
                  np.array(J_hand, dtype=float), atol=1e-9))
# Row s of the Jacobian: weight s against every score; column s': every weight against score s'.
# In the fractions both sums are 0 by algebra; the finite differences of the softmax itself can
# show otherwise (a softmax that did not normalise, or did not ignore a common shift, would).
fd_hand = np.stack([numerical_grad(lambda x: softmax(x)[i], s_hand) for i in range(3)])
print(check_close("each column of the finite-difference Jacobian sums to 0 (the weights always sum to 1)",
                  fd_hand.sum(axis=0), np.zeros(3), atol=1e-9))
print(check_close("each row sums to 0 (adding one number to every score leaves the weights unchanged)",
                  fd_hand.sum(axis=1), np.zeros(3), atol=1e-9))
print(glue("jac_00", str(J_hand[0][0])), glue("jac_01", str(J_hand[0][1])))

# Saturation with and without the scaling, at d_k = 512 and 16 keys, 500 random queries.
d_k, T, m = 512, 16, 500


def saturation(Q, K):
    """Per form of the scores: their std, the mean largest weight, the median Jacobian norm."""
    stats = {}
    for name, S in (("unscaled", Q @ K.T), ("scaled by 1/sqrt(d_k)", Q @ K.T / math.sqrt(d_k))):
        A = softmax(S)
        J_all = A[:, :, None] * np.eye(T) - A[:, :, None] * A[:, None, :]      # one Jacobian per query
        jac = np.linalg.norm(J_all, axis=(1, 2))
        stats[name] = (float(S.std()), float(A.max(axis=1).mean()), float(np.median(jac)))
    return stats


Q, K = rng.normal(size=(m, d_k)), rng.normal(size=(T, d_k))
stats = saturation(Q, K)                                                 # the draw shown
print(table(("scores", "std of scores", "mean largest weight", "median Jacobian norm $\\lVert J\\rVert_F$"),
            [(k, f"{v[0]:.2f}", f"{v[1]:.3f}", f"{v[2]:.2e}") for k, v in stats.items()]))
(sd_u, top_u, jac_u), (sd_s, top_s, jac_s) = stats.values()
print(glue("dk_sat", d_k), glue("n_keys", T), glue("uniform_w", 1 / T, ".2f"), glue("sd_u", sd_u, ".1f"), glue("top_u", top_u, ".2f"),
      glue("top_s", top_s, ".2f"), glue("jac_ratio", jac_s / jac_u, ".0f"))
print(check_less("unscaled scores pass a far smaller gradient (median Jacobian norm)",
                 stats["unscaled"][2], stats["scaled by 1/sqrt(d_k)"][2] / 100, names=("unscaled", "scaled / 100")))

# How far the factor carries: the same measurement on fresh draws of the queries and keys.
draws = range(100)
ratios = []
for seed in draws:
    r = np.random.default_rng(seed)
    v = saturation(r.normal(size=(m, d_k)), r.normal(size=(T, d_k)))
    ratios.append(v["scaled by 1/sqrt(d_k)"][2] / v["unscaled"][2])
ratios = np.array(ratios)
print(glue("n_jac_draws", len(draws)), glue("jac_lo", ratios.min(), ".0f"), glue("jac_med", np.median(ratios), ".0f"),
      glue("jac_hi", ratios.max(), ".0f"))
print(check_true(f"in every one of the {len(draws)} draws the scaled Jacobian is over 100 times the unscaled one",
                 bool(ratios.min() > 100), f"smallest ratio {ratios.min():.0f}, median {np.median(ratios):.0f}, "
                 f"largest {ratios.max():.0f}"))
