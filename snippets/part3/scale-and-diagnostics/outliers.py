"""8.4 Outlier and special tokens: norm z-scores flag the odd rows; with an untied read-out the
padding row stays zero because no gradient reaches it; a tied head reaches it unless its logit is masked."""
import numpy as np

from esm import check_close, check_equal, check_less, glue, numerical_grad, shape_table, table

rng = np.random.default_rng(84)
V, d, PAD = 500, 32, 0
E = rng.normal(0.0, 1.0, (V, d)) / np.sqrt(d) * 3.0
E[PAD] = 0.0                                   # padding row initialised to zero
LOUD, DEAD = 3.0, 0.05                         # how much the odd rows are scaled
loud = [101, 202, 303]                         # rows blown up (e.g. by a bad update)
E[loud] *= LOUD
dead = [450]                                   # a row never updated since a tiny initialisation
E[dead] *= DEAD

norms = np.linalg.norm(E, axis=1)
real_rows = np.arange(V) != PAD                # the padding row is special: leave it out of the stats
m, sd = norms[real_rows].mean(), norms[real_rows].std()
z = (norms - m) / sd
flagged = sorted(int(i) for i in np.where(real_rows & (np.abs(z) > 3.0))[0])

# Independent z-scores: mean and standard deviation by explicit sums.
vals = [float(np.sqrt(sum(x * x for x in E[i]))) for i in range(1, V)]
mean_loop = sum(vals) / len(vals)
sd_loop = (sum((v - mean_loop) ** 2 for v in vals) / len(vals)) ** 0.5
print(check_close("zeta_i = (rho_i - mean) / std, with mean and std by explicit sums",
                  z[1:], [(v - mean_loop) / sd_loop for v in vals], atol=1e-10, eq="zscore"))
print(check_equal("|zeta| > 3 flags exactly the three loud rows and the dead one", flagged,
                  sorted(loud + dead)))
print(table(("row", "norm", "z-score", "what it is"),
            [(i, f"{norms[i]:.2f}", f"{z[i]:+.2f}", "planted loud row" if i in loud else "planted dead row")
             for i in flagged] + [("median row", f"{np.median(norms[real_rows]):.2f}", f"{np.median(z[real_rows]):+.2f}", "typical")]))

# Padding. A batch of two sequences, the second padded; the loss reads only real positions.
ids = np.array([[5, 17, 17, 9], [42, 8, PAD, PAD]])
mask = (ids != PAD).astype(float)
B, T = ids.shape
w = rng.normal(0.0, 0.3, d)                    # a linear read-out standing in for the model (untied)
X = E[ids]

def loss(table_):
    Xs = table_[ids]
    return float(np.sum(mask * np.tanh(Xs @ w)) / mask.sum())

# Gradient of the loss with respect to each position's vector, then summed into rows.
G = (mask * (1 - np.tanh(X @ w) ** 2))[..., None] * w / mask.sum()      # (B, T, d)
grad_E = np.zeros_like(E)
np.add.at(grad_E, ids, G)                      # row v gets the sum over positions with i_t = v

print(shape_table({"B": B, "T": T, "d": d, "V": V}, [
    ("ids with padding", r"\mathbf i", ids, "B T", f"pad id {PAD}"),
    ("mask", r"\chi", mask, "B T", "1 on real tokens"),
    ("position gradients", r"\partial\ell/\partial X", G, "B T d", "zero at padded positions"),
    ("table gradient", r"\partial\ell/\partial E", grad_E, "V d", "non-zero only on rows used"),
]))
eps, v, j = 1e-6, 17, 3                         # row 17 is used twice: its gradient is a sum
Ep, Em = E.copy(), E.copy(); Ep[v, j] += eps; Em[v, j] -= eps
print(check_close("row 17 (used at two positions): summed gradient (2.2's sum) equals finite differences",
                  grad_E[v, j], (loss(Ep) - loss(Em)) / (2 * eps), atol=1e-8))
print(check_close("untied read-out: the padding row gets a zero gradient (its positions are masked), by the sum and by finite differences",
                  np.stack([grad_E[PAD], numerical_grad(lambda row: loss(np.vstack([row[None], E[1:]])), E[PAD].copy())]),
                  np.zeros((2, d)), atol=0.0))
E_after = E - 0.5 * grad_E
print(check_close("after an SGD step the padding row is still all zeros", E_after[PAD], np.zeros(d),
                  atol=0.0))
print(check_close("a row that no position uses (row 300) does not move either", E_after[300], E[300],
                  atol=0.0))

# Should the statistics exclude the rows they look for? The loud rows inflate the standard
# deviation and so shrink their own z-scores ("masking"). With four odd rows in 500 that costs
# little; with many it hides them. Robust scores use the median and the median absolute
# deviation (scaled by 1.4826, which makes it the standard deviation for normal data).
def robust_z(n):
    med = np.median(n)
    mad = 1.4826 * np.median(np.abs(n - med))
    return (n - med) / mad

zr = robust_z(norms[real_rows])
sd_clean = np.delete(norms, [PAD] + loud + dead).std()
many = E.copy()
normal_rows = np.setdiff1d(np.arange(1, V), loud + dead)
many_loud = rng.choice(normal_rows, 60, replace=False)               # 12% more rows blown up
many[many_loud] *= LOUD
n_many = np.linalg.norm(many, axis=1)[real_rows]
z_many = (n_many - n_many.mean()) / n_many.std()
rows_real = np.arange(V)[real_rows]
odd = set(many_loud.tolist()) | set(loud) | set(dead)               # every planted odd row
plain_set = set(rows_real[np.abs(z_many) > 3.0].tolist())
robust_set = set(rows_real[np.abs(robust_z(n_many)) > 3.0].tolist())
flag_plain, flag_robust = len(plain_set & odd), len(robust_set & odd)
# Independent: the median absolute deviation by sorting, for the robust scores of the first case.
srt = sorted(norms[real_rows]); mid = len(srt) // 2
med_sort = srt[mid] if len(srt) % 2 else (srt[mid - 1] + srt[mid]) / 2
dev = sorted(abs(x - med_sort) for x in srt)
mad_sort = 1.4826 * (dev[mid] if len(dev) % 2 else (dev[mid - 1] + dev[mid]) / 2)
print(check_close("robust zeta = (rho - median) / (1.4826 MAD), median and MAD by sorting",
                  zr, (norms[real_rows] - med_sort) / mad_sort, atol=1e-10))
print(check_less(f"with {len(many_loud)} more loud rows the plain z-score flags fewer odd rows than the robust one",
                 flag_plain, flag_robust, names=("odd rows flagged, plain", "robust")))
print(check_equal("the robust rule flags every odd row (odd rows flagged)", len(robust_set & odd), len(odd)))
print(check_equal("in this draw it flags no normal row", sorted(robust_set - odd), []))


# The same case in other draws of the table and of the loud rows. Every odd row is always flagged (its
# robust score is above 10); a normal row passes a 3-sigma cutoff now and then (435 of them here).
def robust_flags(seed):
    """(odd rows missed, normal rows flagged) by the robust rule in one draw of the many-loud case."""
    r_ = np.random.default_rng(seed)
    T_ = r_.normal(0.0, 1.0, (V, d)) / np.sqrt(d) * 3.0
    T_[PAD] = 0.0
    T_[dead] *= DEAD
    extra = r_.choice(np.setdiff1d(np.arange(1, V), loud + dead), len(many_loud), replace=False)
    T_[loud + extra.tolist()] *= LOUD
    odd_ = set(extra.tolist()) | set(loud) | set(dead)
    flagged_ = set(rows_real[np.abs(robust_z(np.linalg.norm(T_, axis=1)[real_rows])) > 3.0].tolist())
    return len(odd_ - flagged_), len(flagged_ - odd_)


draws = range(1, 51)
outcomes = [robust_flags(s_) for s_ in draws]
print(check_equal(f"in each of {len(draws)} other draws the robust rule flags every odd row",
                  max(missed for missed, _ in outcomes), 0))
fp_share = sum(false > 0 for _, false in outcomes) / len(draws)

# The padding row gets no gradient only if padding positions are masked as keys too. One
# attention layer reads the sequence; the loss is taken at real positions only.
seq = np.array([5, 17, 9, PAD, PAD])
real = seq != PAD
W_q, W_k, W_v = (rng.normal(0.0, d ** -0.5, (d, d)) for _ in range(3))
r = rng.normal(0.0, 1.0, d)


def attn_loss(table_, mask_keys):
    Xs = table_[seq]
    scores = (Xs @ W_q) @ (Xs @ W_k).T / np.sqrt(d)
    if mask_keys:
        scores = np.where(real[None, :], scores, -np.inf)
    a = np.exp(scores - scores.max(axis=1, keepdims=True)); a /= a.sum(axis=1, keepdims=True)
    return float(np.sum((a @ (Xs @ W_v))[real] @ r))


g_masked = numerical_grad(lambda row: attn_loss(np.vstack([row[None], E[1:]]), True), E[PAD].copy())
g_open = numerical_grad(lambda row: attn_loss(np.vstack([row[None], E[1:]]), False), E[PAD].copy())
print(check_close("padding masked as keys and out of the loss: the padding row's gradient is zero "
                  "(finite differences)", g_masked, np.zeros(d), atol=1e-12))
print(check_less("padding out of the loss but NOT masked as keys: real positions attend to it, "
                 "and its row gets a gradient", 1e-6, float(np.abs(g_open).max()),
                 names=("1e-6", "max |gradient|")))
# A tied head scores every row with the same table, so the padding row gets the output term of
# (2.6), p_pad h, from every scored position (it is never a target), unless its logit is set to -inf.
h_ids = ids[mask > 0]                          # the six real positions, no layers: h = E[i_t]
y_tied = np.array([17, 17, 9, 42, 8, 5])       # their targets; none is the padding id


def tied_loss(table_, mask_pad_logit):
    Z = table_[h_ids] @ table_.T               # tied: the head is the table itself
    if mask_pad_logit:
        Z[:, PAD] = -np.inf
    Zm = Z.max(axis=1, keepdims=True)
    lse = Zm[:, 0] + np.log(np.exp(Z - Zm).sum(axis=1))
    return float(np.mean(lse - Z[np.arange(len(y_tied)), y_tied]))


Zt = E[h_ids] @ E.T
P_t = np.exp(Zt - Zt.max(axis=1, keepdims=True)); P_t /= P_t.sum(axis=1, keepdims=True)
g_tied = numerical_grad(lambda row: tied_loss(np.vstack([row[None], E[1:]]), False), E[PAD].copy())
g_tied_masked = numerical_grad(lambda row: tied_loss(np.vstack([row[None], E[1:]]), True), E[PAD].copy())
print(check_close("tied head: the padding row's gradient is the mean over scored positions of p_pad h "
                  "(the output term of (2.6)), by finite differences", g_tied,
                  (P_t[:, PAD, None] * E[h_ids]).mean(axis=0), atol=1e-8))
print(check_less("tied head: so the padding row moves although no position reads it", 1e-6,
                 float(np.abs(g_tied).max()), names=("1e-6", "max |gradient|")))
print(check_close("tied head with the padding logit set to -inf: its gradient is zero again (finite differences)",
                  g_tied_masked, np.zeros(d), atol=1e-12))
print(glue("ol_loud_factor", LOUD, "g"), glue("ol_z", [z[i] for i in loud], "+.1f"),
      glue("ol_z_dead", z[dead[0]], "+.1f"), glue("ol_zr", [float(zr[i - 1]) for i in loud], "+.1f"),
      glue("ol_zr_dead", float(zr[dead[0] - 1]), "+.1f"), glue("ol_sd", sd, ".3f"),
      glue("ol_sd_clean", sd_clean, ".3f"), glue("ol_flag_plain", flag_plain), glue("ol_odd", len(odd)),
      glue("ol_fp_share", fp_share, ".0%"), glue("ol_draws", len(draws)),
      glue("ol_normal", len(rows_real) - len(odd)), glue("ol_g_open", float(np.abs(g_open).max()), ".2f"), sep="")
