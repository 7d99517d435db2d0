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
print(glue("cm_gap", float(moved_positions(leaky, T - 1)[1][T - 2]), ".3f"), sep="")
