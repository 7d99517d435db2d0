"""P12 Decoding: greedy, temperature, top-k and top-p (nucleus) sampling on the tiny model's
next-token distribution; each rule against an independent route, and 10,000 seeded draws per
method against the renormalised distribution."""
import math

import numpy as np
from scipy.stats import binom

from esm import PALETTE, TINY, check_close, check_equal, check_less, check_true, figure, glue, gpt_forward, softmax, svg, \
    table, tiny_gpt

model = tiny_gpt()
V = TINY["V"]
context = np.array([3, 14, 15, 9, 26, 5, 35, 8])
z = gpt_forward(context, model)[-1]                 # logits of the token after the context
p = softmax(z)
order = np.argsort(-p, kind="stable")               # tokens from most to least likely
tau, k, xi = 0.5, 5, 0.9                           # the settings shown
print(glue("k", k), glue("xi", xi, ".1f"), glue("V", V))

# Greedy: the most likely token.
greedy = int(np.argmax(z))
print(glue("greedy", greedy), glue("p_greedy", float(p[greedy]), ".3f"))
print(check_equal("greedy = the token with the largest logit, found by a loop", greedy,
                  max(range(V), key=lambda j: (z[j], -j)), eq="greedy"))

# Temperature: softmax(z / tau), which is p_j^(1/tau) renormalised.
p_tau = softmax(z, temperature=tau)
print(check_close("softmax(z / tau) = p_j^(1/tau) / sum_j' p_j'^(1/tau)", p_tau, p ** (1 / tau) / np.sum(p ** (1 / tau)),
                  eq="temperature", atol=1e-14))
gap = float(z[order[0]] - z[order[1]])
cold_taus = (0.1, 0.01)
print(glue("tau_a", cold_taus[0], ".1f"), glue("tau_b", cold_taus[1], ".2f"))
for t in cold_taus:
    rest = 1 - softmax(z, temperature=t)[greedy]
    print(check_less(f"tau = {t}: the mass off the greedy token is at most (|V| - 1) exp(-gap / tau)", rest,
                     (V - 1) * math.exp(-gap / t) * (1 + 1e-9) + 1e-300, names=("1 - p_tau(greedy)", "bound")))
print(glue("gap", gap, ".2f"), glue("bound_a", (V - 1) * math.exp(-gap / cold_taus[0]), ".1e"))


# Top-k: keep the k most likely tokens, renormalise.
def top_k_filter(probs, k):
    keep = np.zeros(V, bool)
    keep[np.argsort(-probs, kind="stable")[:k]] = True
    return keep


def top_p_filter(probs, xi):
    """The smallest set of most likely tokens whose mass reaches xi (sorted cumulative sum)."""
    srt = np.argsort(-probs, kind="stable")
    m = int(np.searchsorted(np.cumsum(probs[srt]), xi)) + 1   # first prefix with mass >= xi
    keep = np.zeros(V, bool)
    keep[srt[:m]] = True
    return keep


def renormalise(probs, keep):
    q = np.where(keep, probs, 0.0)
    return q / q.sum()


keep_k = top_k_filter(p, k)
print(glue("mass_k", float(p[keep_k].sum()), ".3f"))
threshold = np.partition(p, V - k)[V - k]          # the k-th largest probability, without sorting
print(check_equal(f"top-k keeps exactly the tokens with p_j >= the {k}-th largest (np.partition)", keep_k, p >= threshold,
                  eq="top-k"))

keep_p = top_p_filter(p, xi)
m = int(keep_p.sum())
mass_p = float(p[keep_p].sum())
best_smaller = float(np.sum(np.partition(p, V - (m - 1))[V - (m - 1):]))   # the most mass any m - 1 tokens hold
print(glue("m", m), glue("mass_p", mass_p, ".3f"))
print(check_true(f"top-p set reaches xi = {xi}", mass_p >= xi, f"mass {mass_p:.4f} of {m} tokens"))
print(check_less(f"and is the smallest: no {m - 1} tokens reach it (the {m - 1} largest, by np.partition, hold less)",
                 best_smaller, xi, eq="top-p", names=(f"max mass of {m - 1} tokens", "xi")))
print(check_true("and it holds the most likely tokens: every kept p_j >= every dropped p_j",
                 p[keep_p].min() >= p[~keep_p].max(), f"{p[keep_p].min():.4f} >= {p[~keep_p].max():.4f}"))

S = [j for j in range(V) if keep_p[j]]
q_loop = [p[j] / sum(p[i] for i in S) if j in S else 0.0 for j in range(V)]
print(check_close("renormalised top-p distribution = p_j / (mass of S) on S, 0 elsewhere (loop)", renormalise(p, keep_p),
                  q_loop, eq="truncate", atol=1e-15))

methods = {
    "greedy": (np.eye(V)[greedy], np.eye(V, dtype=bool)[greedy]),
    f"temperature {tau}": (p_tau, np.ones(V, bool)),
    f"top-k, k = {k}": (renormalise(p, keep_k), keep_k),
    f"top-p, ξ = {xi}": (renormalise(p, keep_p), keep_p),
}


# Sampling: inverse CDF on seeded uniforms. 10,000 draws per method.
def sample(q, n, rng):
    return np.minimum(np.searchsorted(np.cumsum(q), rng.random(n), side="right"), V - 1)


# The test of the draws. A correct sampler gives each kept token j a count with the binomial
# distribution B(N, q_j). A count fails when the exact binomial tail beyond it, on either side, holds
# at most level / 2; so each token fails with probability at most level, and with level = alpha /
# n_tests (Bonferroni) a correct sampler fails any of the n_tests counts with probability at most
# alpha. Exact tails hold for the rare tokens too, whose expected counts are far below 1.
def count_bounds(q, n, level):
    """The smallest and largest count of each token that passes: (lo, hi) arrays. A dropped token
    (q_j = 0) must have count 0 and a sure one (q_j = 1) count n; those are not random."""
    c = np.arange(n + 1)
    lo, hi = np.where(q >= 1, n, 0), np.where(q >= 1, n, 0)
    for j in np.flatnonzero((q > 0) & (q < 1)):
        passes = (binom.cdf(c, n, q[j]) > level / 2) & (binom.sf(c - 1, n, q[j]) > level / 2)   # P(X <= c), P(X >= c)
        lo[j], hi[j] = c[passes][0], c[passes][-1]
    return lo, hi


N = 10_000
rng = np.random.default_rng(2017)
n_tests = sum(int(((q > 0) & (q < 1)).sum()) for q, _ in methods.values())   # the random counts
alpha = 1e-3                                          # the chance allowed for a correct sampler to fail
level = alpha / n_tests
bounds = {name: count_bounds(q, N, level) for name, (q, _) in methods.items()}
# A check of count_bounds, not of the sampler: the chance that a correct sampler fails, summed token by
# token from the exact tails outside the bounds, stays below alpha when each bound cuts at most level / 2.
fail_sum = sum(float(binom.cdf(lo - 1, N, q).sum() + binom.sf(hi, N, q).sum())
               for (q, _), (lo, hi) in zip(methods.values(), bounds.values()))
print(check_less(f"count_bounds (a check of the bounds, not of the sampler): a correct sampler fails any of the "
                 f"{n_tests} counts with probability at most alpha = {alpha:g}, the summed exact binomial tails "
                 f"outside the bounds (Bonferroni)", fail_sum, alpha, names=("sum of tails", "alpha")))
print(glue("N", N, ","))
rows = []
for name, (q, keep) in methods.items():
    draws = sample(q, N, rng)
    counts = np.bincount(draws, minlength=V)
    lo, hi = bounds[name]
    print(check_true(f"{name}: every draw is a kept token", keep[draws].all(), f"{len(set(draws.tolist()))} distinct tokens drawn"))
    random = (q > 0) & (q < 1)
    print(check_true(f"{name}: every token's count of {N:,} draws within its exact binomial bounds at level alpha / {n_tests}",
                     ((counts >= lo) & (counts <= hi)).all(),
                     f"{int(random.sum())} random counts inside their bounds" if random.any()
                     else f"the one kept token drew all {N:,}"))
    rows.append((name, int(keep.sum()), f"{p[keep].sum():.3f}", f"{float(np.abs(counts / N - q).max()):.4f}"))
# The test can fail: a sampler at a wrong temperature (0.55 instead of 0.5) puts counts outside the bounds.
q_wrong = softmax(z, temperature=0.55)
out = np.bincount(sample(q_wrong, N, rng), minlength=V)
lo, hi = bounds[f"temperature {tau}"]
print(check_true(f"a sampler at temperature 0.55 instead of {tau} fails the same test", ((out < lo) | (out > hi)).any(),
                 f"{int(((out < lo) | (out > hi)).sum())} of {V} counts outside their bounds"))
print(table(("method", "tokens kept", "mass kept of $\\mathbf p$", "largest $\\lvert f_j-q_j\\rvert$"), rows))

# Temperature -> 0 is greedy, by sampling too: 10,000 draws at tau = 0.01.
cold = sample(softmax(z, temperature=cold_taus[1]), N, rng)
print(check_equal(f"tau = {cold_taus[1]}: all {N:,} draws are the greedy token", set(cold.tolist()), {greedy}))

fig, axes = figure(1, 4, size=(7.6, 2.3), sharey=True)
top = order[:16]
for ax, (name, (q, keep)), col in zip(axes, methods.items(), PALETTE):
    ax.bar(range(len(top)), p[top], color=[col if keep[j] else "#888888" for j in top], width=0.8)
    if name.startswith("temperature"):
        ax.step(range(len(top)), p_tau[top], where="mid", color=PALETTE[4], lw=1.4, label="$\\mathbf{p}_\\tau$")
        ax.legend(fontsize=7, loc="upper right")
    ax.set_title(f"{name}\n{int(keep.sum())} kept, mass {p[keep].sum():.2f}", fontsize=8)
    ax.set_xticks([])
    ax.set_xlabel("tokens, most likely first", fontsize=7)
axes[0].set_ylabel("$p_j$")
print(svg(fig, alt=f"Four bar charts of the tiny model's 16 most likely next tokens. Greedy keeps one token "
          f"(mass {p[greedy]:.2f}); temperature {tau} keeps all and sharpens them; top-k keeps {k} (mass "
          f"{p[keep_k].sum():.2f}); top-p keeps {m} (mass {mass_p:.2f})",
          caption=f"What each method keeps of the distribution $\\mathbf p$ (coloured bars; grey bars are dropped). "
                  f"Temperature drops nothing and reshapes $\\mathbf p$ into $\\mathbf p_\\tau$ (line, $\\tau={tau}$)."))
