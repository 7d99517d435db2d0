"""Exercise: attention at high temperature (7.2). The Taylor bound on how far the weights are from
(1 + x_s)/T, derived in three steps, and dH/dtau = Var_a(s)/tau^3, each checked independently."""
import math

import numpy as np

from esm import attention, check_close, check_equal, check_less, check_true, glue, numerical_grad

T, d_k = 6, 4
rng = np.random.default_rng(72)
q, K = rng.normal(0.0, 1.0, (1, d_k)), rng.normal(0.0, 1.0, (T, d_k))
s = (K @ q[0]) / math.sqrt(d_k)                 # scaled scores S_ts / sqrt(d_k)


def weights(tau):
    return attention(q, K, np.eye(T), temperature=tau)[1][0]


def entropy(a):
    return float(-(a * np.log(a)).sum())


tau = 20.0
x = (s - s.mean()) / tau                        # centred: sum_s x_s = 0
m = float(np.abs(x).max())
eps = m ** 2 * math.exp(m) / 2
rho = np.exp(x) - 1 - x                         # Taylor's remainder of each exponential
print(check_true("(a) step 1: |e^x - 1 - x| <= x^2 e^|x| / 2 <= eps for every score", bool(np.all(np.abs(rho) <= eps)),
                 f"max |remainder| {np.abs(rho).max():.3g} <= eps = {eps:.3g}"))
delta = np.exp(x).sum() / T - 1                 # sum_j e^{x_j} = T (1 + delta), because sum_j x_j = 0
print(check_close("(a) step 2: sum_j e^{x_j} = T (1 + delta) with delta = mean remainder (sum of x is 0)", delta,
                  rho.mean(), atol=1e-15))
bound = eps * (2 + m) / (T * (1 - eps))
err = float(np.abs(weights(tau) - (1 + x) / T).max())
print(check_less(f"(a) step 3: at tau = {tau:g}, max_s |a_s - (1 + x_s)/T| <= eps (2 + m) / (T (1 - eps))", err, bound,
                 names=("error", "bound")))

# (b) dH/dtau = Var_a(s) / tau^3, against central differences of the entropy.
for tau_b in (0.5, 1.0, 3.0):
    a = weights(tau_b)
    var_a = float(a @ s ** 2 - (a @ s) ** 2)
    fd = numerical_grad(lambda t: entropy(weights(float(t[0]))), np.array([tau_b]), eps=1e-5)[0]
    print(check_close(f"(b) dH/dtau = Var_a(s)/tau^3 at tau = {tau_b:g} (closed form vs finite differences)", fd,
                      var_a / tau_b ** 3, atol=1e-7))
# (c) the sign: a variance is >= 0, so H never falls as tau rises; premise: the scores are not all equal.
print(check_true("(c) premise: the scores are not all equal, so Var_a(s) > 0 at every tau and H rises strictly",
                 float(np.ptp(s)) > 0, f"scores span {np.ptp(s):.4f}"))
# (c) the largest weight 1 / sum_j exp((s_j - s_max)/tau) falls as tau rises: attention's weights on a grid.
grid = np.geomspace(0.05, 50.0, 60)
top = np.array([weights(t).max() for t in grid])
print(check_close("(c) the largest weight is 1 / sum_j exp((s_j - s_max)/tau) (closed form vs attention's weights)",
                  top, [1.0 / np.exp((s - s.max()) / t).sum() for t in grid], atol=1e-12))
print(check_true("(c) ... and falls at every step of a grid of 60 temperatures from 0.05 to 50", bool(np.all(np.diff(top) < 0)),
                 f"from {top[0]:.4f} to {top[-1]:.4f} (1/T = {1 / T:.4f})"))
# (c) da_j/dtau = a_j (<s> - s_j) / tau^2 (against finite differences), and which keys rise then fall: predicted from the
# scores (above the plain mean, below the maximum), observed on a fine grid of temperatures.
tau_c = 1.0
a_c = weights(tau_c)
fd_a = np.array([(weights(tau_c + 1e-6)[j] - weights(tau_c - 1e-6)[j]) / 2e-6 for j in range(T)])
print(check_close("(c) da_j/dtau = a_j (<s> - s_j) / tau^2 at tau = 1 (closed form vs finite differences)", fd_a,
                  a_c * (a_c @ s - s) / tau_c ** 2, atol=1e-6))
fine = np.geomspace(1e-3, 1e3, 4001)
W_f = np.array([weights(t) for t in fine])
d_w = np.diff(W_f, axis=0)
peaked = [j for j in range(T) if np.any(d_w[:, j] > 0) and np.any(d_w[:, j] < 0)
          and np.argmax(d_w[:, j] < 0) > np.argmax(d_w[:, j] > 0) and np.all(d_w[np.argmax(d_w[:, j] < 0):, j] <= 0)]
predicted = [j for j in range(T) if s.mean() < s[j] < s.max()]
print(check_equal("(c) keys whose weight rises then falls on a grid of 4,001 temperatures = keys scoring between the mean and the "
                  "maximum", peaked, predicted))
print(glue("ht_n_peak", len(peaked)), glue("ht_T", T), glue("ht_tau", tau, "g"), glue("ht_err", err, ".1e"), glue("ht_bound", bound, ".1e"), sep="")
