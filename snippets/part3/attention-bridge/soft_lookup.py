"""7.2 Attention as a soft nearest-neighbour lookup: as the temperature falls, the weights
collapse onto the best-matching key and the output becomes that key's value row."""
import numpy as np

from esm import PALETTE, attention, check_close, check_equal, check_less, figure, shape_table, svg

rng = np.random.default_rng(72)
T, d_k, d_v = 6, 4, 3
q = rng.normal(0.0, 1.0, (1, d_k))               # one query
K = rng.normal(0.0, 1.0, (T, d_k))               # six keys
V = rng.normal(0.0, 1.0, (T, d_v))               # and their values

def entropy(w):
    w = w[w > 0]
    return float(-(w * np.log(w)).sum())

temps = np.geomspace(0.02, 50.0, 41)
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
s = [float(q[0] @ K[j]) / np.sqrt(d_k) for j in range(T)]
e = [np.exp(x) for x in s]
a = [x / sum(e) for x in e]
o_loop = sum(a[j] * V[j] for j in range(T))
o1, w1 = attention(q, K, V)
print(check_close("softmax(q K^T / sqrt(d_k)) V equals the weighted sum of value rows (loop)",
                  o1[0], o_loop, atol=1e-12, eq="soft-lookup"))

best = int(np.argmax(K @ q[0]))
print(check_close(f"at tau = {temps[0]:g} the output is the value row of the best key (j* = {best})",
                  outs[0], V[best], atol=1e-6, eq="hard-limit"))
print(check_close(f"at tau = {temps[-1]:g} the weights are nearly uniform, 1/T = {1 / T:.4f}",
                  weights[-1], np.full(T, 1 / T), atol=0.01))
print(check_equal("entropy never decreases as the temperature rises",
                  bool(np.all(np.diff(ents) >= -1e-12)), True))
print(check_less("entropy stays below its maximum log T", ents[-1], np.log(T), names=("H(50)", "log 6")))
w_scaled = attention(q, K, V)[1][0]
print(f"\nWeights at tau = 1: {np.round(w_scaled, 3)}; entropy {entropy(w_scaled):.3f} nats "
      f"of at most log 6 = {np.log(T):.3f}.")

fig, ax = figure(size=(5.6, 3.0))
ax.semilogx(temps, ents, color=PALETTE[0], label="entropy of the weights")
ax.axhline(np.log(T), color=PALETTE[1], ls="--", lw=1.2, label=r"$\log T$ (uniform)")
ax.axvline(1.0, color=PALETTE[2], ls=":", lw=1.2, label=r"$\tau=1$ (standard)")
ax.set_xlabel(r"temperature $\tau$")
ax.set_ylabel("entropy (nats)")
ax.legend(loc="center right", fontsize=8, frameon=False)
print(svg(fig, alt="Entropy of attention weights against temperature, rising from zero to log T",
          caption="Entropy of one query's weights over six keys: near 0 (one key) at low "
                  r"$\tau$, near $\log 6$ (all keys alike) at high $\tau$."))
