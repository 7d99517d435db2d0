# %% [markdown]
# # Theory notebook
#
# One small computation per topic of the lesson, from token ids to positions and diagnostics.
# Each demo states one claim, computes it twice by independent routes (a loop, a closed form,
# finite differences, a published value) and prints one `PASS` line per check; a check that
# fails raises, so a wrong claim stops the notebook and the site's build. Figures are drawn
# as inline SVG in the text colour, so they read on light and dark backgrounds alike.
#
# Conventions are the site's: token ids and positions are 0-based, single vectors are
# columns, matrices that stack tokens hold one token per row.
#
# The notebook needs only numpy and matplotlib. Its first code cell holds the site's helper
# functions, copied from `snippets/esm.py` when the site is built; the second adds `show`,
# which displays a figure.

# %% tags=["esm-helpers"]
# Replaced at build time by the code of these snippets/esm.py names and of what they use:
# esm: check_close check_equal check_true check_less figure svg PALETTE
# esm: one_hot normalize_rows cosine cosine_matrix top_k softmax log_softmax cross_entropy
# esm: sinusoidal_positions rope_angles rope_rotate alibi_slopes alibi_bias causal_mask attention
# esm: numerical_grad

# %%
import math

import numpy as np
from IPython.display import HTML, display


def show(fig, *, alt, caption=None):
    """Display a figure as the site draws it: inline SVG in the text colour."""
    display(HTML(svg(fig, alt=alt, caption=caption)))


# %% [markdown]
# ## 1. Lookup: token ids select rows of the embedding table
#
# A batch of ids of shape $B\times T$ becomes a batch of vectors of shape $B\times T\times d$:
# each id is only an address of a row of $E$.
#
# $$
# \label{lookup}
# X_{b,t,:}=E_{i_{b,t},:},\qquad E\in\mathbb R^{\lvert\mathcal V\rvert\times d},\quad X\in\mathbb R^{B\times T\times d}
# $$
#
# Two positions holding the same id get the same vector; only later layers, which see the
# neighbours, can tell them apart.

# %%
rng = np.random.default_rng(1)
V, d = 12, 4
E = rng.normal(size=(V, d))
ids = np.array([[5, 2, 9, 2, 0],
                [7, 7, 3, 11, 4]])                  # B = 2 texts of T = 5 tokens
X = E[ids]

loop = np.zeros(ids.shape + (d,))
for b in range(ids.shape[0]):
    for t in range(ids.shape[1]):
        loop[b, t] = E[ids[b, t]]
print("X[0, 1] = E[2] =", np.round(X[0, 1], 3))
print(check_close("E[ids] equals a loop over batch and positions", X, loop,
                  eq="lookup"))
print(check_equal("the shape is (B, T, d)", X.shape, (2, 5, 4)))
print(check_equal("id 2 at (0, 1) and (0, 3) gives one vector", X[0, 1], X[0, 3]))
gap = np.abs(X[1, 2] - X[1, 3]).max()
print(check_true("different ids give different vectors", gap > 0,
                 f"max |E[3] - E[11]| = {gap:.3f}"))

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
rng = np.random.default_rng(2)
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
rng = np.random.default_rng(4)
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
print(check_equal("all five come from the query's cluster", set(labels[fast]), {0}))

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
# along $\mathbf b-\mathbf a+\mathbf a^*$, with $a$ = man, $a^*$ = woman, $b$ = king. The
# three input words must be excluded from the search: the offset is small next to what the
# words share, so an input word can be closer to the target than the answer is, as here.
#
# $$
# \label{analogy}
# x^\star=\arg\max_{x\notin\{a,\,a^*,\,b\}}\ \cos\bigl(E_{x,:},\ E_{b,:}-E_{a,:}+E_{a^*,:}\bigr)
# $$
#
# The vectors below are synthetic: a shared part, a gender direction, a royalty direction, a
# youth direction, and noise.

# %%
rng = np.random.default_rng(8)
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
a, a_star, b = words.index("man"), words.index("woman"), words.index("king")
target = E[b] - E[a] + E[a_star]
cos_all = cosine_matrix(target[None], E)[0]

best, best_i = -2.0, None              # the same search, written as a loop
for i, w in enumerate(words):
    if i not in (a, a_star, b) and cosine(E[i], target) > best:
        best, best_i = cosine(E[i], target), i
answer = int(top_k(cos_all, 1, exclude=[a, a_star, b])[0])
print({w: round(float(c), 3) for w, c in zip(words, cos_all)})
winner = int(np.argmax(cos_all))
print(check_equal("inputs excluded, top_k and the loop agree", words[answer],
                  words[best_i], eq="analogy"))
print(check_equal("and the answer is queen", words[answer], "queen"))
print(check_true("without the exclusion an input word wins", winner in (a, a_star, b),
                 f"argmax is {words[winner]} at {cos_all[winner]:.3f}, "
                 f"queen has {cos_all[answer]:.3f}"))

fig, ax = figure(size=(6.0, 2.8))
colors = [PALETTE[0]] * len(words)
for i in (a, a_star, b):
    colors[i] = PALETTE[3]
colors[answer] = PALETTE[1]
ax.bar(words, cos_all, color=colors)
ax.set_ylabel("cos(word, king - man + woman)")
ax.tick_params(axis="x", labelsize=8)
ax.set_title("Inputs (pink) score high; the answer is the best of the rest")
show(fig, alt="Bar chart of cosines to king - man + woman, woman highest, queen next",
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
# \bar c=\frac{1}{n(n-1)}\sum_{i\ne j}\cos(\mathbf x_i,\mathbf x_j)
# =\frac{\lVert\sum_i\hat{\mathbf x}_i\rVert^2-n}{n(n-1)}
# $$
#
# For isotropic noise of variance 1 in $d$ dimensions around a mean $\boldsymbol\mu$, the
# cosine is about $\lVert\boldsymbol\mu\rVert^2/(\lVert\boldsymbol\mu\rVert^2+d)$; with
# $\lVert\boldsymbol\mu\rVert=3$ and $d=16$ that is $9/25=0.36$. After centering it is about
# $-1/(n-1)$.

# %%
rng = np.random.default_rng(6)
n, d = 80, 16
mu = rng.normal(size=d)
mu *= 3.0 / np.linalg.norm(mu)
X = rng.normal(size=(n, d)) + mu
Xc = X - X.mean(axis=0)


def mean_cosine(A):
    s = normalize_rows(A).sum(axis=0)
    return float((s @ s - len(A)) / (len(A) * (len(A) - 1)))


pairs = [cosine(X[i], X[j]) for i in range(n) for j in range(n) if i != j]
print("mean pairwise cosine before:", round(mean_cosine(X), 4),
      " after centering:", round(mean_cosine(Xc), 4))
print(check_close("closed form equals the loop over all pairs", mean_cosine(X),
                  np.mean(pairs), eq="anisotropy"))
print(check_close("before centering it is near 9/25", mean_cosine(X), 9 / 25,
                  atol=0.03))
print(check_close("after centering it is near -1/(n-1)", mean_cosine(Xc),
                  -1 / (n - 1), atol=0.01))

C = cosine_matrix(X)
Cc = cosine_matrix(Xc)
off = ~np.eye(n, dtype=bool)
fig, ax = figure(size=(5.6, 2.8))
bins = np.linspace(-1, 1, 41)
ax.hist(C[off], bins=bins, histtype="stepfilled", color=PALETTE[1], alpha=0.6,
        label="raw")
ax.hist(Cc[off], bins=bins, histtype="stepfilled", color=PALETTE[0], alpha=0.6,
        label="centred")
ax.set_xlabel("pairwise cosine")
ax.set_ylabel("pairs")
ax.legend()
ax.set_title("Centering moves pairwise cosines from about 0.37 to about 0")
show(fig, alt="Histograms of pairwise cosines, raw near 0.37 and centred near 0",
     caption="Pairwise cosines of 80 vectors that share a mean direction, before "
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
rng = np.random.default_rng(7)
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
# Rotary embeddings rotate each pair $(2j,2j+1)$ of a query at position $p$ by $p\theta_j$,
# and of a key at position $s$ by $s\theta_j$. Rotations compose, so the score sees only
# $s-p$; rotations keep lengths, so nothing is added to the vectors.
#
# $$
# \label{rope}
# (R_p\mathbf q)^\top(R_s\mathbf k)=\mathbf q^\top R_{s-p}\,\mathbf k,\qquad \theta_j=10000^{-2j/d}
# $$

# %%
rng = np.random.default_rng(9)
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
print(check_close("rope_rotate equals R_p built pair by pair", rope_rotate(q, p),
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
print(check_close("at offset 0 the score is q.q = d = 64", scores[0], 64.0,
                  atol=1e-12))
print(check_less("beyond offset 50 it stays below 40", scores[50:].max(), 40.0,
                 names=("max score", "bound")))
fig, ax = figure(size=(5.6, 2.6))
ax.plot(offsets, scores, color=PALETTE[0])
ax.set_xlabel("offset s - p")
ax.set_ylabel("score")
ax.set_title("RoPE score of two all-ones vectors (d = 64) by offset")
show(fig, alt="Line plot of the RoPE score of two all-ones vectors by offset",
     caption="The same two vectors score lower as they move apart: 64 at offset 0, "
             "below 40 beyond offset 50.")

# %% [markdown]
# ## 10. ALiBi: a penalty linear in distance, with one slope per head
#
# ALiBi adds no vector to the tokens; it subtracts $m_h$ times the distance from each causal
# score. Press et al. (2022) use the geometric slopes $2^{-8h/H}$: for $H=8$ heads,
# $1/2, 1/4, \dots, 1/256$. Future keys are masked.
#
# $$
# \label{alibi}
# s_{ij}=\frac{\mathbf q_i^\top\mathbf k_j}{\sqrt{d_k}}-m_h\,(i-j)\quad(j\le i),\qquad m_h=2^{-8h/H}
# $$
#
# With no content ($\mathbf q_i^\top\mathbf k_j=0$) the weights over the past fall
# geometrically: $a_{ij}\propto e^{-m_h(i-j)}$.

# %%
H, T = 8, 16
slopes = alibi_slopes(H)
print("slopes:", slopes.tolist())
published = [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256]
print(check_close("H = 8 gives the published slopes 1/2, ..., 1/256", slopes,
                  published, eq="alibi"))
m = slopes[0]
loop = np.full((T, T), -np.inf)
for i in range(T):
    for j in range(i + 1):
        loop[i, j] = -m * (i - j)
print(check_equal("the bias equals a loop, -inf above the diagonal",
                  alibi_bias(T, m), loop))


def content_free(slope):
    """Attention weights when every query-key product is 0: ALiBi alone."""
    Z = np.zeros((T, 4))
    bias = alibi_bias(T, slope)
    return attention(Z, Z, np.eye(T), mask=causal_mask(T), bias=bias)[1]


i = T - 1
geometric = np.exp(-m * (i - np.arange(T)))
print(check_close("the last query's weights are geometric", content_free(m)[i],
                  geometric / geometric.sum(), atol=1e-12))

fig, ax = figure(size=(5.6, 2.8))
for h in range(4):
    ax.plot(np.arange(T), content_free(slopes[h])[i], marker="o", markersize=3,
            color=PALETTE[h], label=f"head {h + 1}, m = 1/{2 ** (h + 1)}")
ax.set_xlabel("key position j (query i = 15)")
ax.set_ylabel("attention weight")
ax.legend(fontsize=8)
ax.set_title("Steep slopes look near, gentle slopes look far")
show(fig, alt="Line plot of ALiBi weights of query 15 over keys 0 to 15, four heads",
     caption="Content-free attention of the last query under ALiBi, for the first "
             "four of eight heads.")

# %% [markdown]
# ## 11. Without positions, attention cannot tell word orders apart
#
# Self-attention without a mask treats its input as a set: permuting the tokens permutes the
# outputs the same way and changes nothing else. Adding position vectors breaks that symmetry.
#
# $$
# \label{equivariance}
# \operatorname{Attn}(PX)=P\,\operatorname{Attn}(X)\quad\text{for every permutation matrix }P
# $$

# %%
rng = np.random.default_rng(11)
T, d = 6, 8
X = rng.normal(size=(T, d))
Wq, Wk, Wv = rng.normal(size=(3, d, d)) / np.sqrt(d)
perm = np.array([3, 0, 5, 1, 4, 2])
P = np.eye(T)[perm]


def attn(Z):
    return attention(Z @ Wq, Z @ Wk, Z @ Wv)[0]


PE = sinusoidal_positions(T, d)
gap = np.abs(attn(P @ X) - P @ attn(X)).max()
gap_pos = np.abs(attn(P @ X + PE) - P @ attn(X + PE)).max()
print(check_close("attention of permuted tokens is permuted attention", attn(P @ X),
                  P @ attn(X), atol=1e-12, eq="equivariance"))
print(check_true("with positions added the equality breaks", gap_pos > 0.05,
                 f"max difference {gap_pos:.3f} (was {gap:.1e})"))

# %% [markdown]
# ## 12. Attention is a soft nearest-neighbour lookup; cooling it makes it hard
#
# The weights are a softmax of the query-key scores. At temperature 1 they spread over several
# keys; as the temperature falls they concentrate on the best-scoring key, and the output
# becomes that key's value: a hard lookup. At high temperature the output is the plain mean.
#
# $$
# \label{soft-lookup}
# \operatorname{softmax}\Bigl(\frac{\mathbf q^\top K^\top}{\tau\sqrt{d_k}}\Bigr)V\ \xrightarrow[\tau\to0]{}\ V_{j^\star,:},
# \qquad j^\star=\arg\max_j\mathbf q^\top\mathbf k_j
# $$

# %%
rng = np.random.default_rng(12)
T, d_k, d_v = 10, 4, 3
K = rng.normal(size=(T, d_k))
Vals = rng.normal(size=(T, d_v))
q = rng.normal(size=(1, d_k))
j_star = int(np.argmax(K @ q[0]))
temps = np.logspace(-2, 2, 25)
entropy = []
for tau in temps:
    _, w = attention(q, K, Vals, temperature=tau)
    entropy.append(float(-(w * np.log(w + 1e-300)).sum()))
cold, _ = attention(q, K, Vals, temperature=0.01)
hot, _ = attention(q, K, Vals, temperature=1e4)
print("best key j* =", j_star)
print(check_close("at tau = 0.01 the output is the best key's value", cold[0],
                  Vals[j_star], atol=1e-6, eq="soft-lookup"))
print(check_close("at tau = 10^4 it is the mean value", hot[0], Vals.mean(axis=0),
                  atol=1e-3))
print(check_true("the entropy of the weights grows with tau",
                 np.all(np.diff(entropy) > 0),
                 f"{entropy[0]:.2e} at tau 0.01 up to {entropy[-1]:.4f} at tau 100, "
                 f"log 10 = {np.log(10):.4f}"))

fig, ax = figure(size=(5.6, 2.6))
ax.semilogx(temps, entropy, color=PALETTE[0], marker="o", markersize=3)
ax.axhline(np.log(T), color=PALETTE[1], ls="--", lw=1.2, label="log T (uniform)")
ax.set_xlabel("temperature")
ax.set_ylabel("entropy of the weights")
ax.legend()
ax.set_title("From a hard lookup to an average")
show(fig, alt="Line plot of attention entropy rising to log 10 with temperature",
     caption="Entropy of one query's attention weights over ten keys; zero means "
             "all the weight on one key.")

# %% [markdown]
# ## 13. PCA by SVD: explained variance, and a two-dimensional view of embeddings
#
# The right singular vectors of the centred table are its principal directions; the squared
# singular values split the total variance between them. A table whose rows vary mostly in two
# directions is drawn faithfully by its first two coordinates.
#
# $$
# \label{pca}
# X_c=U\Sigma V^\top,\qquad r_k=\frac{\sigma_k^2}{\sum_j\sigma_j^2}
# $$

# %%
rng = np.random.default_rng(13)
n, d = 90, 10
basis = np.linalg.qr(rng.normal(size=(d, 2)))[0]      # two orthonormal directions
groups = np.repeat(np.arange(3), 30)
centres2 = np.array([[4.0, 0.0], [-2.0, 3.5], [-2.0, -3.5]])
X = (centres2[groups] + rng.normal(size=(n, 2))) @ basis.T
X += 0.3 * rng.normal(size=(n, d))
Xc = X - X.mean(axis=0)
U, S, Vt = np.linalg.svd(Xc, full_matrices=False)
ratio = S ** 2 / np.sum(S ** 2)
eig = np.sort(np.linalg.eigvalsh(np.cov(X, rowvar=False)))[::-1]
print("explained variance ratios:", np.round(ratio[:4], 4).tolist())
print(check_close("sigma_k^2 / sum equals covariance eigenvalues / trace", ratio,
                  eig / eig.sum(), atol=1e-12, eq="pca"))
print(check_true("two components explain over 90 %", ratio[:2].sum() > 0.9,
                 f"r_1 + r_2 = {ratio[:2].sum():.4f}"))
print(check_close("coordinates X_c V equal U Sigma", Xc @ Vt[:2].T, U[:, :2] * S[:2],
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
fig.suptitle("Ten dimensions, two that matter")
show(fig, alt="Explained variance bars and a scatter of 90 rows on two components",
     caption="Left, the share of variance per component; right, the rows projected "
             "on the first two, by group.")

# %% [markdown]
# ## 14. int8 quantisation of an embedding row: the error is at most half a step
#
# Storing a row's entries in 8 bits instead of 32 divides their memory by four (one 32-bit
# scale per row comes on top). Every entry is rounded to the nearest multiple of the scale
# $s$, so no entry moves by more than $s/2$.
#
# $$
# \label{int8}
# s=\frac{\max_i\lvert x_i\rvert}{127},\qquad q_i=\operatorname{round}(x_i/s)\in\{-127,\dots,127\},\qquad \lvert x_i-s\,q_i\rvert\le\frac s2
# $$

# %%
rng = np.random.default_rng(14)
row = rng.normal(0, 0.02, size=4096).astype(np.float32)
scale = np.abs(row).max() / 127
qrow = np.round(row / scale).astype(np.int8)
back = qrow.astype(np.float32) * scale
err = np.abs(row - back).max()
print(f"s = {scale:.3e}, largest error = {err:.3e}, "
      f"bytes {row.nbytes} -> {qrow.nbytes}")
print(check_true("every entry moves by at most s/2", err <= scale / 2 * (1 + 1e-6),
                 f"max error {err:.3e} <= s/2 = {scale / 2:.3e}", eq="int8"))
print(check_equal("the codes stay in -127..127",
                  (int(qrow.min()) >= -127, int(qrow.max()) <= 127), (True, True)))
print(check_equal("the entries take a quarter of the memory",
                  row.nbytes // qrow.nbytes, 4))
print(check_true("the row keeps its direction", cosine(row, back) > 0.9999,
                 f"cos(row, dequantised) = {cosine(row, back):.6f}"))
