"""7.2 Attention as a soft nearest-neighbour lookup: as the temperature falls, the weights
collapse onto the best-matching key and the output becomes that key's value row; as it
rises, the weights approach the uniform mean."""
import numpy as np

from esm import (PALETTE, attention, check_close, check_equal, check_less, figure, glue,
                 numerical_grad, shape_table, svg)

rng = np.random.default_rng(72)
T, d_k, d_v = 6, 4, 3
q = rng.normal(0.0, 1.0, (1, d_k))               # one query
K = rng.normal(0.0, 1.0, (T, d_k))               # six keys
V = rng.normal(0.0, 1.0, (T, d_v))               # and their values


def entropy(w):
    w = w[w > 0]
    return float(-(w * np.log(w)).sum())


# The weights collapse once tau falls below the gap g between the best and the second-best scaled
# score (the weight off the best key is at most (T - 1) exp(-g / tau)), so the lowest temperature shown
# is g / 40, where that bound is below 1e-16: the claim at the low end then holds for every draw.
# (A fixed tau = 0.02 left the output within 1e-6 of the best value row in only half the draws.)
top2 = np.sort(K @ q[0] / np.sqrt(d_k))[::-1][:2]
gap = float(top2[0] - top2[1])
temps = np.geomspace(gap / 40, 50.0, 41)
outs, weights, ents = [], [], []
for tau in temps:
    o, w = attention(q, K, V, temperature=tau)
    outs.append(o[0]); weights.append(w[0]); ents.append(entropy(w[0]))
ents = np.array(ents)

print(shape_table({"T": T, "d_k": d_k, "d_v": d_v}, [
    ("query", r"\mathbf q", q[0], "d_k", "the position asking"),
    ("keys", "K", K, "T d_k", "one address per position"),
    ("values", "V", V, "T d_v", "one content row per position"),
    ("weights", r"\mathbf a", weights[0], "T", "a probability vector over positions"),
    ("output", r"\mathbf o", outs[0], "d_v", r"$\mathbf a^\top V$, a convex mix of value rows"),
]))

# Independent computation at tau = 1: exponentiate, normalise and mix, one key at a time.
s = np.array([float(q[0] @ K[j]) / np.sqrt(d_k) for j in range(T)])   # scaled scores S_ts / sqrt(d_k)
e = [np.exp(x) for x in s]
a = [x / sum(e) for x in e]
o_loop = sum(a[j] * V[j] for j in range(T))
o1, w1 = attention(q, K, V)
print(check_close("softmax(q K^T / sqrt(d_k)) V equals the weighted sum of value rows (loop)",
                  o1[0], o_loop, atol=1e-12, eq="soft-lookup"))

# Low temperature: a_s* = 1 / (1 + R) with R = sum_{s != s*} exp(-g_s/tau), g_s the scaled gap to
# the best key, so the weight off the best key is R / (1 + R), about R: it vanishes like exp(-g/tau).
best = int(np.argmax(K @ q[0]))
print(check_close(f"at tau = g/40 = {temps[0]:.2g} (g = {gap:.3g}, the gap between the two best scaled scores) "
                  f"the output is the value row of the best key (s* = {best})",
                  outs[0], V[best], atol=1e-12, eq="hard-limit"))
# High temperature: o - mean(V) = sum_s (a_s - 1/T) v_s, so |o - mean(V)| <= max_s |a_s - 1/T| * sum_s |v_s|.
tau_hi = temps[-1]
uniform_gap = float(np.abs(weights[-1] - 1 / T).max())
print(check_less(f"at tau = {tau_hi:g} the output is within max|a_s - 1/T| * sum|v_s| of the plain mean of the values",
                 float(np.linalg.norm(outs[-1] - V.mean(axis=0))),
                 uniform_gap * float(np.linalg.norm(V, axis=1).sum()), names=("|o - mean V|", "bound")))

# argmax then index: its output is piecewise constant in q and K (zero gradient to every key
# and score); only the winner's value row receives a gradient.
c = rng.normal(0.0, 1.0, d_v)                    # any downstream direction


def hard(qv, Kv, Vv):
    return float(c @ Vv[int(np.argmax(Kv @ qv))])


gK = numerical_grad(lambda Kv: hard(q[0], Kv, V), K.copy())
gq = numerical_grad(lambda qv: hard(qv, K, V), q[0].copy())
gV = numerical_grad(lambda Vv: hard(q[0], K, Vv), V.copy())
print(check_close("argmax-then-index: zero gradient to every key and to the query (so to every score)",
                  np.concatenate([gK.ravel(), gq]), np.zeros(K.size + d_k), atol=0.0))
rows_with_grad = [int(j) for j in np.flatnonzero(np.abs(gV).sum(axis=1) > 0)]
print(check_equal("argmax-then-index: only the winner's value row gets a gradient", rows_with_grad, [best]))

w_std = attention(q, K, V)[1][0]
h_std = entropy(w_std)
print(glue("sl_T", T), glue("sl_best", best), glue("sl_best_weight", w_std[best], ".3f"),
      glue("sl_tau_lo", temps[0], ".2g"), glue("sl_tau_hi", tau_hi, "g"),
      glue("sl_uniform_gap", float(np.ceil(uniform_gap * 1e4) / 1e4), ".1e"), sep="")

fig, ax = figure(size=(5.6, 3.0))
ax.semilogx(temps, ents, color=PALETTE[0], label="entropy of the weights")
ax.axhline(np.log(T), color=PALETTE[1], ls="--", lw=1.2, label=r"$\log T$ (uniform)")
ax.axvline(1.0, color=PALETTE[2], ls=":", lw=1.2, label=r"$\tau=1$ (standard)")
ax.set_xlabel(r"temperature $\tau$")
ax.set_ylabel("entropy (nats)")
ax.legend(loc="center right", fontsize=8, frameon=False)
print(svg(fig, alt=f"Entropy of one query's attention weights over {T} keys against temperature: "
                   f"{ents[0]:.3f} nats at tau = {temps[0]:.2g}, {h_std:.3f} at tau = 1, "
                   f"{ents[-1]:.3f} at tau = {temps[-1]:g}, below log {T} = {np.log(T):.3f}",
          caption=f"Entropy of one query's weights over {T} keys against the temperature: near 0 "
                  rf"(one key) at low $\tau$, close to $\log {T}$ (all keys alike) at high $\tau$."))
