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
# The two paths by pencil: l = mean_t [-z_t,y + log sum_j exp z_t,j] with z_t = W h_t, h_t = E[i_t].
# Output path: row j of W gets mean_t (p_t,j - 1{j = y_t}) h_t; input path: row i_t of E gets W^T (p_t - e_y_t).
closed_out, closed_in = np.zeros((V, d)), np.zeros((V, d))
for i, y in zip(inputs, targets):
    p = softmax(E @ E[i])
    err = p - one_hot(np.array([y]), V)[0]
    closed_out += np.outer(err, E[i]) / len(inputs)
    closed_in[i] += E.T @ err / len(inputs)
print(check_close("tied: input path + output path (closed forms) equals the finite-difference gradient of E",
                  g_tied, closed_in + closed_out, atol=1e-7))
# (a) the pair (4, 4) alone: row 4 gets sum_j p_j E_j + (p_4 - 2) E_4, every other row j gets p_j E_4.
SELF = 4
g_self = numerical_grad(lambda T: float(cross_entropy(T @ T[SELF], SELF)), E.copy())
p_self = softmax(E @ E[SELF])
closed_self = np.outer(p_self, E[SELF])
closed_self[SELF] = p_self @ E + (p_self[SELF] - 2) * E[SELF]
print(check_close("(a) pair (4, 4), tied: row 4 gets sum_j p_j E_j + (p_4 - 2) E_4, row j gets p_j E_4 "
                  "(closed form vs finite differences)", g_self, closed_self, atol=1e-7))
# (a) the component of row 4's gradient along row 4 is sum_{j != 4} p_j (b_j - 2a): negative when every b_j < 2a.
a_4, b_all = float(E[SELF] @ E[SELF]), E @ E[SELF]
along = float(g_self[SELF] @ E[SELF])
print(check_close("(a) <grad_4, E_4> (finite differences) = sum_{j != 4} p_j (b_j - 2a) (closed form)", along,
                  float(sum(p_self[j] * (b_all[j] - 2 * a_4) for j in range(V) if j != SELF)), atol=1e-7))
print(check_true("(a) premise for seed 110: every b_j < 2a, so the component is negative", bool(np.all(
    np.delete(b_all, SELF) < 2 * a_4)) and along < 0, f"max_j b_j / 2a = {np.delete(b_all, SELF).max() / (2 * a_4):.3f}, "
    f"component {along:.3f}"))
# (b) scale row 4 by s, other rows fixed: l(s) = log(1 + sum_{j != 4} exp(s b_j - s^2 a)), a = |E_4|^2, b_j = E_j . E_4.
others = [j for j in range(V) if j != SELF]
a_sq, b = float(E[SELF] @ E[SELF]), E[others] @ E[SELF]
s_star = max(0.0, float(b.max()) / (2 * a_sq))


def self_loss(s):
    T = E.copy()
    T[SELF] *= s
    return float(cross_entropy(T @ T[SELF], SELF))                 # the definition, through the tied model


grid = s_star + np.linspace(0.0, 1.5, 31)
losses = [self_loss(s) for s in grid]
print(check_true("(b) premise: row 4 is not zero (a > 0)", a_sq > 0, f"a = {a_sq:.4f}"))
print(check_close("(b) l(s) = log(1 + sum_j exp(s b_j - s^2 a)) (closed form vs the tied model)",
                  losses, [float(np.log1p(np.sum(np.exp(s * b - s * s * a_sq)))) for s in grid], atol=1e-12))
print(check_true("(b) beyond s* = max(0, max_j b_j / 2a) the loss falls at every step of the grid",
                 bool(np.all(np.diff(losses) < 0)), f"largest difference {np.diff(losses).max():.3g}"))
W_untied = np.random.default_rng(SEED + 1).normal(0.0, 1.0, (V, d))     # an untied head, seed 111
untied_scores = W_untied @ E[SELF]
untied_top = int(np.argmax(untied_scores))
gap = float(untied_scores.max() - untied_scores[SELF])          # > 0 when another row outscores row 4
untied = [float(cross_entropy(W_untied @ (s * E[SELF]), SELF)) for s in grid]
print(check_true("(b) untied head of seed 111: l(s) >= s * (max_j w_j.e - w_4.e) at every s of the grid (log-sum-exp >= max)",
                 bool(np.all(np.array(untied) >= grid * gap - 1e-12)), f"gap = {gap:.3f}"))
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
# (c) counting only row 6's change: the logit E_4 . E_6 moves by -(eta/3)(q(1) E_1.E_4 + 2 q(4) |E_4|^2) to first order.
bracket = float(p_never[0] * E[1] @ E[4] + 2 * p_never[1] * E[4] @ E[4])
eta_small = 1e-6
E6_after = E[NEVER] - eta_small * g_tied[NEVER]
print(check_close("(c) the logit of token 6 after input 4 moves by -(eta/3) (q(1) E_1.E_4 + 2 q(4) |E_4|^2) (step of 1e-6 "
                  "with the finite-difference gradient vs the formula)", (E[4] @ E6_after - E[4] @ E[NEVER]) / eta_small,
                  -bracket / 3, atol=1e-6))
print(check_true("(c) for seed 110 the bracket is positive, so the logit falls", bracket > 0, f"bracket {bracket:.3f}"))
print(glue("e10_V", V), glue("e10_sstar", s_star, ".3f"), glue("e10_l1", self_loss(1.0), ".3f"),
      glue("e10_l3", self_loss(3.0), ".2e"), glue("e10_top", untied_top), glue("e10_gap", gap, ".3f"), glue("e10_never", NEVER),
      glue("e10_unused", ", ".join(str(i) for i in sorted(set(range(V)) - set(inputs.tolist()) - set(targets.tolist())))),
      glue("e10_push", float(np.linalg.norm(push)), ".3f"), glue("e10_along", along, ".3f"), glue("e10_dz", bracket, ".3f"),
      sep="")
