"""Try this: in exercise 2, smooth the codes all the way, alpha = 1 instead of 1/10. Every code becomes the uniform
vector 1/|V|, so every position looks up the same mean row whatever its id, and every row of the table, used or
not, gets the same gradient: the lookup has forgotten the ids."""
import numpy as np

from esm import check_close, numerical_grad, one_hot

rng = np.random.default_rng(102)
V, d = 7, 3
alpha = 1.0                                          # changed: was 1/10
E = rng.normal(0.0, 1.0, (V, d))
ids = np.array([2, 6, 2, 0])
T = len(ids)
P = (1 - alpha) * one_hot(ids, V) + alpha / V
G = rng.normal(0.0, 1.0, (T, d))                     # the gradient dl/d(PE) of exercise 2 (c)
grad = numerical_grad(lambda table: float(np.sum(G * (P @ table))), E.copy())

print("gradient of rows 0 to 6, first coordinate: " + ", ".join(f"{g:.3f}" for g in grad[:, 0]))
print(check_close("alpha = 1: every position's vector is the mean row of E, whatever its id",
                  P @ E, np.tile(E.mean(axis=0), (T, 1)), atol=1e-12))
print(check_close("and every row, read or not, gets the same gradient (1/|V|) sum_t G_t (finite differences)",
                  grad, np.tile(G.sum(axis=0) / V, (V, 1)), atol=1e-8))
