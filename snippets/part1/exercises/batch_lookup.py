"""Exercise: the gradient of a batch lookup under a squared-norm loss, one SGD step, and what
repeating the batch does to a summed and to an averaged loss."""
import numpy as np

from esm import check_close, check_equal, glue, numerical_grad, shape_table

V, d = 6, 4
E = np.arange(V * d, dtype=float).reshape(V, d) / 10    # row i is (4i, 4i+1, 4i+2, 4i+3) / 10
ids = np.array([[1, 4, 4], [0, 5, 2]])
B, T = ids.shape


def loss_sum(table, batch):
    """l = 1/2 sum over positions of |X_{n,t,:}|^2."""
    return 0.5 * float(np.sum(table[batch] ** 2))


def loss_mean(table, batch):
    return loss_sum(table, batch) / batch.size


print(shape_table({"B": B, "T": T, "V": V, "d": d}, [
    ("ids", r"\mathbf i", ids, "B T", "integers in 0..5"), ("table", "E", E, "V d", ""),
    ("looked-up rows", "X", E[ids], "B T d", r"$X_{n,t,:}=E_{i_{nt},:}$"),
]))
counts = np.zeros(V)
for n in range(B):                       # c_i: how many positions read row i (a loop over the batch)
    for t in range(T):
        counts[ids[n, t]] += 1
grad = numerical_grad(lambda table: loss_sum(table, ids), E.copy())      # independent: central differences
print(check_close("(a) row i's gradient is c_i E_i (closed form vs finite differences)", grad, counts[:, None] * E,
                  atol=1e-7))
# (a) the longest row gradient, c_i |E_i|, and the single-id changes that put another row in front:
# by reasoning, those that take a read from row 4 or give row 5 a second one; by brute force, every one of the 30.
lengths = np.linalg.norm(grad, axis=1)
print(check_equal("(a) row 4's gradient is the longest (finite differences)", int(np.argmax(lengths)), 4))
changes, winners = 0, []
for n in range(B):
    for t in range(T):
        for new in range(V):
            if new == ids[n, t]:
                continue
            changed = ids.copy()
            changed[n, t] = new
            changes += 1
            g = numerical_grad(lambda table: loss_sum(table, changed), E.copy())
            if int(np.argmax(np.linalg.norm(g, axis=1))) != 4:
                winners.append((n, t, new))
predicted = [(n, t, new) for n in range(B) for t in range(T) for new in range(V)
             if new != ids[n, t] and ids[n, t] != 5 and (ids[n, t] == 4 or new == 5)]
print(check_equal("(a) the single-id changes that end row 4's lead: brute force vs 'take a read from row 4 or give row 5 "
                  "a second'", winners, predicted))
# (b) one SGD step: E <- E - eta grad = (1 - eta c_i) E_i; row 4 (c = 2) vanishes at eta = 1/2.
eta = 1 / counts.max()
stepped = E - eta * grad
print(check_close("(b) after one step with eta = 1/max c_i, row 4 (read twice) is zero", stepped[4], np.zeros(d),
                  atol=1e-7))
print(check_close("(b) every row is scaled by 1 - eta c_i (step with the finite-difference gradient vs the formula)",
                  stepped, (1 - eta * counts)[:, None] * E, atol=1e-7))
# (c) repeat each text of the batch: four texts, row 4 now read four times.
twice = np.vstack([ids, ids])
g_sum = numerical_grad(lambda table: loss_sum(table, twice), E.copy())
g_mean = numerical_grad(lambda table: loss_mean(table, twice), E.copy())
g_mean_once = numerical_grad(lambda table: loss_mean(table, ids), E.copy())
print(check_close("(c) summed loss: row 4's gradient doubles", g_sum[4], 2 * grad[4], atol=1e-7))
print(check_close("(c) averaged loss: row 4's gradient is unchanged by the repetition", g_mean[4], g_mean_once[4],
                  atol=1e-7))
print(glue("e1_counts", counts.astype(int).tolist()), glue("e1_g4", counts[4] * E[4], ".1f"),
      glue("e1_len4", float(lengths[4]), ".3f"),
      glue("e1_len5", float(lengths[5]), ".3f"), glue("e1_n_changes", changes), glue("e1_n_win", len(winners)), glue("e1_eta", eta, "g"),
      glue("e1_g4_twice", 2 * counts[4] * E[4], ".1f"), glue("e1_g4_mean", 2 * counts[4] * E[4] / twice.size, ".3f"), sep="")
