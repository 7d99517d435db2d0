"""Try this: make the final state three times longer, h = 3 E[ids[-1]] instead of E[ids[-1]]. Every logit
triples, so the tokens keep their order, but "sat" gets a larger probability and a smaller loss, and the confident
wrong guess "cat" would cost more."""
import numpy as np

from esm import check_equal, check_less, cross_entropy, softmax

vocab = ["the", "cat", "sat", "on", "mat"]
E = np.array([[-1, -3], [1, 2], [0, 1], [-1, 1], [1, -1]], dtype=float)     # the tables of 0.1
W = np.array([[2, -1], [1, -1], [0, 1], [1, 0], [-2, 1]], dtype=float)
ids = np.array([vocab.index(w) for w in ["the", "cat"]])
y, wrong = vocab.index("sat"), vocab.index("cat")

h_page = E[ids[-1]]                     # the page's final state, for comparison
h = 3 * E[ids[-1]]                      # changed: was E[ids[-1]]
z_page, z = W @ h_page, W @ h
p_page, p = softmax(z_page), softmax(z)

print(f"p(sat) {p_page[y]:.3f} -> {p[y]:.3f};  loss of 'sat' {cross_entropy(z_page, y):.3f} -> "
      f"{cross_entropy(z, y):.3f};  loss had it been 'cat' {cross_entropy(z_page, wrong):.3f} -> "
      f"{cross_entropy(z, wrong):.3f}")
print(check_equal("the longer state ranks the five tokens in the same order (logits sorted, largest first)",
                  np.argsort(-z, kind="stable").tolist(), np.argsort(-z_page, kind="stable").tolist()))
print(check_less("'sat', the top token, gets a larger probability", p_page[y], p[y],
                 names=("p(sat), row", "p(sat), 3 x row")))
print(check_less("so the loss of the true next token falls", cross_entropy(z, y), cross_entropy(z_page, y),
                 names=("loss, 3 x row", "loss, row")))
print(check_less("and the loss had the next token been 'cat' (the smallest logit) rises",
                 cross_entropy(z_page, wrong), cross_entropy(z, wrong), names=("loss, row", "loss, 3 x row")))
