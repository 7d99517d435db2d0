"""Exercise: the bound of 5.5 on the KL disturbance of mean-initialised new rows, generalised to new rows
set to the mean of a subset S of the old rows, on a table small enough for a pencil; each step checked
against a direct computation, and the equality cases."""
import numpy as np

from esm import check_close, check_less, check_true, glue, softmax

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
print(check_close("step 1: KL(p || p') = log(1 + Z_new / Z) (closed form vs the sum p_j log(p_j / p'_j))",
                  np.log(1 + Z_new / Z), kl_direct, atol=1e-15))
print(check_close("step 2: a mean row's logit is the mean of the old logits (h . mean row vs the mean of z)",
                  z_new[0], sum(z) / V, atol=1e-15))
print(check_less("step 3: Jensen, exp(mean z) <= mean exp(z) (here sqrt 6 < 12 / 4)", float(np.exp(z.mean())),
                 Z / V, names=("exp(mean z)", "mean exp(z)")))
bound = float(np.log(1 + k / V))
print(check_less("step 4: so KL <= log(1 + k/|V|)", kl_direct, bound, names=("KL", "log(1 + k/|V|)")))


def kl_subset(S, h_):
    """KL(p || p') when k new rows are set to the mean of the old rows in S, from the definition."""
    E_S = np.vstack([E, np.tile(E[S].mean(axis=0), (k, 1))])
    q, q_new = softmax(E @ h_), softmax(E_S @ h_)
    return float(np.sum(q * np.log(q / q_new[:V])))


def subset_bound(S, h_):
    return float(np.log(1 + k * softmax(E @ h_)[S].sum() / len(S)))


def kl_weighted(w, h_):
    """KL(p || p') when k new rows are set to the weighted mean sum_j w_j E_j, from the definition."""
    E_w = np.vstack([E, np.tile(w @ E, (k, 1))])
    q, q_new = softmax(E @ h_), softmax(E_w @ h_)
    return float(np.sum(q * np.log(q / q_new[:V])))


kl_p = kl_weighted(p, h)
bound_p = float(np.log(1 + k * p @ p))
print(check_less("(a) weights w = p: KL <= log(1 + k sum_j w_j p_j) = log(1 + k sum_j p_j^2)", kl_p, bound_p,
                 names=("KL", "log(1 + k sum p_j^2)")))
print(check_close("(a) ... with p = (1, 2, 3, 6)/12 by hand: sum_j p_j^2 = 50/144", float(p @ p), 50 / 144, atol=1e-15))
rng = np.random.default_rng(5)
slack = min(float(np.log(1 + k * w @ softmax(E @ h_))) - kl_weighted(w, h_)
            for w, h_ in ((rng.dirichlet(np.ones(V)), rng.normal(0.0, 2.0, 2)) for _ in range(500)))
print(check_true("(a) 500 random weight vectors and states: the KL never exceeds log(1 + k sum_j w_j p_j)", slack >= -1e-12,
                 f"smallest slack {slack:.3g}"))
S = [1, 3]
print(check_less("(a) mean of S = {1, 3}: KL <= log(1 + k p(S)/|S|)", kl_subset(S, h), subset_bound(S, h),
                 names=("KL", "log(1 + k p(S)/|S|)")))
print(check_close("(a) S = all old rows gives the section's bound log(1 + k/|V|)", subset_bound(list(range(V)), h), bound,
                  atol=1e-14))
for j in range(V):      # (b) |S| = 1: the new row copies row j, Jensen is an equality, the bound is reached
    print(check_close(f"(b) S = {{{j}}} (a copy of row {j}): KL = log(1 + k p_{j}) exactly", kl_subset([j], h),
                      subset_bound([j], h), atol=1e-14))
# (b) equality needs equal old logits over S: h = 0 makes every logit 0.
p0, p0_new = softmax(E @ np.zeros(2)), softmax(E_new @ np.zeros(2))
print(check_close("(b) with h = 0 (all old logits equal) the bound is reached exactly", float(np.sum(p0 * np.log(p0 / p0_new[:V]))),
                  bound, atol=1e-15))
print(glue("rb_kl", kl_direct, ".4f"), glue("rb_bound", bound, ".4f"), glue("rb_kl_s", kl_subset(S, h), ".4f"),
      glue("rb_bound_s", subset_bound(S, h), ".4f"), glue("rb_kl_p", kl_p, ".4f"), glue("rb_bound_p", bound_p, ".4f"), sep="")
