# %% [markdown]
# # Theory notebook
#
# Small computations on topics of Parts 1 to 3, one demo each, from token ids to positions and
# diagnostics (not every section has one, and the transformer primer has none).
# Each demo states one claim, computes it twice by independent routes (a loop, a closed form,
# finite differences, a published value) and reports each check that holds under the demo; a
# check that fails raises, so a wrong claim stops the notebook and the site's build. Figures are drawn
# as inline SVG in the text colour, so they read on light and dark backgrounds alike.
#
# Conventions are the site's: token ids and positions are 0-based, single vectors are
# columns, matrices that stack tokens hold one token per row.
#
# The notebook needs only numpy and matplotlib. Its first code cells (collapsed, marked
# *setup*) write the site's helper package `esm`, copied from the site's sources when it is
# built, into a temporary folder; the next imports the helpers the demos use from it; the next
# adds `show`, which displays a figure; the next holds the parameters that every later cell reads.
# In JupyterLab or Notebook, the figures of a downloaded notebook show once you run its cells or
# trust it (`jupyter trust theory.ipynb`): until then Jupyter shows its HTML outputs stripped.
#
# Demos 1-14 follow the lessons. Demos 15-18 are explorations that no page has: sweeps over
# dimension, sequence length, temperature, position and group size, each with a law to check.
# Change a parameter and re-run all cells: the checks run again on your values.

# %% tags=["esm-helpers"]
# Replaced at build time by `from esm import` these names (the setup cells before it write esm):
# esm: check_close check_equal check_true check_less figure svg PALETTE
# esm: one_hot normalize_rows cosine cosine_matrix top_k softmax log_softmax cross_entropy
# esm: sinusoidal_positions rope_angles rope_rotate alibi_slopes alibi_bias causal_mask attention
# esm: numerical_grad glue

# %%
import math

import numpy as np
from IPython.display import HTML, display


def show(fig, *, alt, caption=None):
    """Display a figure as the site draws it: inline SVG in the text colour."""
    display(HTML(svg(fig, alt=alt, caption=caption)))


# %% [markdown]
# ## Parameters
#
# Every later cell reads these names. `SEED = 0` reproduces the published run; any other
# value draws new random tables for every demo.

# %% tags=["parameters"]
SEED = 0                                   # added to each demo's own seed
DIMS = (4, 16, 64, 256, 1024)              # 15: dimensions swept
N_PAIRS = 4000                             # 15: random pairs per dimension
WIDE = 0.1                                 # 15: a cosine above this in magnitude counts as "not orthogonal"
SEQ_LENGTHS = (4, 16, 64, 256, 1024, 4096) # 16: numbers of keys T
TEMPERATURES = (1.0, 2.0, 4.0)             # 16: attention temperatures tau
D_K = 16                                   # 16: query and key width
REPEATS = 20                               # 16: random key sets per (tau, T)
ROPE_D, ROPE_POSITIONS = 64, 128           # 17: RoPE width and positions 0 .. ROPE_POSITIONS-1
GROUP_SIZES = (8, 16, 32, 64, 128, 256)    # 18: entries per quantisation group
BITS = 4                                   # 18: bits per code (levels -(2^(BITS-1)-1) .. 2^(BITS-1)-1)
QUANT_ROWS, QUANT_D = 512, 256             # 18: the table that is quantised

# %% [markdown]
# ## 1. Lookup: token ids select rows of the embedding table
#
# A batch of ids of shape $B\times T$ becomes a batch of vectors of shape $B\times T\times d$:
# each id is only an address of a row of $E$.
#
# $$
# \label{lookup}
# X_{n,t,:}=E_{i_{n,t},:},\qquad E\in\mathbb R^{\lvert\mathcal V\rvert\times d},\quad X\in\mathbb R^{B\times T\times d}
# $$
#
# Two positions holding the same id get the same vector; only later layers, which see the
# neighbours, can tell them apart.

# %%
rng = np.random.default_rng(SEED + 1)
V, d = 12, 4
E = rng.normal(size=(V, d))
ids = np.array([[5, 2, 9, 2, 0],
                [7, 7, 3, 11, 4]])                  # B = 2 texts of T = 5 tokens
X = E[ids]

loop = np.zeros(ids.shape + (d,))
for n in range(ids.shape[0]):
    for t in range(ids.shape[1]):
        loop[n, t] = E[ids[n, t]]
print("X[0, 1] = E[2] =", np.round(X[0, 1], 3))
print(check_close("E[ids] equals a loop over batch and positions", X, loop,
                  eq="lookup"))
print(check_equal("the shape is the ids' shape (B, T) followed by d", X.shape, ids.shape + (E.shape[1],)))
# The same lookup as a product with one-hot rows, position by position (demo 2's identity).
print(check_close("row (n, t) is e_i^T E with i = ids[n, t]", X,
                  np.stack([one_hot(row_ids, V) @ E for row_ids in ids]), atol=1e-12))

# %% [markdown]
# ## 2. One-hot vectors: a product that is a lookup, and a gradient that reaches only used rows
#
# The row $\mathbf e_i^\top E$ is the lookup written as a matrix product. All one-hot vectors
# are equally far apart, so they carry no similarity; and the gradient of any loss with respect
# to $E$ is zero on every row that the batch did not look up.
#
# $$
# \label{one-hot}
# \mathbf e_i^\top E=E_{i,:},\qquad \lVert\mathbf e_i-\mathbf e_j\rVert_2=\sqrt2\ (i\ne j),\qquad \nabla_E\,\ell=O^\top G
# $$
#
# Here $O$ stacks the one-hot rows of the $T$ ids and $G$ stacks $\partial\ell/\partial\mathbf x_t$.

# %%
rng = np.random.default_rng(SEED + 2)
V, d = 8, 3
E = rng.normal(size=(V, d))
ids = np.array([1, 4, 4, 6])
O = one_hot(ids, V)                    # T x |V|
C = rng.normal(size=(len(ids), d))     # loss l(X) = sum_t c_t . x_t, so G = C


def loss(table):
    return float(np.sum(C * table[ids]))


fd = numerical_grad(loss, E)           # central finite differences, entry by entry

dist = np.array([np.linalg.norm(one_hot(i, V) - one_hot(j, V))
                 for i in range(V) for j in range(V) if i != j])
touched = np.flatnonzero(np.abs(fd).max(axis=1) > 1e-9)
print(check_close("one-hot rows times E are the looked-up rows", O @ E, E[ids],
                  eq="one-hot"))
print(check_close("all one-hot pairs are sqrt(2) apart", dist,
                  np.full(len(dist), np.sqrt(2))))
print(check_close("O^T G equals finite differences of the loss", O.T @ C, fd,
                  atol=1e-7))
print(check_equal("rows with nonzero gradient are the ids used", touched,
                  np.unique(ids)))

fig, ax = figure(size=(5.6, 2.6))
norms = np.linalg.norm(fd, axis=1)
ax.bar(range(V), norms, color=PALETTE[1])
ax.set_xticks(range(V))
ax.set_xlabel("row of E (token id)")
ax.set_ylabel("gradient norm")
ax.set_title("Only looked-up rows receive gradient (id 4 twice)")
show(fig, alt="Bar chart of the gradient norm per row of E, nonzero for ids 1, 4, 6",
     caption="Gradient norm per row of E for the ids 1, 4, 4, 6; "
             "row 4 sums two contributions, unused rows get none.")

# %% [markdown]
# ## 3. Dot product, cosine and distance: one angle behind three numbers
#
# The dot product mixes length and angle; the cosine keeps only the angle, so scaling a vector
# leaves it unchanged; for unit vectors the squared distance is a function of the cosine, so
# both rank neighbours identically. For raw vectors they can disagree.
#
# $$
# \label{dot-cosine}
# \mathbf u^\top\mathbf v=\lVert\mathbf u\rVert\,\lVert\mathbf v\rVert\cos\theta,\qquad
# \lVert\hat{\mathbf u}-\hat{\mathbf v}\rVert^2=2-2\cos\theta
# $$

# %%
a, b = np.deg2rad(20.0), np.deg2rad(80.0)
u = 2.0 * np.array([np.cos(a), np.sin(a)])           # length 2 at 20 degrees
v = 3.0 * np.array([np.cos(b), np.sin(b)])           # length 3 at 80 degrees
print("u.v =", round(float(u @ v), 6), " cos =", round(cosine(u, v), 6))
print(check_close("u.v = |u| |v| cos(60 deg) = 6 x 0.5", u @ v, 3.0,
                  eq="dot-cosine"))
print(check_close("cosine ignores scale (5 u, 0.1 v)", cosine(5 * u, 0.1 * v),
                  cosine(u, v)))
uh, vh = u / np.linalg.norm(u), v / np.linalg.norm(v)
print(check_close("for unit vectors |u - v|^2 = 2 - 2 cos(60 deg) = 1",
                  np.sum((uh - vh) ** 2), 1.0))

q = np.array([1.0, 0.2])
W = np.array([[5.0, 1.0],       # same direction as q, but long
              [0.6, 0.9]])      # closer in space, other direction
by_distance = int(np.argmin(np.linalg.norm(W - q, axis=1)))
by_cosine = int(np.argmax(cosine_matrix(q[None], W)[0]))
unit_q = q / np.linalg.norm(q)
by_unit_distance = int(np.argmin(np.linalg.norm(normalize_rows(W) - unit_q, axis=1)))
print(check_true("raw vectors, the two disagree", by_distance != by_cosine,
                 f"distance picks row {by_distance}, cosine picks row {by_cosine}"))
print(check_equal("normalised rows, the two agree", by_unit_distance,
                  by_cosine))

# %% [markdown]
# ## 4. Nearest neighbours: top-k by cosine agrees with a brute-force loop
#
# A query's neighbours are the rows of $E$ with the largest cosine to it. Cosine looks at
# directions only, so the neighbours of a query lie along its direction, near or far from the
# origin.
#
# $$
# \label{knn}
# \mathrm{NN}_k(\mathbf q)=\operatorname{top-}k_{\,i}\ \cos(\mathbf q,E_{i,:})
# $$

# %%
rng = np.random.default_rng(SEED + 4)
centres = np.array([[3.0, 0.5], [-0.5, 3.0], [-2.5, -2.0]])
labels = np.repeat(np.arange(3), 12)
E = centres[labels] * rng.uniform(0.4, 1.4, size=(36, 1))
E += 0.35 * rng.normal(size=(36, 2))
query = np.array([2.0, 1.0])
k = 5

fast = top_k(cosine_matrix(query[None], E)[0], k)
scored = sorted(((cosine(query, E[i]), -i) for i in range(len(E))), reverse=True)
slow = np.array([-i for _, i in scored[:k]])
print("neighbours:", fast.tolist(), " cosines:",
      np.round(cosine_matrix(query[None], E[fast])[0], 3).tolist())
print(check_equal("top-k of the cosines equals a sorted loop", fast, slow, eq="knn"))
print(check_equal("all five come from the query's cluster", set(labels[fast].tolist()), {0}))

fig, ax = figure(size=(4.4, 4.0))
for c in range(3):
    pts = E[labels == c]
    ax.scatter(pts[:, 0], pts[:, 1], s=18, color=PALETTE[c + 2],
               label=f"cluster {c}")
ax.scatter(E[fast, 0], E[fast, 1], s=90, facecolors="none", edgecolors=PALETTE[1],
           linewidths=1.5, label="top-5")
ax.plot([0, 1.8 * query[0]], [0, 1.8 * query[1]], color=PALETTE[0], ls="--", lw=1.2)
ax.scatter(*query, marker="*", s=160, color=PALETTE[0], label="query", zorder=3)
ax.set_aspect("equal")
ax.legend(loc="lower right", fontsize=8)
ax.set_title("Cosine neighbours lie along the query's direction")
show(fig, alt="Scatter plot of three clusters, the query's five neighbours circled",
     caption="The dashed line is the query's direction; the circled points are "
             "its five nearest rows by cosine.")

# %% [markdown]
# ## 5. Analogy by vector offset, and why the input words must be excluded
#
# "man is to woman as king is to ?" is answered by the word whose vector points most nearly
# along $E_{c,:}-E_{a,:}+E_{a^*,:}$, with $a$ = man, $a^*$ = woman, $c$ = king ($a:a^*::c:c^*$). The
# three input words must be excluded from the search: the offset is small next to what the
# words share, so an input word can be closer to the target than the answer is, as here.
#
# $$
# \label{analogy}
# c^*=\arg\max_{x\notin\{a,\,a^*,\,c\}}\ \cos\bigl(E_{x,:},\ E_{c,:}-E_{a,:}+E_{a^*,:}\bigr)
# $$
#
# The vectors below are synthetic: a shared part, a gender direction, a royalty direction, a
# youth direction, and noise.

# %%
rng = np.random.default_rng(SEED + 8)
d = 8
words = ["man", "woman", "king", "queen", "boy", "girl", "prince",
         "apple", "car", "river"]
shared, gender, royal, young = rng.normal(size=(4, d))
traits = {"man": (1, 0, 0), "woman": (-1, 0, 0), "king": (1, 1, 0),  # gender,
          "queen": (-1, 1, 0), "boy": (1, 0, 1), "girl": (-1, 0, 1),  # royal,
          "prince": (1, 1, 1)}                                          # young
rows = []
for w in words:
    if w in traits:
        g, r, y = traits[w]
        meaning = 2 * shared + 0.6 * g * gender + r * royal + y * young
    else:
        meaning = 1.5 * rng.normal(size=d)
    rows.append(meaning + 0.3 * rng.normal(size=d))
E = np.array(rows)
a, a_star, c = words.index("man"), words.index("woman"), words.index("king")
target = E[c] - E[a] + E[a_star]
cos_all = cosine_matrix(target[None], E)[0]

best, best_i = -2.0, None              # the same search, written as a loop
for i, w in enumerate(words):
    if i not in (a, a_star, c) and cosine(E[i], target) > best:
        best, best_i = cosine(E[i], target), i
answer = int(top_k(cos_all, 1, exclude=[a, a_star, c])[0])
print({w: round(float(c), 3) for w, c in zip(words, cos_all)})
winner = int(np.argmax(cos_all))
print(check_equal("inputs excluded, top_k and the loop agree", words[answer],
                  words[best_i], eq="analogy"))
print(check_equal("and the answer is queen", words[answer], "queen"))
print(check_true("without the exclusion an input word wins", winner in (a, a_star, c),
                 f"argmax is {words[winner]} at {cos_all[winner]:.3f}, "
                 f"queen has {cos_all[answer]:.3f}"))

fig, ax = figure(size=(6.0, 2.8))
colors = [PALETTE[0]] * len(words)
for i in (a, a_star, c):
    colors[i] = PALETTE[3]
colors[answer] = PALETTE[1]
ax.bar(words, cos_all, color=colors)
ax.set_ylabel("cos(word, king - man + woman)")
ax.tick_params(axis="x", labelsize=8)
ax.set_title("Inputs (pink) score high; the answer is the best of the rest")
ranked = [words[i] for i in np.argsort(-cos_all)]
show(fig, alt=f"Bar chart of cosines to king - man + woman, {ranked[0]} highest, {ranked[1]} next",
     caption="Cosine of every word to the analogy target; the three input words "
             "(pink) are excluded from the answer (orange).")

# %% [markdown]
# ## 6. A shared mean direction makes every cosine high; centering removes it
#
# Embeddings are anisotropic when they share a common direction: then any two of them have a
# high cosine, whatever they mean. The mean pairwise cosine measures it; subtracting the mean
# vector removes it.
#
# $$
# \label{anisotropy}
# \overline{\cos}=\frac{1}{N(N-1)}\sum_{i\ne j}\cos(\mathbf x_i,\mathbf x_j)
# =\frac{\lVert\sum_i\hat{\mathbf x}_i\rVert^2-N}{N(N-1)}
# $$
#
# For isotropic noise of variance 1 in $d$ dimensions around a mean $\boldsymbol\mu$, the
# cosine is about $\lVert\boldsymbol\mu\rVert^2/(\lVert\boldsymbol\mu\rVert^2+d)$; with
# $\lVert\boldsymbol\mu\rVert=3$ and $d=16$ that is $9/25={{nb6_pred}}$; the published run measures {{nb6_raw}}.
# After centering it is about $-1/(N-1)={{nb6_cen_pred}}$; measured: {{nb6_cen}}.

# %%
rng = np.random.default_rng(SEED + 6)
N, d = 80, 16
mu = rng.normal(size=d)
mu *= 3.0 / np.linalg.norm(mu)
X = rng.normal(size=(N, d)) + mu
Xc = X - X.mean(axis=0)


def mean_cosine(A):
    s = normalize_rows(A).sum(axis=0)
    return float((s @ s - len(A)) / (len(A) * (len(A) - 1)))


pairs = [cosine(X[i], X[j]) for i in range(N) for j in range(N) if i != j]
print("mean pairwise cosine before:", round(mean_cosine(X), 4),
      " after centering:", round(mean_cosine(Xc), 4))
print(check_close("closed form equals the loop over all pairs", mean_cosine(X),
                  np.mean(pairs), eq="anisotropy"))
print(check_close("before centering it is near 9/25", mean_cosine(X), 9 / 25,
                  atol=0.03))
# Within a quarter of 1/(N-1) of -1/(N-1): this tells -1/(N-1) from 0, which atol = 0.01 could not.
print(check_close("after centering it is near -1/(N-1), not 0", mean_cosine(Xc),
                  -1 / (N - 1), atol=0.25 / (N - 1)))
print(glue("nb6_pred", float(mu @ mu) / (float(mu @ mu) + d), ".2f"), glue("nb6_raw", mean_cosine(X), ".3f"),
      glue("nb6_cen_pred", -1 / (N - 1), ".4f"), glue("nb6_cen", mean_cosine(Xc), ".4f"), sep="")

C = cosine_matrix(X)
Cc = cosine_matrix(Xc)
off = ~np.eye(N, dtype=bool)
fig, ax = figure(size=(5.6, 2.8))
bins = np.linspace(-1, 1, 41)
ax.hist(C[off], bins=bins, histtype="stepfilled", color=PALETTE[1], alpha=0.6,
        label="raw")
ax.hist(Cc[off], bins=bins, histtype="stepfilled", color=PALETTE[0], alpha=0.6,
        label="centred")
ax.set_xlabel("pairwise cosine")
ax.set_ylabel("pairs")
ax.legend()
ax.set_title(f"Centering moves the mean pairwise cosine from {mean_cosine(X):.2f} to {mean_cosine(Xc):.3f}")
show(fig, alt=f"Histograms of pairwise cosines, raw with mean {mean_cosine(X):.2f} and centred with mean "
              f"{mean_cosine(Xc):.3f}",
     caption=f"Pairwise cosines of {N} vectors that share a mean direction, before "
             "and after subtracting the mean.")

# %% [markdown]
# ## 7. The output-layer gradient is (p - e_y) h^T: checked against finite differences
#
# The output layer scores every token with $\mathbf z=W\mathbf h$. The cross-entropy gradient
# with respect to row $j$ of $W$ is $\mathbf h$ scaled by "predicted minus wanted"; a descent
# step moves the target row towards $\mathbf h$ and every other row away from it.
#
# $$
# \label{lm-grad}
# \ell=-\log\operatorname{softmax}(W\mathbf h)_y,\qquad
# \nabla_W\ell=(\mathbf p-\mathbf e_y)\,\mathbf h^\top,\qquad \nabla_{\mathbf h}\ell=W^\top(\mathbf p-\mathbf e_y)
# $$

# %%
rng = np.random.default_rng(SEED + 7)
V, d, y = 7, 5, 3
W = rng.normal(size=(V, d))
hvec = rng.normal(size=d)
p = softmax(W @ hvec)
grad_W = np.outer(p - one_hot(y, V), hvec)
grad_h = W.T @ (p - one_hot(y, V))

fd_W = numerical_grad(lambda M: cross_entropy(M @ hvec, y), W)
fd_h = numerical_grad(lambda v: cross_entropy(W @ v, y), hvec)
print("p =", np.round(p, 3).tolist(), " target y =", y)
print(check_close("(p - e_y) h^T equals finite differences in W", grad_W, fd_W,
                  atol=1e-7, eq="lm-grad"))
print(check_close("W^T (p - e_y) equals finite differences in h", grad_h, fd_h,
                  atol=1e-7))
W_new = W - 0.5 * grad_W                          # one descent step
print(check_close("the step moves the target row along +h",
                  normalize_rows(W_new[y] - W[y]), normalize_rows(hvec)))
print(check_less("and lowers the loss", cross_entropy(W_new @ hvec, y),
                 cross_entropy(W @ hvec, y), names=("loss after", "loss before")))

# %% [markdown]
# ## 8. Sinusoidal positions: shifting by k is the same rotation at every position
#
# Each pair of coordinates $(2j, 2j+1)$ of the sinusoidal encoding is a point on a circle
# turning with frequency $\omega_j=10000^{-2j/d}$. Moving $k$ positions on turns every pair by
# $k\omega_j$, whatever the start: a fixed matrix $M_k$ maps position $p$ to $p+k$ (on column vectors).
#
# $$
# \label{sinusoidal}
# \mathrm{PE}_{p,2j}=\sin(p\,\omega_j),\quad \mathrm{PE}_{p,2j+1}=\cos(p\,\omega_j),\qquad
# \mathrm{PE}_{p+k}=M_k\,\mathrm{PE}_p
# $$
#
# $M_k$ is block diagonal with blocks $\begin{pmatrix}\cos k\omega_j & \sin k\omega_j\\ -\sin k\omega_j & \cos k\omega_j\end{pmatrix}$.

# %%
T, d, k = 64, 16, 5
PE = sinusoidal_positions(T, d)
loop = np.zeros((T, d))
for p in range(T):
    for i in range(d):
        angle = p / 10000 ** (2 * (i // 2) / d)
        loop[p, i] = math.sin(angle) if i % 2 == 0 else math.cos(angle)
omega = 10000.0 ** (-np.arange(0, d, 2) / d)


def shift(k):
    """M_k: the block-diagonal rotation that moves every position k steps on."""
    M = np.zeros((d, d))
    for j, w in enumerate(omega):
        c, s = np.cos(k * w), np.sin(k * w)
        M[2 * j:2 * j + 2, 2 * j:2 * j + 2] = [[c, s], [-s, c]]
    return M


print(check_close("the table equals a loop with math.sin and math.cos", PE, loop,
                  atol=1e-12, eq="sinusoidal"))
print(check_close("PE[p + 5] = M_5 PE[p] at every position", PE[:T - k] @ shift(k).T,
                  PE[k:], atol=1e-12))
print(check_close("shifts compose, M_2 M_3 = M_5", shift(2) @ shift(3), shift(5),
                  atol=1e-12))
print(check_close("and are rotations, M_5 M_5^T = I", shift(k) @ shift(k).T,
                  np.eye(d), atol=1e-12))

fig, ax = figure(size=(6.0, 3.0))
im = ax.imshow(PE.T, aspect="auto", cmap="viridis", interpolation="nearest")
ax.set_xlabel("position p")
ax.set_ylabel("coordinate")
ax.grid(False)
fig.colorbar(im, ax=ax, fraction=0.04, pad=0.02)
ax.set_title("Sinusoidal encoding: fast pairs at the top, slow pairs below")
show(fig, alt="Heat map of sinusoidal encodings, 64 positions by 16 coordinates",
     caption="Each row is one coordinate; pairs of rows share a frequency, which "
             "falls from top to bottom.")

# %% [markdown]
# ## 9. RoPE: the query-key score depends only on the offset between positions
#
# Rotary embeddings rotate each pair $(2j,2j+1)$ of a query at position $t$ by $t\omega_j$,
# and of a key at position $s$ by $s\omega_j$, with the sinusoid frequencies $\omega_j$ of demo 8. Rotations compose, so the score sees only
# $s-t$; rotations keep lengths, so nothing is added to the vectors.
#
# $$
# \label{rope}
# (R_t\mathbf q)^\top(R_s\mathbf k)=\mathbf q^\top R_{s-t}\,\mathbf k,\qquad \omega_j=10000^{-2j/d}
# $$

# %%
rng = np.random.default_rng(SEED + 9)
d = 8
q, key = rng.normal(size=(2, d))


def rotation(pos):
    """R_pos built pair by pair, without esm."""
    R = np.zeros((d, d))
    for j in range(d // 2):
        t = pos * 10000.0 ** (-2 * j / d)
        c, s = math.cos(t), math.sin(t)
        R[2 * j:2 * j + 2, 2 * j:2 * j + 2] = [[c, -s], [s, c]]
    return R


p, s = 3, 10
score = rope_rotate(q, p) @ rope_rotate(key, s)
shifted = np.array([rope_rotate(q, p + c) @ rope_rotate(key, s + c)
                    for c in (1, 50, 1000)])
print(check_close("rope_rotate equals R_t built pair by pair", rope_rotate(q, p),
                  rotation(p) @ q, atol=1e-12))
print(check_close("(R_3 q).(R_10 k) = q.(R_7 k)", score, q @ rotation(s - p) @ key,
                  atol=1e-12, eq="rope"))
print(check_close("shifting both positions by 1, 50, 1000 keeps it", shifted,
                  np.full(3, score), atol=1e-9))
print(check_close("rotation keeps the norm", np.linalg.norm(rope_rotate(q, 123)),
                  np.linalg.norm(q), atol=1e-12))

d_big = 64
ones = np.ones(d_big)
offsets = np.arange(0, 200)
scores = np.array([rope_rotate(ones, 0) @ rope_rotate(ones, o) for o in offsets])
print(check_close(f"at offset 0 the score is q.q = d = {d_big}", scores[0], float(d_big),
                  atol=1e-12))
print(check_less("beyond offset 50 it stays below 40", scores[50:].max(), 40.0,
                 names=("max score", "bound")))
fig, ax = figure(size=(5.6, 2.6))
ax.plot(offsets, scores, color=PALETTE[0])
ax.set_xlabel("offset s - t")
ax.set_ylabel("score")
ax.set_title(f"RoPE score of two all-ones vectors (d = {d_big}) by offset")
show(fig, alt="Line plot of the RoPE score of two all-ones vectors by offset",
     caption=f"The same two vectors score lower once they are apart: {scores[0]:.0f} at offset 0, "
             f"at most {scores[50:].max():.1f} beyond offset 50.")

# %% [markdown]
# ## 10. ALiBi: a penalty linear in distance, with one slope per head
#
# ALiBi adds no vector to the tokens; it subtracts $m_h$ times the distance $t-s$ from each
# causal score of query $t$ and key $s$. [Press et al. (2022)](../../references/#ref-press2022alibi) use the geometric slopes $2^{-8h/H}$: for $H=8$ heads,
# $1/2, 1/4, \dots, 1/256$. Future keys are masked.
#
# $$
# \label{alibi}
# a_{ts}\propto\exp\Big(\frac{S_{ts}}{\sqrt{d_k}}-m_h\,(t-s)\Big)\quad(s\le t),\qquad S_{ts}=\mathbf q_t^\top\mathbf k_s,\qquad m_h=2^{-8h/H}
# $$
#
# With no content ($S_{ts}=0$) the weights over the past fall
# geometrically: $a_{ts}\propto e^{-m_h(t-s)}$.

# %%
H, T = 8, 16
slopes = alibi_slopes(H)
print("slopes:", slopes.tolist())
published = [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256]
print(check_close("H = 8 gives the published slopes 1/2, ..., 1/256", slopes,
                  published, eq="alibi"))
m = slopes[0]
loop = np.full((T, T), -np.inf)
for t in range(T):
    for s in range(t + 1):
        loop[t, s] = -m * (t - s)
print(check_equal("the bias equals a loop, -inf above the diagonal",
                  alibi_bias(T, m), loop))


def content_free(slope):
    """Attention weights when every query-key product is 0: ALiBi alone."""
    Z = np.zeros((T, 4))
    bias = alibi_bias(T, slope)
    return attention(Z, Z, np.eye(T), mask=causal_mask(T), bias=bias)[1]


t = T - 1
geometric = np.exp(-m * (t - np.arange(T)))
print(check_close("the last query's weights are geometric", content_free(m)[t],
                  geometric / geometric.sum(), atol=1e-12))

fig, ax = figure(size=(5.6, 2.8))
for h in range(4):
    ax.plot(np.arange(T), content_free(slopes[h])[t], marker="o", markersize=3,
            color=PALETTE[h], label=f"head {h + 1}, m = 1/{2 ** (h + 1)}")
ax.set_xlabel(f"key position s (query t = {t})")
ax.set_ylabel("attention weight")
ax.legend(fontsize=8)
ax.set_title("Steep slopes look near, gentle slopes look far")
show(fig, alt=f"Line plot of ALiBi weights of query {t} over keys 0 to {t}, four heads",
     caption=f"Content-free attention of the last query under ALiBi, for the first "
             f"four of {H} heads.")

# %% [markdown]
# ## 11. Without positions, attention cannot tell word orders apart
#
# Self-attention without a mask treats its input as a set: permuting the tokens permutes the
# outputs the same way and changes nothing else. Adding position vectors breaks that symmetry.
#
# $$
# \label{equivariance}
# \operatorname{Attn}(\Pi X)=\Pi\,\operatorname{Attn}(X)\quad\text{for every permutation matrix }\Pi
# $$

# %%
rng = np.random.default_rng(SEED + 11)
T, d = 6, 8
X = rng.normal(size=(T, d))
Wq, Wk, Wv = rng.normal(size=(3, d, d)) / np.sqrt(d)
perm = np.array([3, 0, 5, 1, 4, 2])
Pi = np.eye(T)[perm]                     # the permutation matrix (P is the position table)


def attn(Z):
    return attention(Z @ Wq, Z @ Wk, Z @ Wv)[0]


PE = sinusoidal_positions(T, d)
gap = np.abs(attn(Pi @ X) - Pi @ attn(X)).max()
gap_pos = np.abs(attn(Pi @ X + PE) - Pi @ attn(X + PE)).max()
print(check_close("attention of permuted tokens is permuted attention", attn(Pi @ X),
                  Pi @ attn(X), atol=1e-12, eq="equivariance"))
print(check_true("with positions added the equality breaks", gap_pos > 0.05,
                 f"max difference {gap_pos:.3f} (without positions: below 1e-12)"))

# %% [markdown]
# ## 12. Attention is a soft nearest-neighbour lookup; cooling it makes it hard
#
# The weights are a softmax of the query-key scores. At temperature 1 they spread over several
# keys; as the temperature falls they concentrate on the best-scoring key, and the output
# becomes that key's value: a hard lookup. At high temperature the output is the plain mean.
#
# $$
# \label{soft-lookup}
# \operatorname{softmax}\Bigl(\frac{\mathbf q^\top K^\top}{\tau\sqrt{d_k}}\Bigr)V\ \xrightarrow[\tau\to0]{}\ \mathbf v_{s^*},
# \qquad s^*=\arg\max_s\mathbf q^\top\mathbf k_s
# $$

# %%
rng = np.random.default_rng(SEED + 12)
T, d_k, d_v = 10, 4, 3
K = rng.normal(size=(T, d_k))
Vals = rng.normal(size=(T, d_v))
q = rng.normal(size=(1, d_k))
s_star = int(np.argmax(K @ q[0]))
cold, _ = attention(q, K, Vals, temperature=0.01)
hot, _ = attention(q, K, Vals, temperature=1e4)
print("best key s* =", s_star)
print(check_close("at tau = 0.01 the output is the best key's value", cold[0],
                  Vals[s_star], atol=1e-6, eq="soft-lookup"))
# With scaled scores x_s = S_ts / sqrt(d_k), y_s = (x_s - mean x)/tau and m = max |y_s|, every weight
# lies in [e^-2m, e^2m] / T, so the output is within (e^2m - 1) mean_s |v_s| of the mean value,
# coordinate by coordinate.
scores = (K @ q[0]) / math.sqrt(d_k)
m_hot = float(np.abs(scores - scores.mean()).max()) / 1e4
print(check_close("at tau = 10^4 it is the mean value, within the bound (e^2m - 1) mean |v|", hot[0],
                  Vals.mean(axis=0), atol=float((math.exp(2 * m_hot) - 1) * np.abs(Vals).mean(axis=0).max())))
# dH/dtau = Var_a(x) / tau^3 for the Gibbs weights a = softmax(x / tau): against finite differences.
a1 = attention(q, K, Vals)[1][0]
var_a = float(a1 @ scores ** 2 - (a1 @ scores) ** 2)


def entropy_at(t):
    w = attention(q, K, Vals, temperature=float(t[0]))[1][0]
    return float(-(w * np.log(w)).sum())


print(check_close("the entropy grows with tau at the rate dH/dtau = Var_a(x) / tau^3, x = S_t,: / sqrt(d_k) (tau = 1)",
                  numerical_grad(entropy_at, np.array([1.0]), eps=1e-5)[0], var_a, atol=1e-7))

# %% [markdown]
# ## 13. PCA by SVD: explained variance, and a two-dimensional view of embeddings
#
# The right singular vectors of the centred table are its principal directions; the squared
# singular values split the total variance between them. A table whose rows vary mostly in two
# directions is drawn faithfully by its first two coordinates.
#
# $$
# \label{pca}
# X_c=U_cDV_c^\top,\quad D=\operatorname{diag}(\sigma_1\ge\sigma_2\ge\dots),\qquad r_k=\frac{\sigma_k^2}{\sum_j\sigma_j^2}
# $$

# %%
rng = np.random.default_rng(SEED + 13)
N, d = 90, 10
basis = np.linalg.qr(rng.normal(size=(d, 2)))[0]      # two orthonormal directions
groups = np.repeat(np.arange(3), 30)
centres2 = np.array([[4.0, 0.0], [-2.0, 3.5], [-2.0, -3.5]])
X = (centres2[groups] + rng.normal(size=(N, 2))) @ basis.T
X += 0.3 * rng.normal(size=(N, d))
Xc = X - X.mean(axis=0)
U, S, Vt = np.linalg.svd(Xc, full_matrices=False)
ratio = S ** 2 / np.sum(S ** 2)
eig = np.sort(np.linalg.eigvalsh(np.cov(X, rowvar=False)))[::-1]
print("explained variance ratios:", np.round(ratio[:4], 4).tolist())
print(check_close("sigma_k^2 / sum equals covariance eigenvalues / trace", ratio,
                  eig / eig.sum(), atol=1e-12, eq="pca"))
print(check_true("two components explain over 90 %", ratio[:2].sum() > 0.9,
                 f"r_1 + r_2 = {ratio[:2].sum():.4f}"))
print(check_close("coordinates X_c V_c equal U_c D (first two columns)", Xc @ Vt[:2].T, U[:, :2] * S[:2],
                  atol=1e-10))

coords = Xc @ Vt[:2].T
fig, (ax1, ax2) = figure(1, 2, size=(7.0, 2.9))
ax1.bar(np.arange(1, d + 1), ratio, color=PALETTE[0])
ax1.set_xlabel("component k")
ax1.set_ylabel("explained variance ratio")
for g in range(3):
    pts = coords[groups == g]
    ax2.scatter(pts[:, 0], pts[:, 1], s=12, color=PALETTE[g + 1], label=f"group {g}")
ax2.set_xlabel("PC 1")
ax2.set_ylabel("PC 2")
ax2.legend(fontsize=8)
fig.suptitle(f"{d} dimensions, two that matter")
show(fig, alt=f"Explained variance bars and a scatter of {N} rows on two components",
     caption="Left, the share of variance per component; right, the rows projected "
             "on the first two, by group.")

# %% [markdown]
# ## 14. int8 quantisation of an embedding row: the error is at most half a step
#
# Storing a row's entries in 8 bits instead of 32 divides their memory by four (one 32-bit
# scale per row comes on top). Every entry of row $i$ is rounded to the nearest multiple of the
# scale $\kappa_i$, so no entry moves by more than $\kappa_i/2$.
#
# $$
# \label{int8}
# \kappa_i=\frac{\max_j\lvert E_{ij}\rvert}{127},\qquad E^{\text{int8}}_{ij}=\operatorname{round}(E_{ij}/\kappa_i)\in\{-127,\dots,127\},\qquad \lvert E_{ij}-\kappa_iE^{\text{int8}}_{ij}\rvert\le\frac{\kappa_i}2
# $$

# %%
rng = np.random.default_rng(SEED + 14)
row = rng.normal(0, 0.02, size=4096).astype(np.float32)
scale = np.abs(row).max() / 127
qrow = np.round(row / scale).astype(np.int8)
back = qrow.astype(np.float32) * scale
err = np.abs(row - back).max()
print(f"kappa = {scale:.3e}, largest error = {err:.3e}")
print(check_true("every entry moves by at most kappa/2", err <= scale / 2 * (1 + 1e-6),
                 f"max error {err:.3e} <= kappa/2 = {scale / 2:.3e}", eq="int8"))
print(check_equal("the codes stay in -127..127",
                  (int(qrow.min()) >= -127, int(qrow.max()) <= 127), (True, True)))
# The kappa/2 bound caps the error vector at sqrt(d) kappa / 2, so cos(row, back) >= sqrt(1 - r^2) with
# r = sqrt(d) kappa / (2 |row|): a lower bound from the formula, against the measured cosine.
r = math.sqrt(row.size) * scale / 2 / float(np.linalg.norm(row))
print(check_true("the row keeps its direction: cos >= sqrt(1 - r^2) from the kappa/2 bound",
                 cosine(row, back) >= math.sqrt(1 - r ** 2),
                 f"cos(row, dequantised) = {cosine(row, back):.6f} >= {math.sqrt(1 - r ** 2):.6f}"))

# %% [markdown]
# ## 15. Exploration: random directions are nearly orthogonal, by the $1/\sqrt d$ law
#
# Two independent random directions in $\mathbb R^d$ (Gaussian vectors, so uniform on the
# sphere) have a cosine whose square averages exactly $1/d$: by symmetry the $d$ coordinates
# of a unit vector share its unit length equally. So the typical cosine shrinks like
# $1/\sqrt d$, and in high dimension almost every pair of random directions is close to
# orthogonal. That is the baseline against which a table's mean cosine (demo 6) is high.
#
# $$
# \label{concentration}
# \mathbb E\big[\cos^2\theta\big]=\frac1d,\qquad
# \operatorname{Var}\big(\cos^2\theta\big)=\frac{3}{d(d+2)}-\frac1{d^2}
# $$
#
# The second formula sets the tolerance of each check: the mean of `N_PAIRS` squared cosines
# must lie within four standard errors of $1/d$. Over the published run, $\sqrt d$ times the
# standard deviation of the cosine stays close to 1 for every $d$ in {{ex15_dims}} (printed
# below). The share of pairs with $\lvert\cos\theta\rvert>{{ex15_thr}}$ falls from
# {{ex15_wide_lo}} at $d={{ex15_dmin}}$ to {{ex15_wide_hi}} at $d={{ex15_dmax}}$.

# %%
rng = np.random.default_rng(SEED + 15)
sds, wide = [], []
for d in DIMS:
    A = rng.normal(size=(N_PAIRS, d))
    B = rng.normal(size=(N_PAIRS, d))
    cos_ab = np.sum(A * B, axis=1) / (np.linalg.norm(A, axis=1) * np.linalg.norm(B, axis=1))
    se = math.sqrt((3 / (d * (d + 2)) - 1 / d ** 2) / N_PAIRS)
    print(check_close(f"d = {d}: the mean of cos^2 over {N_PAIRS} pairs is 1/d", float(np.mean(cos_ab ** 2)),
                      1 / d, atol=4 * se, eq="concentration"))
    print(check_close(f"d = {d}: the mean cosine is 0 (no preferred direction), within 4 sd / sqrt(N_PAIRS)",
                      float(np.mean(cos_ab)), 0.0, atol=4 / math.sqrt(d * N_PAIRS)))
    sds.append(float(np.std(cos_ab)))
    wide.append(float(np.mean(np.abs(cos_ab) > WIDE)))
scaled = [s * math.sqrt(d) for s, d in zip(sds, DIMS)]
print("sqrt(d) x sd of the cosine:", ", ".join(f"{v:.2f} (d = {d})" for v, d in zip(scaled, DIMS)))
print(glue("ex15_thr", WIDE, "g"), glue("ex15_dims", list(DIMS)), glue("ex15_dmin", DIMS[0]),
      glue("ex15_dmax", DIMS[-1]), glue("ex15_wide_lo", wide[0], ".0%"), glue("ex15_wide_hi", wide[-1], ".1%"), sep="")

fig, ax = figure(size=(5.6, 2.8))
ax.loglog(DIMS, sds, "o", color=PALETTE[0], label="standard deviation of cos, measured")
ax.loglog(DIMS, [1 / math.sqrt(d) for d in DIMS], "--", color=PALETTE[1], label=r"$1/\sqrt{d}$")
ax.minorticks_off()
ax.set_xlabel("dimension d")
ax.set_ylabel("sd of the cosine")
ax.legend(fontsize=8, frameon=False)
show(fig, alt="Log-log plot of the standard deviation of the cosine of random pairs against dimension, "
              "on the line 1/sqrt(d): " + ", ".join(f"{s:.3f} at d = {d}" for s, d in zip(sds, DIMS)),
     caption="Random directions: the spread of their cosine follows 1/sqrt(d).")

# %% [markdown]
# ## 16. Exploration: attention entropy against temperature and the number of keys
#
# Give one query $T$ random keys. Its scaled scores $x_s=S_{ts}/\sqrt{d_k}=\mathbf q^\top\mathbf k_s/\sqrt{d_k}$
# are then independent normal numbers with variance $\sigma_S^2=\lVert\mathbf q\rVert^2/d_k$,
# and for many keys the entropy of its weights at temperature $\tau$ approaches a closed form:
# $\log\sum_s e^{x_s/\tau}\approx\log T+\sigma_S^2/(2\tau^2)$ and the weighted mean score
# $\sum_s a_sx_s/\tau\approx\sigma_S^2/\tau^2$, so
#
# $$
# \label{entropy-keys}
# \mathcal H(\mathbf a)\approx\log T-\frac{\sigma_S^2}{2\tau^2}\qquad(T\to\infty).
# $$
#
# The entropy grows like $\log T$: attention over random keys never concentrates as the context
# grows, it spreads; only scores that stand out (or a low temperature) make it sharp. The gap
# $\log T-\mathcal H$ settles at $\sigma_S^2/(2\tau^2)$ ($\sigma_S^2={{ex16_sigma2}}$ in the published
# run), and settles later at lower temperature (the finite-$T$ error is of order
# $(e^{\sigma_S^2/\tau^2}-1)/T$).
# At $T={{ex16_T}}$ the measured gap matches $\sigma_S^2/(2\tau^2)$ at every $\tau$ in
# {{ex16_taus}}, within the tolerance of the checks under the cell.

# %%
rng = np.random.default_rng(SEED + 16)
qv = rng.normal(size=D_K)
sigma2 = float(qv @ qv) / D_K


def weights_entropy(w):
    w = w[w > 0]
    return float(-(w * np.log(w)).sum())


gap = {}
for tau in TEMPERATURES:
    for T in SEQ_LENGTHS:
        hs = [weights_entropy(attention(qv[None], rng.normal(size=(T, D_K)), np.zeros((T, 1)),
                                        temperature=tau)[1][0]) for _ in range(REPEATS)]
        gap[tau, T] = (math.log(T) - float(np.mean(hs)), float(np.std(hs, ddof=1)) / math.sqrt(REPEATS))
T_big = SEQ_LENGTHS[-1]
for tau in TEMPERATURES:
    measured, se = gap[tau, T_big]
    bias = (math.exp(sigma2 / tau ** 2) - 1) / T_big
    print(check_close(f"tau = {tau}, T = {T_big}: log T - H is sigma_S^2 / (2 tau^2) (4 standard errors "
                      "+ twice the finite-T term)", measured, sigma2 / (2 * tau ** 2), atol=4 * se + 2 * bias,
                      eq="entropy-keys"))
T_prev = SEQ_LENGTHS[-2]
for tau in TEMPERATURES:   # the entropy grows like log T: the gap no longer moves between the two largest T
    (g1, se1), (g2, se2) = gap[tau, T_prev], gap[tau, T_big]
    drift = 2 * (math.exp(sigma2 / tau ** 2) - 1) * (1 / T_prev + 1 / T_big)
    print(check_close(f"tau = {tau}: log T - H is the same at T = {T_prev} and T = {T_big} (H grows like log T)",
                      g2, g1, atol=4 * math.hypot(se1, se2) + drift))
print(glue("ex16_sigma2", sigma2, ".3f"), glue("ex16_T", T_big, ","),
      glue("ex16_taus", list(TEMPERATURES), "g"), sep="")

fig, ax = figure(size=(5.6, 2.8))
for k, tau in enumerate(TEMPERATURES):
    ax.semilogx(SEQ_LENGTHS, [gap[tau, T][0] for T in SEQ_LENGTHS], "o-", color=PALETTE[k],
                label=rf"$\tau={tau:g}$")
    ax.axhline(sigma2 / (2 * tau ** 2), color=PALETTE[k], ls=":", lw=1)
ax.minorticks_off()
ax.set_xlabel("number of keys T")
ax.set_ylabel(r"$\log T-\mathcal{H}$ (nats)")
ax.legend(fontsize=8, frameon=False)
show(fig, alt="Gap between log T and the attention entropy against the number of keys, one line per "
              "temperature, each settling on its dotted prediction sigma_S^2/(2 tau^2)",
     caption="The entropy of attention over random keys is log T minus a constant set by the "
             "score variance and the temperature (dotted).")

# %% [markdown]
# ## 17. Exploration: RoPE scores depend on the offset only, over every pair of positions
#
# Rotate a query at position $t$ and a key at position $s$; each coordinate pair $j$ turns by
# $t\omega_j$ and $s\omega_j$ ($\omega_j=10000^{-2j/d}$), and the score keeps only the difference
# $s-t$. For the pair $(q_{2j},q_{2j+1})$, $(k_{2j},k_{2j+1})$:
#
# $$
# \label{rope-offset}
# \big(R_t\mathbf q\big)^\top R_s\mathbf k=\sum_{j}\Big[(q_{2j}k_{2j}+q_{2j+1}k_{2j+1})\cos\big((s-t)\omega_j\big)
# +(q_{2j+1}k_{2j}-q_{2j}k_{2j+1})\sin\big((s-t)\omega_j\big)\Big]
# $$
#
# The cell scores every pair of the first `ROPE_POSITIONS` positions with the rotation code
# and checks the whole matrix against this closed form: a Toeplitz matrix, constant along each
# diagonal $s-t$ to rounding. For $\mathbf q=\mathbf k$
# the score is $\lVert\mathbf q\rVert^2$ at offset 0 and smaller in magnitude at every other
# offset: the sine terms cancel, so the score is $\sum_j(q_{2j}^2+q_{2j+1}^2)\cos\big((s-t)\omega_j\big)$,
# every $\lvert\cos\rvert\le1$, and for pair 0 ($\omega_0=1$) $\lvert\cos(s-t)\rvert<1$ at every
# integer offset $s-t\ne0$, since no such integer is a multiple of $\pi$. It need not fall
# steadily with the offset, as the profile of the figure below shows.
# The long-range decay that RoFormer describes ([Su et al., 2021b](../../references/#ref-su2021roformer)) is the decay of an upper bound
# on such sums, not of every profile.

# %%
rng = np.random.default_rng(SEED + 17)
q17, k17 = rng.normal(size=ROPE_D), rng.normal(size=ROPE_D)
pos = np.arange(ROPE_POSITIONS)
S17 = rope_rotate(np.tile(q17, (len(pos), 1)), pos) @ rope_rotate(np.tile(k17, (len(pos), 1)), pos).T
omega = rope_angles(ROPE_D)


def offset_score(q, k, delta):
    """The closed form above: a sum over coordinate pairs."""
    phi = delta * omega
    return float(np.sum(np.cos(phi) * (q[0::2] * k[0::2] + q[1::2] * k[1::2])
                        + np.sin(phi) * (q[1::2] * k[0::2] - q[0::2] * k[1::2])))


closed = np.array([[offset_score(q17, k17, s_ - t_) for s_ in pos] for t_ in pos])
print(check_close(f"all {len(pos)}^2 RoPE scores equal the closed form in s - t", S17, closed, atol=1e-9,
                  eq="rope-offset"))
self_profile = [offset_score(q17, q17, o) for o in range(len(pos))]
print(check_less("q = k: offset 0 scores more than any other offset", max(abs(x) for x in self_profile[1:]),
                 self_profile[0], names=("max |score|, offset > 0", "|q|^2")))
edges = [1, 8, 16, 32, 64, 128]
windows = [(a, min(b, len(pos))) for a, b in zip(edges, edges[1:]) if a < len(pos)]
envelope = [max(abs(x) for x in self_profile[a:b]) for a, b in windows]

fig, ax = figure(size=(5.6, 2.8))
ax.plot(pos, self_profile, color=PALETTE[0])
ax.set_xlabel("offset s - t")
ax.set_ylabel("score of q with itself")
show(fig, alt="RoPE score of a vector with itself against the offset between positions: "
              f"{self_profile[0]:.1f} at offset 0, then oscillating with largest magnitudes "
              + ", ".join(f"{e:.1f}" for e in envelope) + " over windows of offsets",
     caption="RoPE: the score of a query with the same vector as key depends only on their offset.")

# %% [markdown]
# ## 18. Exploration: quantisation error against group size
#
# [The section on memory and quantization](../../part3/scale-and-diagnostics/#82-memory-and-quantization)
# quantises with one scale per row; 4-bit formats use one scale per group of a few
# dozen entries. With `BITS` bits and symmetric integer codes $-c_{\max},\dots,c_{\max}$, $c_{\max}=2^{\text{BITS}-1}-1$, a
# group of $n_{\text{grp}}$ entries has the scale $\kappa=\max\lvert x\rvert/c_{\max}$ and an entry $x$ is stored as
# $\hat x=\kappa\operatorname{round}(x/\kappa)$; its largest entry is exact and the others are
# rounded. If rounding errors are uniform on $[-\kappa/2,\kappa/2]$, each has mean square $\kappa^2/12$:
#
# $$
# \label{group-mse}
# \lvert x-\hat x\rvert\le\frac\kappa2,\qquad
# \operatorname{MSE}\approx\frac1{N_{\text{entries}}}\sum_{\text{groups}}(n_{\text{grp}}-1)\,\frac{\kappa^2}{12}
# $$
#
# Smaller groups have smaller scales (a group's maximum is smaller), so smaller errors, at the
# price of more scales to store: with a 16-bit scale a code costs $\text{BITS}+16/n_{\text{grp}}$ bits. On a
# {{ex18_rows}} $\times$ {{ex18_d}} table at {{ex18_bits}} bits, the root-mean-square error grows
# from {{ex18_rms_lo}} at $n_{\text{grp}}={{ex18_gmin}}$ to {{ex18_rms_hi}} at $n_{\text{grp}}={{ex18_gmax}}$, while
# the cost per entry falls towards {{ex18_bits}} bits (both printed below). The uniform model
# predicts every group size's mean square error to within {{ex18_model}}.

# %%
rng = np.random.default_rng(SEED + 18)
table = rng.normal(size=(QUANT_ROWS, QUANT_D)) * np.exp(rng.normal(0, 0.5, (QUANT_ROWS, 1))) / math.sqrt(QUANT_D)
c_max = 2 ** (BITS - 1) - 1
rms, cost, model_gap = [], [], []
for g in GROUP_SIZES:
    G = table.reshape(-1, g)
    s = np.abs(G).max(axis=1, keepdims=True) / c_max
    err = G - np.round(G / s) * s
    print(check_less(f"n_grp = {g}: every entry within half a step", float((np.abs(err) / s).max()),
                     0.5 + 1e-9, names=("max |x - x_hat| / kappa", "1/2"), eq="group-mse"))
    mse = float(np.mean(err ** 2))
    predicted = float(np.sum((g - 1) * s[:, 0] ** 2 / 12) / G.size)
    # Four standard errors of the ratio: a uniform error on [-kappa/2, kappa/2] has E[e^2] = kappa^2/12
    # and Var(e^2) = kappa^4/180; summed over the n_grp - 1 rounded entries of every group (scales differ
    # between groups, so the simpler sqrt(0.8 / n) of equal scales would understate it).
    tol = 4 * math.sqrt(np.sum((g - 1) * s[:, 0] ** 4) / 180) / (np.sum((g - 1) * s[:, 0] ** 2) / 12)
    print(check_close(f"n_grp = {g}: the mean square error matches the uniform rounding model",
                      mse / predicted, 1.0, atol=tol))
    rms.append(math.sqrt(mse)); cost.append(BITS + 16 / g); model_gap.append(abs(mse / predicted - 1))
for g, c, r in zip(GROUP_SIZES, cost, rms):
    print(f"n_grp = {g}: {c:.2f} bits per entry, root-mean-square error {r:.4f}")
print(glue("ex18_rows", QUANT_ROWS), glue("ex18_d", QUANT_D), glue("ex18_bits", BITS),
      glue("ex18_rms_lo", rms[0], ".4f"), glue("ex18_rms_hi", rms[-1], ".4f"),
      glue("ex18_gmin", GROUP_SIZES[0]), glue("ex18_gmax", GROUP_SIZES[-1]),
      glue("ex18_model", max(model_gap), ".1%"), sep="")

fig, ax = figure(size=(5.6, 2.8))
ax.plot(cost, rms, "o-", color=PALETTE[0])
for g, c, r in zip(GROUP_SIZES, cost, rms):
    ax.annotate(f"g={g}", (c, r), textcoords="offset points", xytext=(4, 4), fontsize=7)
ax.set_xlabel("bits per entry (codes + scales)")
ax.set_ylabel("RMS error")
show(fig, alt="RMS quantisation error against bits per entry, one point per group size: "
              + ", ".join(f"g = {g}: {r:.4f} at {c:.2f} bits" for g, c, r in zip(GROUP_SIZES, cost, rms)),
     caption="Smaller groups: smaller error, more bits spent on scales.")
