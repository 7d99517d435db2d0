"""Gradients of the whole model by the backward pass above, checked by central differences on
entries of every array; the forward pass above against P7's."""
import numpy as np

from esm import check_close, check_equal, glue, gpt_forward, numerical_grad
from esm.backprop import param_arrays
from esm.backward import forward, loss_and_grads
from esm.tokenizer import VOCAB_SIZE, data
from esm.train import TRAIN, nudged_batch

d = TRAIN["d"]
# The trained size, a short batch (fd_B windows of fd_T tokens), float64. Gains, shifts and biases start
# at 1 and 0, where a backward pass that forgot a gain or a bias would still be right; a small random
# nudge of every parameter makes such a mistake show.
model, x, y = nudged_batch(data().train, VOCAB_SIZE)
fd_B, fd_T = x.shape
rng = np.random.default_rng(1)                           # which entries the central differences check
loss, grads = loss_and_grads(model, x, y)
print(glue("fd_B", fd_B), glue("fd_T", fd_T))
print(check_close("the forward pass above = P7's batched forward (esm.gpt_forward) on the same batch", forward(model, x),
                  gpt_forward(x, model), atol=1e-12))

# [softmax-back] and the rest of backpropagation: 3 entries of every array, each moved by +-1e-6 in
# the whole model, against the hand-written backward pass.
worst, n_checked = {}, 0


def rests_on(name):                                      # the page's equations an array's gradient passes last
    last = name.rsplit(".", 1)[-1]
    if name in ("E", "P"):
        return ["embedding-back"]
    if last[-1:] in "QK" and last[:2] in ("W_", "b_"):
        return ["softmax-back", "attention-back"]
    if last in ("W_V", "b_V"):
        return ["attention-back"]
    return ["linear-back"] if last[:2] in ("W_", "b_") else ["ln"]


for name, a in param_arrays(model).items():
    picks = [tuple(int(i) for i in np.unravel_index(k, a.shape))
             for k in rng.choice(a.size, size=min(3, a.size), replace=False)]
    if name == "E":                                      # one row the batch reads, as well as random ones
        picks[0] = (int(x[0, 0]), 0)
    if name == "P":                                      # rows fd_T and beyond are never read: gradient 0
        picks[0] = (int(rng.integers(fd_T)), int(rng.integers(d)))

    def loss_at(v, a=a, picks=picks):
        old = [a[p] for p in picks]
        for p, val in zip(picks, v):
            a[p] = val
        out = loss_and_grads(model, x, y)[0]
        for p, val in zip(picks, old):
            a[p] = val
        return out
    fd = numerical_grad(loss_at, np.array([a[p] for p in picks]))
    bp = np.array([grads[name][p] for p in picks])
    for eq in rests_on(name) + ["all"]:
        worst[eq] = max(worst.get(eq, 0.0), float(np.abs(fd - bp).max()))
    n_checked += len(picks)
n_arrays = len(grads)
print(glue("n_arrays", n_arrays), glue("n_fd", n_checked))
# (b_K's picks test a zero: see the shift-invariance check below.)
print(check_close(f"backward pass = central differences through the whole model, {n_checked} entries of all "
                  f"{n_arrays} arrays (largest difference)", worst["all"], 0.0, atol=1e-8))
what = {"embedding-back": "E and P (the scatter into the rows read)",
        "softmax-back": "the query and key weights and biases (through the attention softmax)",
        "attention-back": "the query, key and value weights and biases",
        "linear-back": "W_O, W_1, W_2 and their biases"}
for eq, text in what.items():
    print(check_close(f"... of which the entries of {text}", worst[eq], 0.0, atol=1e-8, eq=eq))
print(check_equal("every array has its gradient, of its own shape", all(grads[k].shape == a.shape for k, a in param_arrays(model).items()),
                  True))

# Which entries have no gradient in this batch? Predicted without the backward pass: the rows of P
# past the window length (the windows read positions 0..7 only), and every b_K, because adding the
# same vector b to every key adds q_t . b / sqrt(d_k) to all of query t's scores, a constant per row
# that softmax ignores. (The backward pass gives b_K a sum of terms that cancel: 0 up to rounding,
# below 1e-18 here, where every other gradient is above 1e-7.)
T_b = fd_T
g_all = np.concatenate([grads[k].ravel() for k in param_arrays(model)])
predicted = np.concatenate([(np.arange(a.size).reshape(a.shape) >= T_b * d).ravel() if k == "P"
                            else np.full(a.size, k.endswith(".b_K")) for k, a in param_arrays(model).items()])
print(check_equal(f"entries with |gradient| < 1e-15 (0 up to rounding) = the rows of P past position {T_b - 1} and the b_K of every "
                  "block (predicted from the windows' length and softmax's shift invariance)", np.flatnonzero(np.abs(g_all) < 1e-15),
                  np.flatnonzero(predicted)))
b_K = param_arrays(model)["block1.b_K"]
kept = b_K.copy()
loss_shift = loss_and_grads(model, x, y)[0]
b_K += rng.normal(size=b_K.shape)                        # a large move of b_K, in the whole model
loss_moved = loss_and_grads(model, x, y)[0]
b_K[...] = kept
print(check_close("moving block 1's b_K by a random vector of entries ~1 leaves the loss unchanged (full forward pass, "
                  "the closed form: a constant per row of scores)", loss_moved, loss_shift, atol=1e-12))
print(glue("n_p_rows", param_arrays(model)["P"].shape[0] - T_b),
      glue("n_bK", sum(a.size for k, a in param_arrays(model).items() if k.endswith(".b_K"))))
