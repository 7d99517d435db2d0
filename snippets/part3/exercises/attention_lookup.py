"""Exercise: at what temperature does attention become a lookup (7.2)? The weight off the best key
in closed form, the temperature at which the best key takes 90% of the weight by bisection, and the
bracket proved from the gaps (its check is the proof's premise)."""
import math

import numpy as np

from esm import attention, check_close, check_true, glue

T, d_k, TARGET = 8, 4, 0.9
rng = np.random.default_rng(111)
q, K = rng.normal(0.0, 1.0, (1, d_k)), rng.normal(0.0, 1.0, (T, d_k))
s = (K @ q[0]) / math.sqrt(d_k)                 # scaled scores
best = int(np.argmax(s))
gaps = np.delete(s[best] - s, best)             # g_s > 0 for s != s* when the maximum is unique
g = float(gaps.min())

# (a) the weight off the best key is R / (1 + R), R = sum_{s != s*} exp(-g_s / tau)
tau_a = 0.5
w_a = attention(q, K, np.eye(T), temperature=tau_a)[1][0]
R = float(np.exp(-gaps / tau_a).sum())
# The weight off the best key is summed over the other keys: 1 - a_{s*} would lose it to rounding once it
# falls below about 1e-16 (at tau = 0.05 it did in some draws: 0 against a lower bound of 2e-17).
print(check_close(f"(a) at tau = {tau_a:g} the weight off the best key is R/(1+R) (closed form vs attention's weights)",
                  np.delete(w_a, best).sum(), R / (1 + R), atol=1e-15))

for tau_b in (0.05, 0.2, tau_a, 2.0):                 # the bounds of (a), against attention's own weights
    off = np.delete(attention(q, K, np.eye(T), temperature=tau_b)[1][0], best).sum()
    e = math.exp(-g / tau_b)
    print(check_true(f"(a) at tau = {tau_b:g}: e^(-g/tau)/(1 + e^(-g/tau)) <= weight off the best key <= (T-1) e^(-g/tau)",
                     e / (1 + e) <= off * (1 + 1e-12) and off <= (T - 1) * e * (1 + 1e-12),
                     f"{e / (1 + e):.4g} <= {off:.4g} <= {(T - 1) * e:.4g}"))


def best_weight(tau):
    return 1.0 / (1.0 + np.exp(-gaps / tau).sum())


lo, hi = 1e-6, 1e3                              # best_weight falls from ~1 to ~1/T as tau rises
for _ in range(200):
    mid = math.sqrt(lo * hi)
    lo, hi = (mid, hi) if best_weight(mid) > TARGET else (lo, mid)
ts = math.sqrt(lo * hi)
w = attention(q, K, np.eye(T), temperature=ts)[1][0]
print(check_close(f"(b) at tau* the best key's weight, computed by attention itself, is {TARGET:g}", w.max(), TARGET, atol=1e-9))

# (c) the proof's premises: a unique maximum (g > 0), and at tau* each of the T - 1 terms lies in (0, e^{-g/tau*}]
# with the largest equal to e^{-g/tau*}; then e^{-g/tau*} <= R* = 1/9 <= (T - 1) e^{-g/tau*}.
terms = np.exp(-gaps / ts)
print(check_true("(c) premise: the best score is unique, g = min gap > 0", g > 0, f"g = {g:.6f}"))
print(check_true("(c) premise: every term exp(-g_s/tau*) lies in (0, exp(-g/tau*)], the largest equal to it",
                 bool(np.all(terms > 0) and np.all(terms <= math.exp(-g / ts) * (1 + 1e-12))
                      and math.isclose(terms.max(), math.exp(-g / ts), rel_tol=1e-12)),
                 f"terms up to {terms.max():.6g}, exp(-g/tau*) = {math.exp(-g / ts):.6g}"))
lower, upper = g / math.log((T - 1) * TARGET / (1 - TARGET)), g / math.log(TARGET / (1 - TARGET))


def tau_star(gs):
    """Bisection for the temperature at which keys with scaled gaps gs leave the best key TARGET of the weight."""
    a_, b_ = 1e-6, 1e3
    for _ in range(200):
        m_ = math.sqrt(a_ * b_)
        a_, b_ = (m_, b_) if 1.0 / (1.0 + np.exp(-gs / m_).sum()) > TARGET else (a_, m_)
    return math.sqrt(a_ * b_)


print(check_close("(c) every gap equal to g puts tau* on the lower bound (bisection vs g / log(9 (T - 1)))",
                  tau_star(np.full(T - 1, g)), lower, atol=1e-9))
FAR = 3
far = np.where(gaps == g, g, FAR * gaps)
tau_far = tau_star(far)
print(check_true("(c) the nearest rival kept, the other gaps multiplied by 3: tau* lies below the upper bound, within 2% of the bracket from it",
                 ts < tau_far < upper and upper - tau_far < 0.02 * (upper - lower),
                 f"{ts:.4f} < {tau_far:.6f} < {upper:.6f}"))
# (c) how far the upper end can sit above tau*: bisection with every gap equal to g, against
# log(9 (T - 1)) / log 9, here and for many keys; random gaps no smaller than g never do worse.
T_BIG = 1024
ratio_tied = [(g / math.log(9)) / tau_star(np.full(n - 1, g)) for n in (T, T_BIG)]
print(check_close("(c) all gaps equal to g: upper end / tau* (bisection) is log(9 (T - 1)) / log 9, at T = 8 and 1,024",
                  ratio_tied, [math.log(9 * (n - 1)) / math.log(9) for n in (T, T_BIG)], atol=1e-8))
spread = np.random.default_rng(5)
worst = max(upper / tau_star(np.r_[g, g * (1 + spread.exponential(size=T - 2))]) for _ in range(200))
print(check_true("(c) 200 random gap sets with smallest gap g: upper end / tau* stays at or below the tied case's",
                 worst <= ratio_tied[0] * (1 + 1e-9), f"{worst:.4f} <= {ratio_tied[0]:.4f}"))
print(glue("e11_ratio", ratio_tied[0], ".2f"), glue("e11_ratio_big", ratio_tied[1], ".2f"), glue("e11_T_big", T_BIG, ","),
      sep="")
print(glue("e11_T", T), glue("e11_dk", d_k), glue("e11_target", TARGET, ".0%"), glue("e11_tau", ts, ".3f"),
      glue("e11_gap", g, ".3f"), glue("e11_lower", lower, ".3f"), glue("e11_upper", upper, ".3f"),
      glue("e11_tau_a", tau_a, "g"), glue("e11_far", FAR), glue("e11_tau_far", tau_far, ".3f"), sep="")
