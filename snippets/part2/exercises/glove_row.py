"""Exercise: GloVe's gradient with respect to one row when the word and context tables are tied."""
import numpy as np

from esm import check_close, glue

counts = np.array([[0.0, 4.0, 1.0], [4.0, 0.0, 0.0], [1.0, 0.0, 9.0]])   # symmetric, V = 3
C0 = np.array([[0.5, 0.0], [0.0, 0.5], [0.5, 0.5]])                        # d = 2, biases 0


def f(x):
    return np.where(x < 100, (x / 100) ** 0.75, 1.0)


seen = counts > 0
logs = np.log(np.where(seen, counts, 1.0))


def J_tied(C, b):
    r = C @ C.T + b[:, None] + b[None, :] - logs
    return float(np.sum(np.where(seen, f(counts) * r**2, 0.0)))


def J_untied(C, Ct, b, bt):
    r = C @ Ct.T + b[:, None] + bt[None, :] - logs
    return float(np.sum(np.where(seen, f(counts) * r**2, 0.0)))


b0 = np.zeros(3)
r = C0 @ C0.T - logs
closed = 4 * sum(f(counts[0, j]) * r[0, j] * C0[j] for j in range(3) if seen[0, j])   # (a), tied, symmetric
# Route 2: the two untied gradients of section 5.3 at C~ = C, added (row 0 as a word, row 0 as a context).
as_word = sum(2 * f(counts[0, j]) * r[0, j] * C0[j] for j in range(3) if seen[0, j])
as_context = sum(2 * f(counts[i, 0]) * r[i, 0] * C0[i] for i in range(3) if seen[i, 0])
# Route 3: central finite differences of the tied loss.
h = 1e-6
fd = np.zeros(2)
for k in range(2):
    P, M = C0.copy(), C0.copy()
    P[0, k] += h; M[0, k] -= h
    fd[k] = (J_tied(P, b0) - J_tied(M, b0)) / (2 * h)
print(check_close("(a) 4 sum_j f r_0j C_j equals the word path plus the context path of 5.3's untied gradients",
                  closed, as_word + as_context, atol=1e-12))
print(check_close("(a) ... and central finite differences of the tied loss", closed, fd, atol=1e-7))
print(check_close("(c) by hand: 4 [f(4)(-log 4)(0, 0.5) + f(1)(0.25)(0.5, 0.5)], f(x) = (x/100)^(3/4)",
                  closed, 4 * (0.04**0.75 * -np.log(4) * np.array([0.0, 0.5]) + 0.01**0.75 * 0.25 * np.array([0.5, 0.5])),
                  atol=1e-12))
# (b) Every row gradient is a sum of multiples of rows: at C = 0 (tied) or C = C~ = 0 (untied) all vanish,
# whatever the biases; finite differences of both losses confirm it at random biases.
rng = np.random.default_rng(53)
b, bt = rng.normal(0, 1, 3), rng.normal(0, 1, 3)
Z = np.zeros((3, 2))
grads = []
for i in range(3):
    for k in range(2):
        P, M = Z.copy(), Z.copy()
        P[i, k] += h; M[i, k] -= h
        grads += [(J_tied(P, b) - J_tied(M, b)) / (2 * h), (J_untied(P, Z, b, bt) - J_untied(M, Z, b, bt)) / (2 * h)]
print(check_close("(b) at C = 0 every row's gradient is 0, tied and untied (finite differences, biases from seed 53)",
                  grads, np.zeros(12), atol=1e-7))
print(glue("gr_grad", closed, ".4f"), glue("gr_f4", float(f(4.0)), ".4f"), glue("gr_f1", float(f(1.0)), ".4f"), sep="")
