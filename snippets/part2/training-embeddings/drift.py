"""5.4 Fine-tuning drift: unseen rows stay put, frequent rows move most."""
import numpy as np

from esm import PALETTE, check_close, check_equal, check_true, cosine, figure, shape_table, softmax, svg

rng = np.random.default_rng(54)
V, d, V_seen = 40, 8, 25
E0 = rng.normal(0, 1, (V, d))                    # "pretrained" input rows
W0 = rng.normal(0, 1, (V, d))                    # "pretrained" output rows (untied)
zipf = 1.0 / np.arange(1, V_seen + 1) ** 1.1
text = rng.choice(V_seen, size=3000, p=zipf / zipf.sum())   # the fine-tuning text: ids 25..39 never occur
inputs, targets = text[:-1], text[1:]            # a bigram model: predict token t+1 from token t
counts = np.bincount(inputs, minlength=V)


def fine_tune(tied=False, weight_decay=0.0, steps=60, batch=100, lr=0.5):
    """SGD on the bigram cross-entropy, logits W E[i]; decoupled weight decay as in AdamW."""
    E, W = E0.copy(), (E0.copy() if tied else W0.copy())
    r = np.random.default_rng(0)
    for _ in range(steps):
        j = r.integers(0, len(inputs), batch)
        x, y = inputs[j], targets[j]
        H = E[x]                                 # (batch, d)
        P = softmax(H @ W.T)                     # (batch, V)
        P[np.arange(batch), y] -= 1.0            # d loss / d logits
        gW = P.T @ H / batch                     # every output row gets a gradient
        gH = P @ W / batch
        gE = np.zeros_like(E)
        np.add.at(gE, x, gH)                     # only the rows that were looked up
        if tied:
            gE = gE + gW
        E = E * (1 - lr * weight_decay) - lr * gE
        W = E if tied else W * (1 - lr * weight_decay) - lr * gW
    return E


E1 = fine_tune()
drift = 1.0 - np.sum(E0 * E1, axis=1) / (np.linalg.norm(E0, axis=1) * np.linalg.norm(E1, axis=1))

print(shape_table({"V": V, "d": d, "N": len(inputs)}, [
    ("rows before", r"E^{\text{before}}", E0, "V d", "pretrained input table"),
    ("rows after", r"E^{\text{after}}", E1, "V d", "after 60 SGD steps on the new text"),
    ("fine-tuning inputs", r"\mathbf i", inputs, "N", f"ids 0..{V_seen - 1} only, Zipf-distributed"),
    ("drift", r"\boldsymbol\delta", drift, "V", "one number per row"),
]))

loop = np.array([1.0 - cosine(E0[i], E1[i]) for i in range(V)])
print(check_close("drift: vectorised 1 - cos vs esm.cosine row by row", drift, loop, atol=1e-12, eq="drift"))
unseen = counts == 0
print(check_equal(f"the {int(unseen.sum())} rows never seen as inputs are bit-identical after fine-tuning",
                  E1[unseen], E0[unseen]))
rank_c = np.argsort(np.argsort(counts[~unseen]))
rank_d = np.argsort(np.argsort(drift[~unseen]))
rho = np.corrcoef(rank_c, rank_d)[0, 1]
print(check_true("frequent rows drift more (Spearman rank correlation of count and drift)", rho > 0.7,
                 f"rho = {rho:.2f}; most frequent id 0 ({counts[0]} uses) drift {drift[0]:.3f}, "
                 f"id {V_seen - 1} ({counts[V_seen - 1]} uses) drift {drift[V_seen - 1]:.4f}"))

E_tied = fine_tune(tied=True)
print(check_true("tied input/output rows: unseen rows move too (the softmax pushes every row)",
                 np.all(np.abs(E_tied[unseen] - E0[unseen]).max(axis=1) > 0),
                 f"smallest max |change| among unseen rows {np.abs(E_tied[unseen] - E0[unseen]).max(axis=1).min():.2e}"))
E_wd = fine_tune(weight_decay=0.01)
shrink = np.linalg.norm(E_wd[unseen], axis=1) / np.linalg.norm(E0[unseen], axis=1)
print(check_close("decoupled weight decay shrinks unseen rows by (1 - lr wd)^steps = 0.995^60",
                  shrink, np.full(int(unseen.sum()), (1 - 0.5 * 0.01) ** 60), atol=1e-12))
print(check_close("... yet their cosine drift stays 0: the metric sees direction only",
                  [1.0 - cosine(E0[i], E_wd[i]) for i in np.flatnonzero(unseen)], np.zeros(int(unseen.sum())),
                  atol=1e-12))

fig, ax = figure(size=(6.4, 2.8))
seen = ~unseen
ax.scatter(np.log10(counts[seen]), drift[seen], s=18, color=PALETTE[0], label="seen in fine-tuning")
ax.scatter(np.full(int(unseen.sum()), -0.5), drift[unseen], s=18, color=PALETTE[1], marker="x",
           label="never seen (count 0)")
ax.set_xticks([-0.5, 0, 1, 2, 3], ["0", "1", "10", "100", "1000"])   # a log axis with plain labels
ax.set_xlabel("times the token occurs as an input (log scale)")
ax.set_ylabel(r"drift $1-\cos$")
ax.legend(loc="upper left", frameon=False)
print(svg(fig, alt="Scatter of drift against token count on a log axis: drift grows with count, unseen tokens sit at zero",
          caption="Each input row's drift after fine-tuning against how often its token was read."))
