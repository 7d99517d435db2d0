"""Fix of the debugging exercise on a causal mask (7.1): np.tril(..., k=1) let query t read key t + 1.
With k=0 the same check passes, and the mask equals the rule j <= i."""
import numpy as np

from esm import attention, check_close, check_equal, glue

X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0]])   # T = 4 tokens, d = 2 (Q = K = V = X)
T = len(X)


def check_no_peeking(mask):
    """Change only the last token: the outputs at positions 0..T-2 must not move."""
    later = X.copy()
    later[-1] = [0.0, 5.0]
    before = attention(X, X, X, mask=mask)[0][:-1]
    after = attention(later, later, later, mask=mask)[0][:-1]
    return check_close("changing the last token leaves the outputs at positions 0..T-2 unchanged", after, before, atol=1e-12)


def mask_fixed(T):
    return np.tril(np.ones((T, T), dtype=bool))          # k = 0: key j <= query i


def run_fixed():
    return check_no_peeking(mask_fixed(T))


print(run_fixed())
print(check_equal("the fixed mask is the rule j <= i, written as a loop", mask_fixed(T),
                  np.array([[j <= i for j in range(T)] for i in range(T)])))

# (b) which outputs does changing token j move? Broken mask: positions j - 1 and later; fixed: j and later.
leaky = np.tril(np.ones((T, T), dtype=bool), k=1)


def moved_positions(mask, j):
    other = X.copy()
    other[j] = [0.0, 5.0]
    diff = np.abs(attention(other, other, other, mask=mask)[0] - attention(X, X, X, mask=mask)[0]).max(axis=1)
    return [int(t) for t in np.flatnonzero(diff > 1e-9)], diff


for j in range(T):
    print(check_equal(f"(b) changing token {j} moves positions {max(j - 1, 0)}.. with the leaky mask, {j}.. with the fixed one",
                      [moved_positions(leaky, j)[0], moved_positions(mask_fixed(T), j)[0]],
                      [list(range(max(j - 1, 0), T)), list(range(j, T))]))
# (b) the weight query T-2 = (1, 1) puts on the last key under the leaky mask, before and after the change.
later = X.copy()
later[-1] = [0.0, 5.0]
w_before = attention(X, X, X, mask=leaky)[1][T - 2, T - 1]
w_after = attention(later, later, later, mask=leaky)[1][T - 2, T - 1]
r2 = np.sqrt(2)
print(check_close("(b) by hand: e^(2/sqrt2) / (2 e^(1/sqrt2) + 2 e^(2/sqrt2)) before, e^(5/sqrt2) / (2 e^(1/sqrt2) "
                  "+ e^(2/sqrt2) + e^(5/sqrt2)) after", [w_before, w_after],
                  [np.exp(2 / r2) / (2 * np.exp(1 / r2) + 2 * np.exp(2 / r2)),
                   np.exp(5 / r2) / (2 * np.exp(1 / r2) + np.exp(2 / r2) + np.exp(5 / r2))], atol=1e-12))
# (c) a causal window of w = 2 from np.tril calls alone: keep j <= i, remove j <= i - 2.
W_WIN = 2
ones = np.ones((T, T), dtype=bool)
window = np.tril(ones, 0) & ~np.tril(ones, -W_WIN)
print(check_equal("(c) the window mask is the rule i - w < j <= i, written as a loop", window,
                  np.array([[i - W_WIN < j <= i for j in range(T)] for i in range(T)])))
print(check_no_peeking(window))
print(glue("cm_w_before", float(w_before), ".3f"), glue("cm_w_after", float(w_after), ".3f"), sep="")
