"""5.5 Vocabulary resizing: new rows at the mean row barely move the next-token distribution."""
import math

import numpy as np

from esm import PALETTE, check_close, check_less, check_true, figure, glue, log_softmax, shape_table, softmax, svg

rng = np.random.default_rng(55)
V, d, n_new, N, m_len, jitter = 200, 16, 3, 64, 3.0, 1e-3
m = rng.normal(0, 1, d)
m *= m_len / np.linalg.norm(m)                   # a direction every trained output row shares
E = m + rng.normal(0, 0.5, (V, d))               # tied table: rows = E_{i,:} = w_i
Hs = -0.8 * m + rng.normal(0, 0.5, (N, d))       # final hidden states h_n of N contexts, one per row
# h . m < 0, so most logits sit far below the few large ones.

mean_row = E.mean(axis=0)
E_mean = np.vstack([E, np.tile(mean_row, (n_new, 1)) + rng.normal(0, jitter, (n_new, d))])  # [E; E_new]
E_rand = np.vstack([E, rng.normal(0, E.std(), (n_new, d))])                              # same scale, no shared part


def kl_old_vs_new(E_new_table):
    """KL(p || p') per context: p over the old vocabulary, p' over the resized one."""
    logp = log_softmax(Hs @ E.T)
    logq = log_softmax(Hs @ E_new_table.T)[:, :V]
    return np.sum(np.exp(logp) * (logp - logq), axis=1)


kl_mean, kl_rand = kl_old_vs_new(E_mean), kl_old_vs_new(E_rand)
VN = r"(\lvert\mathcal{V}\rvert+N_{\text{new}})"   # the size of the resized vocabulary, |V| + N_new

print(shape_table({"V": V, "d": d, r"N_{\text{new}}": n_new, "N": N, VN: V + n_new}, [
    ("old table", "E", E, "V d", "tied: rows are also the output rows"),
    ("mean row", r"\bar{\mathbf e}", mean_row, "d", r"$\frac1{\lvert\mathcal V\rvert}\sum_i E_{i,:}$"),
    ("resized table", "E'", E_mean, f"{VN} d", r"$[E;E_{\text{new}}]$, new rows near $\bar{\mathbf e}$"),
    ("hidden states", "", Hs, "N d", r"one context per row, row $n$ is $\mathbf h_n$"),
    ("old distributions", r"\mathbf p", softmax(Hs @ E.T), "N V", "before resizing"),
    ("new distributions", r"\mathbf p'", softmax(Hs @ E_mean.T), f"N {VN}", r"after; $N_{\text{new}}$ new columns"),
]))

mean_loop = sum(E[i] for i in range(V)) / V     # the mean row, accumulated one row at a time
# The old rows of E' are E itself (np.vstack copies them), so comparing them would compare E with E.
# The new rows carry a jitter of standard deviation 1e-3: five of them is the tolerance.
print(check_close(f"E' = [E; E_new]: the {n_new} new rows are within 5e-3 (5 x the jitter) of the mean row, "
                  "accumulated row by row", E_mean[V:], np.tile(mean_loop, (n_new, 1)), atol=5 * jitter, eq="resize"))
t = 0                                             # KL for one context by a plain loop
z_old = [float(Hs[t] @ E[i]) for i in range(V)]
z_new = [float(Hs[t] @ E_mean[V + r]) for r in range(n_new)]
Z, Z_add = sum(math.exp(z) for z in z_old), sum(math.exp(z) for z in z_new)
print(check_close("KL(p || p') = log(1 + sum_new exp z / sum_old exp z), context 0", kl_mean[t],
                  math.log(1 + Z_add / Z), atol=1e-12, eq="resize-kl"))
bound = math.log(1 + n_new / V)                   # Jensen: exp(mean z) <= mean exp(z)
kl_exact = kl_old_vs_new(np.vstack([E, np.tile(mean_row, (n_new, 1))]))
print(check_true("rows exactly at the mean row: KL <= log(1 + N_new/|V|) in every context (Jensen)",
                 np.all(kl_exact <= bound), f"max KL {kl_exact.max():.5f}, bound {bound:.5f}"))
print(check_true(f"with the {jitter:g} jitter as well", np.all(kl_mean <= bound),
                 f"max KL {kl_mean.max():.5f}, bound {bound:.5f}"))
print(check_less("mean init disturbs less than random rows of the same scale (mean KL over contexts)",
                 kl_mean.mean(), kl_rand.mean(), names=("mean init", "random init")))
kl_zero = kl_old_vs_new(np.vstack([E, np.zeros((n_new, d))]))
print(check_less("zero rows are no safer: logit 0 is far above the typical old logit", kl_mean.mean(),
                 kl_zero.mean(), names=("mean init", "zero init")))
p_new_rand = softmax(Hs @ E_rand.T)[:, V:].sum(axis=1)
p_new_mean = softmax(Hs @ E_mean.T)[:, V:].sum(axis=1)
print(check_true("random rows take a large share of the probability at once", np.median(p_new_rand) > 0.5,
                 f"median probability of the {n_new} new tokens: random {np.median(p_new_rand):.3f}, "
                 f"mean-init {np.median(p_new_mean):.5f}"))
print(glue("m_len", m_len, ".0f"), glue("k_rs", n_new), glue("kl_max", kl_mean.max(), ".4f"),
      glue("kl_bound", bound, ".4f"), glue("kl_rand", kl_rand.mean(), ".2f"), glue("kl_mean", kl_mean.mean(), ".4f"),
      glue("kl_zero", kl_zero.mean(), ".2f"), glue("mass_rand", np.median(p_new_rand), ".0%"),
      glue("mass_mean", np.median(p_new_mean), ".1%"))

fig, ax = figure(size=(6.4, 2.7))
bins = np.linspace(-5, 2, 36)                     # log10 of the KL: plain tick labels draw fast
ax.hist(np.log10(np.maximum(kl_mean, 1e-5)), bins=bins, color=PALETTE[0], alpha=0.8, label="new rows = mean row")
ax.hist(np.log10(np.maximum(kl_rand, 1e-5)), bins=bins, color=PALETTE[1], alpha=0.8, label="new rows random")
ax.axvline(np.log10(bound), color=PALETTE[4], lw=1, ls="--")
ax.set_xlabel("log10 of KL(p || p') per context (nats)")
ax.set_ylabel("contexts")
ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)
print(svg(fig, alt=f"Histograms of the KL divergence in each of {N} contexts on a log axis: with the {n_new} new rows at the "
          f"mean row every KL stays below the dashed bound {bound:.4f} (largest {kl_mean.max():.4f}); with random rows "
          f"the KL is orders of magnitude larger, {kl_rand.mean():.2f} nats on average",
          caption=f"How much adding {n_new} tokens moves "
          "the distribution over the old vocabulary; the dashed line is $\\log(1+N_{\\text{new}}/\\lvert\\mathcal V\\rvert)$."))
