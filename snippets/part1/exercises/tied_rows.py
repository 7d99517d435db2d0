"""Exercise: which rows move in one training step, tied and untied, and why a token that
never occurs still moves when the head is tied."""
import numpy as np

from esm import (check_close, check_equal, check_true, cross_entropy, glue, numerical_grad, one_hot, shape_table,
                 softmax)

V, d = 8, 4
inputs, targets = np.array([1, 4, 4]), np.array([4, 4, 2])      # tokens 0, 3, 5, 6, 7 are neither read nor predicted
NEVER = 6


def loss(E_in, W_out):
    """Mean next-token cross-entropy of a model that predicts from the looked-up row alone."""
    return float(np.mean([cross_entropy(W_out @ E_in[i], y) for i, y in zip(inputs, targets)]))


def grads(seed):
    E = np.random.default_rng(seed).normal(0.0, 1.0, (V, d))
    g_tied = numerical_grad(lambda T: loss(T, T), E.copy())              # one array, two roles
    g_in = numerical_grad(lambda T: loss(T, E), E.copy())                # untied: input table
    g_out = numerical_grad(lambda T: loss(E, T), E.copy())               # untied: output head
    return E, g_tied, g_in, g_out


def moved(g):
    return [int(i) for i in np.flatnonzero(np.abs(g).max(axis=1) > 1e-9)]


SEED = 110
E, g_tied, g_in, g_out = grads(SEED)
print(shape_table({"V": V, "d": d, "T": len(inputs)}, [
    ("input ids", "", inputs, "T", "token 6 never occurs"), ("table", "E", E, "V d", "tied: also the head"),
    ("gradient, tied", r"\nabla_E\ell", g_tied, "V d", "by finite differences"),
]))
print(check_equal("(a) untied input table: only the rows read move", moved(g_in), sorted(set(inputs.tolist()))))
print(check_equal("(a) untied head: every row moves (each is pushed by p_j h)", moved(g_out), list(range(V))))
print(check_close("(a) tied: every row moves, and its gradient is the sum of the untied two", g_tied, g_in + g_out, atol=1e-7))
# The two paths by pencil: l = mean_t [-z_t,y + log sum_j exp z_t,j] with z_t = W h_t, h_t = E[i_t].
# Output path: row j of W gets mean_t (p_t,j - 1{j = y_t}) h_t; input path: row i_t of E gets W^T (p_t - e_y_t).
closed_out, closed_in = np.zeros((V, d)), np.zeros((V, d))
for i, y in zip(inputs, targets):
    p = softmax(E @ E[i])
    err = p - one_hot(np.array([y]), V)[0]
    closed_out += np.outer(err, E[i]) / len(inputs)
    closed_in[i] += E.T @ err / len(inputs)
print(check_close("(b) output path: row j gets mean_t (p_tj - 1{j=y_t}) h_t (closed form vs finite differences)",
                  g_out, closed_out, atol=1e-7))
print(check_close("(b) tied: input path + output path (closed forms) equals the finite-difference gradient of E",
                  g_tied, closed_in + closed_out, atol=1e-7))
# (c) the never-seen row: its whole gradient is the softmax push, mean over positions of p_6 h_t.
p_never = np.array([softmax(E @ E[i])[NEVER] for i in inputs])
push = np.mean([p * E[i] for p, i in zip(p_never, inputs)], axis=0)
print(check_close("(c) row 6 (never read, never a target) gets the mean of p_6 h_t: closed form vs finite differences",
                  g_tied[NEVER], push, atol=1e-7))
# (c) the proof's premises: every p_6 > 0 (a softmax has no zero) and rows 1 and 4 are linearly independent,
# so (p_6(1) E_1 + 2 p_6(4) E_4) / 3 cannot vanish.
print(check_true("(c) premise: p_6 > 0 at every position (softmax entries are positive)", bool(np.all(p_never > 0)),
                 f"p_6 = {np.round(p_never, 6).tolist()}"))
print(check_equal("(c) premise: rows E_1 and E_4 are linearly independent (rank of the pair)",
                  int(np.linalg.matrix_rank(E[[1, 4]])), 2))
print(glue("e10_V", V), glue("e10_in", sorted(set(inputs.tolist()))), glue("e10_never", NEVER),
      glue("e10_unused", ", ".join(str(i) for i in sorted(set(range(V)) - set(inputs.tolist()) - set(targets.tolist())))),
      glue("e10_push", float(np.linalg.norm(push)), ".3f"), sep="")
