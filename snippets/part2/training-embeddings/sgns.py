"""5.2 Skip-gram with negative sampling on a tiny corpus: the loss falls, related words converge."""
import math

import numpy as np

from esm import PALETTE, check_close, check_less, check_true, cosine, figure, glue, log_sigmoid, shape_table, sigmoid, svg

corpus = """the cat chased the mouse . the dog chased the cat . the cat ate the fish .
the dog ate the bone . a dog slept on the mat . a cat slept on the mat .
the dog barked at the mouse . the cat hunted the mouse . the dog hunted the cat .
she baked the bread . he sliced the bread . she sliced the cheese . he ate the bread .
she ate the cheese . he baked a cake . she sliced a cake . he ate a cake with cheese .""".split()
vocab = sorted(set(corpus))
idx = {w: i for i, w in enumerate(vocab)}
ids = np.array([idx[w] for w in corpus])
V, d, window, N_neg = len(vocab), 8, 2, 4
n_sentences = corpus.count(".")

counts = np.bincount(ids, minlength=V).astype(float)
noise = counts ** 0.75 / np.sum(counts ** 0.75)  # noise: nu(j) proportional to count(j)^(3/4)

centres, outs = [], []                           # every (centre, context) pair within the window
for t in range(len(ids)):
    for s in range(max(0, t - window), min(len(ids), t + window + 1)):
        if s != t:
            centres.append(ids[t])
            outs.append(ids[s])
centres, outs = np.array(centres), np.array(outs)
N = len(centres)

rng = np.random.default_rng(52)
C = rng.normal(0, 0.1, (V, d))                 # centre table: row C_i for centre word i (the embeddings kept)
Ct = rng.normal(0, 0.1, (V, d))                # context table C~ (C-tilde): row C~_o for context word o


def sgns_loss(C, Ct, c, o, neg):
    """Per-pair loss -log s(C~_o . C_i) - sum_k log s(-C~_jk . C_i); c, o of shape (N,), neg (N, N_neg)."""
    Cc = C[c]
    pos = log_sigmoid(np.sum(Ct[o] * Cc, axis=1))
    negs = log_sigmoid(-np.einsum("nkd,nd->nk", Ct[neg], Cc)).sum(axis=1)
    return -(pos + negs)


before = cosine(C[idx["cat"]], C[idx["dog"]]), cosine(C[idx["cat"]], C[idx["bread"]])
neg0 = rng.choice(V, size=(N, N_neg), p=noise)
start = sgns_loss(C, Ct, centres, outs, neg0).mean()
lr, epochs, batch = 0.05, 20, 64          # lr per pair (word2vec starts at 0.025)
history = []
for epoch in range(epochs):
    order = rng.permutation(N)
    for b in range(0, N, batch):
        j = order[b:b + batch]
        c, o = centres[j], outs[j]
        neg = rng.choice(V, size=(len(j), N_neg), p=noise)
        Cc = C[c]
        g_pos = sigmoid(np.sum(Ct[o] * Cc, axis=1)) - 1.0            # d loss / d (C~_o . C_c)
        g_neg = sigmoid(np.einsum("nkd,nd->nk", Ct[neg], Cc))        # d loss / d (C~_nk . C_c)
        grad_Cc = g_pos[:, None] * Ct[o] + np.einsum("nk,nkd->nd", g_neg, Ct[neg])
        dCt = np.zeros_like(Ct)
        np.add.at(dCt, o, g_pos[:, None] * Cc)
        np.add.at(dCt, neg, g_neg[:, :, None] * Cc[:, None, :])
        dC = np.zeros_like(C)
        np.add.at(dC, c, grad_Cc)
        C -= lr * dC                            # summed over the batch: one step per pair
        Ct -= lr * dCt
    history.append(sgns_loss(C, Ct, centres, outs, neg0).mean())

print(shape_table({"V": V, "d": d, "N": N, r"N_{\text{neg}}": N_neg}, [
    ("centre table", "C", C, "V d", r"row $C_{i,:}$; the embeddings kept"),
    ("context table", r"\tilde C", Ct, "V d", r"row $\tilde C_{o,:}$"),
    ("centre ids", "i", centres, "N", f"one per (centre, context) pair within {window} words"),
    ("context ids", "o", outs, "N", "the word observed next to the centre"),
    ("negatives", "j_{k}", neg0, r"N N_{\text{neg}}", r"drawn from $\nu$"),
    ("noise distribution", r"\nu", noise, "V", r"$\propto\operatorname{count}(j)^{3/4}$"),
]))

c, o, ng = centres[:3], outs[:3], neg0[:3]
loop = [-math.log(1 / (1 + math.exp(-float(Ct[o[i]] @ C[c[i]]))))
        - sum(math.log(1 / (1 + math.exp(float(Ct[n] @ C[c[i]])))) for n in ng[i]) for i in range(3)]
print(check_close("per-pair loss: vectorised vs math.log/math.exp in a loop", sgns_loss(C, Ct, c, o, ng),
                  loop, atol=1e-12, eq="sgns"))
the = idx["the"]
print(check_close("noise ratios: nu(j) / nu(the) = (count(j) / count(the))^(3/4) for every j, and sum_j nu(j) = 1",
                  np.append(noise / noise[the], noise.sum()), np.append((counts / counts[the]) ** 0.75, 1.0),
                  atol=1e-12, eq="noise"))
uni = counts / counts.sum()
print(check_true("the 3/4 power lowers the commonest word and raises the rarest",
                 noise[idx["the"]] < uni[idx["the"]] and noise[idx["with"]] > uni[idx["with"]],
                 f"P(the): {uni[idx['the']]:.3f} -> {noise[idx['the']]:.3f}; "
                 f"P(with): {uni[idx['with']]:.4f} -> {noise[idx['with']]:.4f}"))
print(check_less(f"mean loss on fixed negatives after {epochs} epochs < at the start", history[-1], start,
                 names=("after", "start")))
print(glue("epochs", epochs),
      glue("loss_start", start, ".3f"), glue("loss_end", history[-1], ".3f"),
      glue("uni_the", uni[the], ".3f"), glue("nu_the", noise[the], ".3f"))
after = cosine(C[idx["cat"]], C[idx["dog"]]), cosine(C[idx["cat"]], C[idx["bread"]])
print(check_true("cat and dog end up closer than cat and bread", after[0] > after[1] and after[0] > before[0],
                 f"cos(cat, dog) {before[0]:.2f} -> {after[0]:.2f}; cos(cat, bread) {before[1]:.2f} -> {after[1]:.2f}"))
print(glue("cd_before", before[0], ".2f"), glue("cd_after", after[0], ".2f"), glue("cb_after", after[1], ".2f"))

fig, axes = figure(1, 2, size=(7.2, 2.6))
axes[0].plot(range(epochs + 1), [start] + history, color=PALETTE[0])
axes[0].set_xlabel("epoch")
axes[0].set_ylabel("mean loss per pair")
top = np.argsort(-counts, kind="stable")[:8]
x = np.arange(len(top))
axes[1].bar(x - 0.2, uni[top], 0.4, color=PALETTE[4], label="unigram")
axes[1].bar(x + 0.2, noise[top], 0.4, color=PALETTE[1], label="count^(3/4), normalised")
axes[1].set_xticks(x, [vocab[i] for i in top], rotation=45, ha="right")
axes[1].legend(loc="upper right", frameon=False)
print(svg(fig, alt=f"Left: skip-gram training loss on fixed negatives falling over {epochs} epochs from {start:.3f} "
          f"to {history[-1]:.3f}. Right: unigram and three-quarter-power noise probabilities of the eight commonest "
          f"words; the probability of the commonest, 'the', drops from {uni[the]:.3f} to {noise[the]:.3f}",
          caption="Training loss on a fixed set of "
          "negatives (left); the 3/4 power flattens the unigram distribution (right)."))
