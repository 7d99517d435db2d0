"""2.2 One-hot lookup equivalence: e_i^T E = E_{i,:}, and the gradient reaches only selected rows."""
import numpy as np

from esm import PALETTE, check_close, check_equal, figure, glue, numerical_grad, one_hot, shape_table, svg

# The row selection, on the small table of 2.1.
E5 = np.arange(20, dtype=float).reshape(5, 4)
e3 = one_hot(3, 5)
print(check_close("e_3^T E (a matrix product) equals row 3 of E (indexing)", e3 @ E5, E5[3], eq="onehot-row"))
print(glue("oh_e3", e3.astype(int)))
print(glue("oh_row3", (e3 @ E5).astype(int)))

# The gradient: a tiny loss on looked-up vectors, l = 1/2 sum_t ||x_t - x*_t||^2.
rng = np.random.default_rng(22)
V, d = 8, 3
ids = np.array([2, 5, 2])
T = len(ids)
E = rng.normal(0.0, 1.0, (V, d))
Y = rng.normal(0.0, 1.0, (T, d))          # targets for the three positions


def loss(table):
    return 0.5 * np.sum((table[ids] - Y) ** 2)


Oh = one_hot(ids, V)                       # T x |V|: the lookup as a matrix product
X = Oh @ E
dX = X - Y                                 # dl/dx_t
G = Oh.T @ dX                              # dl/dE = sum_t e_{i_t} (dl/dx_t)^T
G_fd = numerical_grad(loss, E)

print(shape_table({"T": T, "V": V, "d": d}, [
    ("one-hot ids", r"\mathbf e_{i_t}^\top", Oh, "T V", "row $t$ has its 1 in column $i_t$"),
    ("embedding table", "E", E, "V d", ""),
    ("looked-up vectors", "X", X, "T d", r"$X=\mathrm{onehot}(\mathbf i)\,E$"),
    ("gradient w.r.t. the table", r"\partial\ell/\partial E", G, "V d", "nonzero only in rows 2 and 5"),
]))
print(check_close("one-hot product equals indexing for all three positions", X, E[ids], eq="onehot-row"))
print(check_close(f"analytic gradient matches central finite differences (all {V * d} entries)",
                  G, G_fd, atol=1e-8, eq="onehot-grad"))
unused = [k for k in range(V) if k not in ids]
print(check_equal("finite differences: the rows of unused ids get exactly 0",
                  bool(np.all(G_fd[unused] == 0.0)), True, eq="onehot-grad"))
rep = int(np.bincount(ids).argmax())                       # the id that occurs twice
at = [t for t in range(T) if ids[t] == rep]
print(check_close(f"row {rep} appears at positions {at}: its gradient is the sum of both positions' "
                  "gradients (x_t - x*_t, summed by hand)", G[rep], sum(X[t] - Y[t] for t in at), atol=1e-12))
fd_err = float(np.abs(G - G_fd).max())

print(glue("oh_unused", ", ".join(map(str, unused[:-1])) + " and " + str(unused[-1])))
print(glue("oh_rep", rep), glue("oh_V", V), glue("oh_d", d))
print(glue("oh_rep_at", " and ".join(map(str, at))))

fig, ax = figure(size=(5.2, 2.6))
ax.bar(range(V), np.linalg.norm(G_fd, axis=1), color=[PALETTE[1] if k in ids else PALETTE[0] for k in range(V)])
ax.set_xticks(range(V))
ax.set_xlabel("token id (row of E)")
ax.set_ylabel("gradient row norm")
norms = np.linalg.norm(G_fd, axis=1)
used = sorted(set(ids.tolist()))
print(svg(fig, alt=f"Bar chart of the {V} gradient row norms for ids {tuple(ids.tolist())}: rows "
                   + " and ".join(f"{k} ({norms[k]:.2f})" for k in used) + " are non-zero, the other "
                   f"{V - len(used)} are exactly 0.",
          caption=f"Norm of each row of the finite-difference gradient for ids {tuple(ids.tolist())}: "
                  "only the looked-up rows move."))
