"""Exercise: why scores are divided by sqrt(d_k). The variance of q.k grows like d_k, and
unscaled softmax weights collapse onto one key as d_k grows."""
import math

import numpy as np

from esm import check_close, check_true, glue, share_of_seeds, softmax

T, DIMS, SAMPLES = 16, (4, 16, 64, 256), 20000


def entropy(w):
    w = w[w > 0]
    return float(-(w * np.log(w)).sum())


def entropies(seed, d_k):
    rng = np.random.default_rng(seed)
    q, K = rng.normal(0.0, 1.0, d_k), rng.normal(0.0, 1.0, (T, d_k))
    raw = K @ q
    return entropy(softmax(raw)), entropy(softmax(raw / math.sqrt(d_k)))


SEED = 116
rng = np.random.default_rng(SEED)
variances = []
for d_k in DIMS:
    q, k = rng.normal(0.0, 1.0, (SAMPLES, d_k)), rng.normal(0.0, 1.0, (SAMPLES, d_k))
    dots = np.sum(q * k, axis=1)
    # Var(q.k) = d_k exactly (independent standard normal entries); the sample variance of n
    # products has standard error d_k sqrt((E[x^4] - 1) / n) with x = q.k / sqrt(d_k), and
    # E[x^4] = 3 + 6/d_k, so the standard error is d_k sqrt((2 + 6/d_k) / n).
    se = d_k * math.sqrt((2 + 6 / d_k) / SAMPLES)
    print(check_close(f"(b) d_k = {d_k}: Var(q.k) = d_k", float(dots.var()), d_k, atol=4 * se))
    variances.append(float(dots.var()))
shown = {d_k: entropies(SEED, d_k) for d_k in DIMS}
seeds = range(SEED, SEED + 50)
mean_raw = {d_k: float(np.mean([entropies(s, d_k)[0] for s in seeds])) for d_k in DIMS}
mean_scaled = {d_k: float(np.mean([entropies(s, d_k)[1] for s in seeds])) for d_k in DIMS}
falls = share_of_seeds(lambda s: entropies(s, DIMS[-1])[0] < entropies(s, DIMS[0])[0], seeds)
raw_means = [mean_raw[k] for k in DIMS]


def jacobian_norms(seed, d_k):
    """Frobenius norm of the softmax Jacobian diag(a) - a a^T, unscaled and scaled scores;
    checked against central differences of the softmax on the first seed."""
    rng = np.random.default_rng(seed)
    q, K = rng.normal(0.0, 1.0, d_k), rng.normal(0.0, 1.0, (T, d_k))
    out = []
    for x in (K @ q, K @ q / math.sqrt(d_k)):
        a = softmax(x)
        out.append(float(np.linalg.norm(np.diag(a) - np.outer(a, a))))
    return out


x0 = np.random.default_rng(SEED).normal(0.0, 1.0, T)
a0 = softmax(x0)
fd_jac = np.array([(softmax(x0 + 1e-6 * e) - softmax(x0 - 1e-6 * e)) / 2e-6 for e in np.eye(T)]).T
print(check_close("(c) the softmax Jacobian is diag(a) - a a^T (central differences)", np.diag(a0) - np.outer(a0, a0),
                  fd_jac, atol=1e-8))
jac = np.array([jacobian_norms(s, DIMS[-1]) for s in seeds]).mean(axis=0)
print(check_true(f"(c) at d_k = {DIMS[-1]} the unscaled Jacobian is smaller than the scaled one (mean over 50 seeds)",
                 jac[0] < jac[1], f"unscaled {jac[0]:.3f}, scaled {jac[1]:.3f}"))
print(check_true("(c) averaged over 50 seeds, the unscaled entropy falls at every step of d_k",
                 all(x > y for x, y in zip(raw_means, raw_means[1:])), ", ".join(f"{x:.3f}" for x in raw_means)))
scaled_means = [mean_scaled[k] for k in DIMS]
print(check_true("(c) the scaled entropy moves less across all d_k than the unscaled one does in its first step",
                 max(scaled_means) - min(scaled_means) < raw_means[0] - raw_means[1],
                 f"scaled range {max(scaled_means) - min(scaled_means):.3f}, unscaled first step "
                 f"{raw_means[0] - raw_means[1]:.3f}"))
print(glue("e16_T", T), glue("e16_dims", list(DIMS)), glue("e16_vars", variances, ".1f"),
      glue("e16_raw", [mean_raw[k] for k in DIMS], ".2f"), glue("e16_scaled", [mean_scaled[k] for k in DIMS], ".2f"),
      glue("e16_samples", SAMPLES, ","), glue("e16_falls", falls, ".0%"),
      glue("e16_jac_raw", jac[0], ".3f"), glue("e16_jac_scaled", jac[1], ".3f"), glue("e16_dmax", DIMS[-1]),
      sep="")
