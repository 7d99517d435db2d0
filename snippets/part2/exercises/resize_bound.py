"""Exercise: the bound on the KL disturbance of mean-initialised new rows (5.5), derived step by
step on a table small enough for a pencil, each step checked against a direct computation."""
import numpy as np

from esm import check_close, check_less, glue, softmax

E = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])   # |V| = 4 old rows, d = 2
h = np.array([np.log(2.0), np.log(3.0)])                         # old logits z = (0, log 2, log 3, log 6)
V, k = len(E), 1
z = E @ h
Z = float(np.exp(z).sum())                                       # 1 + 2 + 3 + 6 = 12
mean_row = E.mean(axis=0)
E_new = np.vstack([E, np.tile(mean_row, (k, 1))])
p = softmax(z)
p_new = softmax(E_new @ h)                                       # the model after resizing, over |V| + k tokens

kl_direct = float(np.sum(p * np.log(p / p_new[:V])))             # the definition, term by term
z_new = E_new[V:] @ h
Z_new = float(np.exp(z_new).sum())
print(check_close("(a) step 1: KL(p || p') = log(1 + Z_new / Z) (closed form vs the sum p_j log(p_j / p'_j))",
                  np.log(1 + Z_new / Z), kl_direct, atol=1e-15))
print(check_close("(a) step 2: a mean row's logit is the mean of the old logits (h . mean row vs the mean of z)",
                  z_new[0], sum(z) / V, atol=1e-15))
print(check_less("(a) step 3: Jensen, exp(mean z) <= mean exp(z) (here sqrt 6 < 12 / 4)", float(np.exp(z.mean())),
                 Z / V, names=("exp(mean z)", "mean exp(z)")))
bound = float(np.log(1 + k / V))
print(check_less("(a) step 4: so KL <= log(1 + k/|V|)", kl_direct, bound, names=("KL", "log(1 + k/|V|)")))
# (b) equality needs equal old logits: h = 0 makes every logit 0.
p0, p0_new = softmax(E @ np.zeros(2)), softmax(E_new @ np.zeros(2))
print(check_close("(b) with h = 0 (all old logits equal) the bound is reached exactly", float(np.sum(p0 * np.log(p0 / p0_new[:V]))),
                  bound, atol=1e-15))
print(glue("rb_kl", kl_direct, ".4f"), glue("rb_bound", bound, ".4f"), sep="")
