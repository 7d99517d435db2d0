"""9.10 With tied embeddings the output head is the input table: count it once, know that
editing one edits the other, and that its gradient is the sum of two paths."""
import numpy as np

from esm import check_close, check_equal, cross_entropy, glue, numerical_grad, one_hot, softmax

rng = np.random.default_rng(100)
V, d = 8, 4
E = rng.normal(0.0, 1.0, (V, d))
model = {"wte": E, "lm_head": E}                 # tied, as in GPT-2: one array under two names
h = rng.normal(0.0, 1.0, d)
before = model["lm_head"] @ h

# Wrong 1: "freeze the head, fine-tune the inputs" while they are one array.
delta = rng.normal(0.0, 0.5, d)
model["wte"][3] += delta                         # an update meant for the input row of token 3
moved = (model["lm_head"] @ h - before)
print(check_close("wrong: editing input row 3 moves the head's logit 3 by delta . h, and no other logit",
                  moved, one_hot([3], V)[0] * float(delta @ h), atol=1e-12))

# The gradient of a tied table is the sum of the input path and the output path (2.4's
# tied-gradient). A one-token model: logits z = E x with x = E[i], loss = cross-entropy(z, y).
i, y = 5, 2
x = E[i].copy()
p = softmax(E @ x)
g_head = np.outer(p - one_hot([y], V)[0], x)     # dL/dW at W = E (output path)
g_input = np.zeros_like(E)
g_input[i] = E.T @ (p - one_hot([y], V)[0])      # dL/dx, which lands on row i (input path)
g_fd = numerical_grad(lambda T: cross_entropy(T @ T[i], y), E.copy())
print(check_close("tied: the table's gradient is the output path plus the input path (finite differences)",
                  g_fd, g_head + g_input, atol=1e-7))

# Wrong 2: count both names for GPT-2 small. Right: count each array once, as PyTorch's
# parameters() does. The arrays have the released checkpoint's shapes (np.empty: no memory used).
wte = np.empty((50257, 768), dtype=np.float32)
gpt2 = {"wte": wte, "lm_head": wte, "wpe": np.empty((1024, 768), dtype=np.float32)}
naive = sum(a.size for a in gpt2.values())
once = sum(a.size for a in {id(a): a for a in gpt2.values()}.values())
print(check_equal("right: sharing can be checked; the head's name points at the input table's memory, an explicit "
                  "copy's does not", [np.shares_memory(gpt2["lm_head"], wte), np.shares_memory(wte.copy(), wte)],
                  [True, False]))
print(glue("tied_once", once, ","), glue("tied_naive", naive, ","), sep="")
