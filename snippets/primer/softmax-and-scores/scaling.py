"""P4 Why divide by sqrt(d_k): the variance of q.k grows like d_k, large scores saturate the
softmax, and a saturated softmax passes almost no gradient."""
import math

import numpy as np

from esm import PALETTE, check_close, check_less, figure, glue, numerical_grad, softmax, svg, table

rng = np.random.default_rng(4)
n = 2000
dims = [4, 16, 64, 256, 1024]
var_raw, var_scaled = [], []
for d_k in dims:
    q, k = rng.normal(size=(n, d_k)), rng.normal(size=(n, d_k))   # unit-variance entries
    dots = np.einsum("nd,nd->n", q, k)
    var_raw.append(dots.var())
    var_scaled.append((dots / math.sqrt(d_k)).var())
print(table(("$d_k$", "measured Var$(\\mathbf q^\\top\\mathbf k)$", "$d_k$ (closed form)",
             "measured Var$(\\mathbf q^\\top\\mathbf k/\\sqrt{d_k})$"),
            [(d, f"{v:.1f}", d, f"{w:.3f}") for d, v, w in zip(dims, var_raw, var_scaled)]))
print(check_close(f"measured variance of q.k over {n} pairs matches d_k (within 10 %)", np.array(var_raw),
                  np.array(dims, dtype=float), rtol=0.10, atol=0.0, eq="dot-variance"))
print(check_close("after dividing by sqrt(d_k) the variance is about 1 at every d_k", np.array(var_scaled),
                  np.ones(len(dims)), atol=0.10))

print(glue("n", n, ","), glue("dims", dims), glue("var_raw", var_raw, ".1f"), glue("var_lo", min(var_scaled), ".3f"),
      glue("var_hi", max(var_scaled), ".3f"), glue("sd_1024", math.sqrt(dims[-1]), ".0f"))
# The notes' two saturation examples, computed.
a50, a500 = softmax(np.array([50.0, 52.0, 48.0])), softmax(np.array([500.0, 520.0, 480.0]))
source_claim = [0.1, 0.8, 0.1]                       # what the notes print for softmax(50, 52, 48)
e50 = [math.exp(v - 52.0) for v in (50.0, 52.0, 48.0)]
print(check_close("softmax(50, 52, 48) by math.exp, shifted by the max", a50, np.array(e50) / sum(e50), atol=1e-15))
print(check_less("and it is not the notes' (0.1, 0.8, 0.1): the last weight is off by more than 0.08", 0.08,
                 abs(a50[2] - source_claim[2]), names=("0.08", "|a_2 - 0.1|")))
print(glue("a50", a50, ".3f"), glue("src_claim", source_claim, ".1f"), glue("e4", math.exp(4), ".0f"),
      glue("a500_0", float(a500[0]), ".0e"), glue("a500_2", float(a500[2]), ".0e"))
print(check_less("softmax(500, 520, 480): the runner-up weight is below 1e-8", a500[0], 1e-8,
                 names=("weight of 500", "1e-8")))

# Gradient: the Jacobian of softmax, da_i/ds_j = a_i (delta_ij - a_j), against finite differences.
s = rng.normal(size=5)
a = softmax(s)
J = np.diag(a) - np.outer(a, a)
fd = np.stack([numerical_grad(lambda x: softmax(x)[i], s) for i in range(5)])   # row i: d a_i / d s
print(check_close("softmax Jacobian A_ts (delta_ss' - A_ts') equals central finite differences", J, fd, eq="softmax-jacobian",
                  atol=1e-9))

# Saturation with and without the scaling, at d_k = 512 and T = 16 keys, 500 random queries.
d_k, T, m = 512, 16, 500
Q, K = rng.normal(size=(m, d_k)), rng.normal(size=(T, d_k))
stats = {}
for name, S in (("unscaled", Q @ K.T), ("scaled by 1/sqrt(d_k)", Q @ K.T / math.sqrt(d_k))):
    A = softmax(S)
    J_all = A[:, :, None] * np.eye(T) - A[:, :, None] * A[:, None, :]      # one Jacobian per query
    jac = np.linalg.norm(J_all, axis=(1, 2))
    stats[name] = (float(S.std()), float(A.max(axis=1).mean()), float(np.median(jac)))
print(table(("scores", "std of scores", "mean largest weight", "median Jacobian norm $\\lVert J\\rVert_F$"),
            [(k, f"{v[0]:.2f}", f"{v[1]:.3f}", f"{v[2]:.2e}") for k, v in stats.items()]))
(sd_u, top_u, jac_u), (sd_s, top_s, jac_s) = stats.values()
print(glue("dk_sat", d_k), glue("T_sat", T), glue("sd_u", sd_u, ".1f"), glue("top_u", top_u, ".2f"), glue("jac_u", jac_u, ".0e"),
      glue("top_s", top_s, ".2f"), glue("jac_s", jac_s, ".3f"), glue("jac_ratio", jac_s / jac_u, ".0f"))
print(check_less("unscaled scores pass a far smaller gradient (median Jacobian norm)",
                 stats["unscaled"][2], stats["scaled by 1/sqrt(d_k)"][2] / 100, names=("unscaled", "scaled / 100")))

fig, ax = figure(size=(5.2, 2.8))
ax.loglog(dims, var_raw, "o-", color=PALETTE[0], label="Var$(\\mathbf{q}^\\top\\mathbf{k})$ measured")
ax.loglog(dims, dims, ":", color=PALETTE[4], label="$d_k$")
ax.loglog(dims, var_scaled, "s--", color=PALETTE[1], label="after dividing by $\\sqrt{d_k}$")
ax.set_xlabel("$d_k$")
ax.set_ylabel("variance")
ax.legend(loc="center right", frameon=False, fontsize=8)
print(svg(fig, alt="Log-log plot of the measured variance of q dot k against d_k: it follows the line "
          "variance = d_k, while the scaled version stays at 1",
          caption=f"Measured over {n} random pairs with unit-variance entries per $d_k$."))
