"""5.4 Fine-tuning drift: unseen rows stay put, frequent rows move most."""
import numpy as np

from esm import PALETTE, check_close, check_equal, check_true, cosine, figure, glue, numerical_grad, shape_table, softmax, spearman, svg

rng = np.random.default_rng(54)
V, d, V_seen, n_text, steps, lr, wd = 40, 16, 25, 3000, 60, 0.1, 0.05
E0 = rng.normal(0, 1, (V, d))                    # "pretrained" input rows
W0 = rng.normal(0, 1, (V, d))                    # "pretrained" output rows (untied)
zipf_s = 1.1                                     # the Zipf exponent
zipf = 1.0 / np.arange(1, V_seen + 1) ** zipf_s
text = rng.choice(V_seen, size=n_text, p=zipf / zipf.sum())   # the fine-tuning text: ids 25..39 never occur
inputs, targets = text[:-1], text[1:]            # a bigram model: predict token t+1 from token t
counts = np.bincount(inputs, minlength=V)


def grads(E, W, x, y):
    """Mean bigram cross-entropy over a batch and its gradients: gW for every output row,
    gE scattered onto the input rows that were looked up (and only those)."""
    H = E[x]                                     # (batch, d)
    P = softmax(H @ W.T)                         # (batch, V)
    loss = -np.mean(np.log(P[np.arange(len(x)), y]))
    P[np.arange(len(x)), y] -= 1.0               # d loss / d logits
    gW = P.T @ H / len(x)                        # every output row gets a gradient
    gE = np.zeros_like(E)
    np.add.at(gE, x, P @ W / len(x))             # only the rows that were looked up
    return loss, gE, gW


def fine_tune(tied=False, weight_decay=0.0, steps=steps, batch=100, lr=lr):
    """SGD on the bigram cross-entropy, logits W E[i]; decoupled weight decay as in AdamW."""
    E, W = E0.copy(), (E0.copy() if tied else W0.copy())
    r = np.random.default_rng(0)
    for _ in range(steps):
        j = r.integers(0, len(inputs), batch)
        if tied:                                 # one table: the input and the output gradient add up
            _, gE, gW = grads(E, E, inputs[j], targets[j])
            E = E * (1 - lr * weight_decay) - lr * (gE + gW)
            continue
        _, gE, gW = grads(E, W, inputs[j], targets[j])
        E = E * (1 - lr * weight_decay) - lr * gE
        W = W * (1 - lr * weight_decay) - lr * gW
    return E


E1 = fine_tune()
drift = 1.0 - np.sum(E0 * E1, axis=1) / (np.linalg.norm(E0, axis=1) * np.linalg.norm(E1, axis=1))

print(shape_table({"V": V, "d": d, "N": len(inputs)}, [
    ("rows before", r"E^{\text{before}}", E0, "V d", "pretrained input table"),
    ("rows after", r"E^{\text{after}}", E1, "V d", f"after {steps} SGD steps on the new text"),
    ("fine-tuning inputs", r"\mathbf i", inputs, "N", f"ids 0..{V_seen - 1} only, Zipf-distributed"),
    ("drift", r"\boldsymbol\delta", drift, "V", "one number per row"),
]))

loop = np.array([1.0 - cosine(E0[i], E1[i]) for i in range(V)])
print(check_close("drift: vectorised 1 - cos vs esm.cosine row by row", drift, loop, atol=1e-12, eq="drift"))
unseen = counts == 0
xb, yb = inputs[:100], targets[:100]              # one batch: the lookup gradient against finite differences
_, gE, gW = grads(E0, W0, xb, yb)
fd_E = numerical_grad(lambda M: grads(M, W0, xb, yb)[0], E0)
print(check_close("the gradient on the input table, scatter-add vs finite differences over all V x d entries",
                  gE, fd_E, atol=1e-8))
absent = np.setdiff1d(np.arange(V), xb)
print(check_close(f"finite differences: the {len(absent)} rows not read in this batch get gradient 0",
                  fd_E[absent], np.zeros((len(absent), d)), atol=1e-9))
print(check_equal(f"the {int(unseen.sum())} rows never seen as inputs are bit-identical after fine-tuning",
                  E1[unseen], E0[unseen]))


rho = spearman(counts[~unseen], drift[~unseen])
last = V_seen - 1
print(check_true("frequent rows drift more (Spearman rank correlation of count and drift)", rho > 0.7,
                 f"rho = {rho:.2f}; most frequent id 0 ({counts[0]} uses) drift {drift[0]:.3f}, "
                 f"id {last} ({counts[last]} uses) drift {drift[last]:.4f}"))
top = int(np.argmax(drift))                        # a tendency, not an order
print(check_true("not monotone: the row that drifts most is not the most used", counts[top] < counts.max(),
                 f"id {top}, {counts[top]} uses"))

E_tied = fine_tune(tied=True)
tied_min = np.abs(E_tied[unseen] - E0[unseen]).max(axis=1).min()
print(check_true("tied input/output rows: unseen rows move too (the softmax pushes every row)", tied_min > 0,
                 f"smallest max |change| among unseen rows {tied_min:.2e}"))
E_wd = fine_tune(weight_decay=wd)
shrink = np.linalg.norm(E_wd[unseen], axis=1) / np.linalg.norm(E0[unseen], axis=1)
factor = (1 - lr * wd) ** steps
print(check_close("decoupled weight decay shrinks unseen rows by (1 - lr wd)^steps", shrink,
                  np.full(int(unseen.sum()), factor), atol=1e-12))
print(check_close("... yet their cosine drift stays 0: the metric sees direction only",
                  [1.0 - cosine(E0[i], E_wd[i]) for i in np.flatnonzero(unseen)], np.zeros(int(unseen.sum())),
                  atol=1e-12))
print(glue("steps_dr", steps), glue("first_unseen", V_seen), glue("last_id", V - 1), glue("drift0", drift[0], ".3f"),
      glue("drift_last", drift[last], ".2g"), glue("rho", rho, ".2f"), glue("drift_max", drift[top], ".3f"),
      glue("drift_max_id", top), glue("keep", 1 - lr * wd, ".3f"),
      glue("factor", factor, ".3f"))

fig, ax = figure(size=(6.4, 2.8))
seen = ~unseen
ax.scatter(np.log10(counts[seen]), drift[seen], s=18, color=PALETTE[0], label="seen in fine-tuning")
ax.scatter(np.full(int(unseen.sum()), -0.5), drift[unseen], s=18, color=PALETTE[1], marker="x",
           label="never seen (count 0)")
ax.set_xticks([-0.5, 0, 1, 2, 3], ["0", "1", "10", "100", "1000"])   # a log axis with plain labels
ax.set_xlabel("times the token occurs as an input (log scale)")
ax.set_ylabel(r"drift $1-\cos$")
ax.legend(loc="upper left", frameon=False)
print(svg(fig, alt=f"Scatter of drift against token count on a log axis: drift grows with count, from "
          f"{drift[last]:.3f} for id {last} ({counts[last]} uses) to {drift[0]:.3f} for id 0 ({counts[0]} uses); the "
          f"{int(unseen.sum())} unseen tokens sit at exactly zero",
          caption="Each input row's drift after fine-tuning against how often its token was read."))
