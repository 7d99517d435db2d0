"""Exercise 10.10: which rows move in one training step, tied and untied, and why a token that
never occurs still moves when the head is tied."""
import numpy as np

from esm import (check_close, check_equal, cross_entropy, glue, numerical_grad, one_hot, shape_table,
                 share_of_seeds, softmax)

V, d = 8, 4
inputs, targets = np.array([1, 4, 4]), np.array([4, 4, 2])      # token 6 is neither read nor predicted
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
print(check_equal("(b) untied input table: only the rows read move", moved(g_in), sorted(set(inputs.tolist()))))
print(check_equal("(b) untied head: every row moves (each is pushed by p_j h)", moved(g_out), list(range(V))))
print(check_close("(b) tied: the gradient is the sum of the two", g_tied, g_in + g_out, atol=1e-7))
# (c) the never-seen row: its whole gradient is the softmax push, mean over positions of p_6 h_t.
push = np.mean([softmax(E @ E[i])[NEVER] * E[i] for i in inputs], axis=0)
print(check_close("(c) row 6 (never read, never a target) gets the mean of p_6 h_t: closed form vs finite differences",
                  g_tied[NEVER], push, atol=1e-7))
always = share_of_seeds(lambda s: NEVER in moved(grads(s)[1]), range(SEED, SEED + 50))
print(check_equal("(c) over 50 seeds the tied row of the never-seen token moves every time", always, 1.0))
print(glue("e10_V", V), glue("e10_in", sorted(set(inputs.tolist()))), glue("e10_never", NEVER),
      glue("e10_push", float(np.linalg.norm(push)), ".3f"), glue("e10_always", always, ".0%"), sep="")
