"""Exercise: a constant added to every coordinate of a row of the stream. A pre-LN block carries the
shift through unchanged (both layer norms remove it, the residual keeps it), the final layer norm
removes it, so the logits do not move; hence every row of the gradient with respect to the position
table sums to zero, while the token table's rows, which the tied head also uses, do not."""
import numpy as np

from esm import TINY, block_forward, causal_mask, check_close, check_less, glue, gpt_forward, tiny_gpt
from esm.backprop import init_gpt2, loss_and_grads

model = tiny_gpt()
V, T, H = TINY["V"], TINY["T_max"], TINY["n_heads"]
rng = np.random.default_rng(35)
ids = rng.integers(0, V, size=(3, T))
c = rng.normal(size=(T, 1)) * 3                        # one constant per position, added to all d coordinates

# (a) one block: Block(X + c 1^T) - Block(X) = c 1^T.
X = model["E"][ids] + model["P"][:T]
p = model["blocks"][0]
moved = block_forward(X + c, p, H, causal_mask(T)) - block_forward(X, p, H, causal_mask(T))
print(check_close("(a) the block's output moves by exactly the constant added to each row of its input",
                  moved, np.broadcast_to(c, moved.shape), atol=1e-12))

# (b) the whole model: the position table shifted row by row, the logits unchanged.
shifted = dict(model, P=model["P"] + c)
print(check_close("(b) P[t] + c_t (1, ..., 1) for every t: the logits do not change", gpt_forward(ids, shifted),
                  gpt_forward(ids, model), atol=1e-10))

# (c) so the derivative of the loss along (1, ..., 1) in any row of P is zero; not so for E.
x, y = ids[:, :-1], ids[:, 1:]
loss, g = loss_and_grads(model, x, y)
rows_P = np.abs(g["P"][:T - 1].sum(-1)) / np.linalg.norm(g["P"][:T - 1], axis=-1)
rows_E = np.abs(g["E"].sum(-1)) / np.linalg.norm(g["E"], axis=-1)
print(check_close("(c) each row of dl/dP sums to zero: the largest |row sum| / row norm is 0", float(rows_P.max()), 0.0,
                  atol=1e-10))
# The head scores the final state against E's rows: E_j + c 1 moves logit j by c (1 . x_f), which is not 0.
j = int(np.argmax(rows_E))
step = 1e-5


def loss_at(shift):
    E = model["E"].copy()
    E[j] += shift
    return loss_and_grads(dict(model, E=E), x, y)[0]


fd = (loss_at(step) - loss_at(-step)) / (2 * step)
print(check_close(f"(c) row {j} of dl/dE sums to the derivative of the loss along (1, ..., 1) in E[{j}] (central "
                  "differences)", float(g["E"][j].sum()), fd, atol=1e-7))
print(check_less("(c) ... which is not zero: the rows of dl/dE do not sum to zero", 0.01, float(rows_E.max()),
                 names=("0.01", "largest |row sum| / row norm")))
print(glue("sh_rowsum", float(rows_E.max()), ".2f"))
# With gamma_f = 1 and beta_f = 0 (the training chapter's initialisation) the final state's coordinates sum to 0,
# and so do the rows of dl/dE.
fresh = init_gpt2(0, V, T, TINY["d"], TINY["L"], H)
g0 = loss_and_grads(fresh, x, y)[1]["E"]
print(check_close("(c) at the training chapter's initialisation (gamma_f = 1, beta_f = 0) the rows of dl/dE sum to 0 too",
                  float((np.abs(g0.sum(-1)) / np.linalg.norm(g0, axis=-1)).max()), 0.0, atol=1e-10))
