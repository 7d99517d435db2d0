"""0.2 The whole pipeline, drawn at build time: token ids, rows of E, the matrix X, the blocks,
the logits, the softmax and the next token, with the numbers of 0.1's example beside each stage.

The example has no blocks, so h is the last row of X. The demo also computes the logits of every
position at once, as a model does: row t of X W^T scores the token after position t.
"""
import math
import re

import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from esm import PALETTE, check_close, check_equal, figure, glue, softmax, svg

vocab = ["the", "cat", "sat", "on", "mat"]
E = np.array([[-1, -3], [1, 2], [0, 1], [-1, 1], [1, -1]], dtype=float)     # the tables of 0.1
W = np.array([[2, -1], [1, -1], [0, 1], [1, 0], [-2, 1]], dtype=float)
text = "the cat"


def blocks(X):
    """The transformer blocks. This example has none: the states are the looked-up rows."""
    return X


def next_token(text):
    """The whole pipeline in one function: ids, lookup, blocks, logits, softmax, the likeliest token."""
    ids = [vocab.index(w) for w in text.split()]
    H = blocks(E[ids])
    p = softmax(W @ H[-1])
    return vocab[int(np.argmax(p))], p


# The same pipeline stage by stage, each stage kept for the figure.
ids = np.array([vocab.index(w) for w in text.split()])
X = E[ids]
H = blocks(X)
h = H[-1]
z = W @ h
p = softmax(z)
j_star = int(np.argmax(p))
predicted, p_whole = next_token(text)


def vec(v, fmt="g"):
    return "(" + ", ".join(format(x, fmt) for x in v).replace("-", "−") + ")"


def tex(v, fmt="g"):
    """A vector in matplotlib's math text; a negative entry in braces, so its sign is not spaced as a minus."""
    return "(" + ",\\,".join("{" + format(x, fmt) + "}" for x in v) + ")"


STAGES = [   # (stage, what the example gives at that stage, in matplotlib's math text)
    ("token ids", f"“{text}”  →  ${tex(ids)}$"),
    ("rows of the table $E$", ",   ".join(f"$E_{{{i},:}}={tex(E[i])}$" for i in ids)),
    ("the matrix $X$", f"${X.shape[0]}\\times{X.shape[1]}$, rows " + " and ".join(f"${tex(r)}$" for r in X)),
    ("transformer blocks", f"none here: $\\mathbf{{h}}$ is the last row of $X$, ${tex(h)}$"),
    ("logits $\\mathbf{z}=W\\mathbf{h}$", f"$\\mathbf{{z}}={tex(z)}$"),
    ("softmax", f"$\\mathbf{{p}}={tex(p, '.2f')}$"),
    ("next token", f"“{vocab[j_star]}”, the largest $p_j$"),
]
BLOCKS = 3                                        # the index of the blocks stage, drawn apart

fig, ax = figure(size=(6.4, 4.4))
drawn = {}
for k, (stage, value) in enumerate(STAGES):
    y = -k
    colour = PALETTE[1] if k == BLOCKS else PALETTE[0]
    ax.add_patch(FancyBboxPatch((0.0, y - 0.3), 3.0, 0.6, boxstyle="round,pad=0.04", fc=to_rgba(colour, 0.22),
                                ec=colour, lw=1.4, ls="--" if k == BLOCKS else "-"))
    ax.text(1.5, y, stage, ha="center", va="center", fontsize=10)
    drawn[stage] = ax.text(3.4, y, value, ha="left", va="center", fontsize=9)
    if k:
        ax.add_patch(FancyArrowPatch((1.5, y + 0.66), (1.5, y + 0.34), arrowstyle="-|>", mutation_scale=10,
                                     lw=1.1, color="#010101", shrinkA=0, shrinkB=0))
ax.set_xlim(-0.1, 9.6)
ax.set_ylim(-len(STAGES) + 0.5, 0.5)
ax.axis("off")

# The figure against the numbers: the logits and probabilities drawn, read back from the figure's
# text and parsed, equal a second computation (a loop of products and math.exp), p to 2 decimals.
LOGITS, SOFTMAX = STAGES[4][0], STAGES[5][0]
numbers = {s: [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", drawn[s].get_text().split("=")[-1])]
           for s in (LOGITS, SOFTMAX)}
z_loop = [sum(W[j, k] * h[k] for k in range(len(h))) for j in range(len(vocab))]
total = math.fsum(math.exp(v) for v in z_loop)
print(check_close("the logits drawn are W h computed by a loop of products", numbers[LOGITS], z_loop,
                  atol=0.0))
print(check_close("the probabilities drawn are exp(z_j) / sum exp(z_j'), to the 2 decimals drawn",
                  numbers[SOFTMAX], [math.exp(v) / total for v in z_loop], atol=0.005))
print(check_equal("the token drawn last is the one of largest probability (scalar arithmetic)",
                  drawn["next token"].get_text().split("”")[0].strip("“"),
                  vocab[max(range(len(vocab)), key=lambda j: z_loop[j])]))

# The pipeline in one function against the stages one by one.
print(check_close("the one-function pipeline gives the stage-by-stage distribution", p_whole, p, atol=1e-12,
                  eq="pipeline"))
# A model scores every position at once: row t of X W^T predicts the token after position t.
P_all = softmax(H @ W.T)
P_loop = np.array([[math.exp(W[j] @ H[t]) / math.fsum(math.exp(W[k] @ H[t]) for k in range(len(vocab)))
                    for j in range(len(vocab))] for t in range(len(ids))])
print(check_close("all positions at once: softmax(H W^T) row by row, against a loop over positions", P_all,
                  P_loop, atol=1e-12, eq="pipeline"))
print(check_close("its last row is the distribution of the next token", P_all[-1], p, atol=1e-12, eq="pipeline"))
# Training reads every prediction of the text whose answer it knows: position 0 (after "the") is
# scored on "cat". The mean of the cross-entropies, against a loop of -log p in scalar arithmetic.
y_all = [vocab.index(w) for w in ["cat", "sat"]]                 # the token after each position
mean_loss = -np.mean(np.log(P_all[np.arange(len(ids)), y_all]))
by_loop = math.fsum(-math.log(P_loop[t][y_all[t]]) for t in range(len(ids))) / len(ids)
print(check_close("the loss of the text: the mean over its positions of -log p_t of the token after t",
                  mean_loss, by_loop, atol=1e-12, eq="pipeline"))
loss_0 = -math.log(P_loop[0][y_all[0]])                         # position 0's cross-entropy, on "cat"
print(check_close("position 0's cross-entropy -log p_0(cat) is the log-sum-exp form -z_cat + log sum_j exp(z_j) "
                  "of its logits W E_0", loss_0, -(W @ X[0])[y_all[0]] + math.log(math.fsum(np.exp(W @ X[0]))),
                  atol=1e-12, eq="pipeline"))

stages = ", ".join(re.sub(r"[$\\]|mathbf|[{}]", "", s) for s, _ in STAGES)
print(svg(fig, alt=f"A flow chart from top to bottom with {len(STAGES)} stages: {stages}. Beside each stage, the "
          f"worked example: the text '{text}' becomes the ids {vec(ids)}, which pick the rows "
          f"{' and '.join(vec(r) for r in X)} of E; they form X; there are no blocks, so h is {vec(h)}; "
          f"the logits are {vec(z)}, the probabilities {vec(p, '.2f')}, and the next token is "
          f"'{vocab[j_star]}'. The transformer blocks box is dashed and coloured apart.",
          caption="What a language model computes, top to bottom, with the worked example beside each "
                  "stage. The dashed box holds the transformer blocks, which this example leaves out."))

print(glue("pipe0_text", text))
print(glue("pipe0_ids", ids))
print(glue("pipe0_next", predicted))
print(glue("pipe0_first", vocab[int(np.argmax(P_all[0]))]))
print(glue("pipe0_first_p", P_all[0].max(), ".2f"))
print(glue("pipe0_mean_loss", mean_loss, ".3f"))
print(glue("pipe0_h0", X[0].astype(int)), glue("pipe0_z0", (W @ X[0]).astype(int)), glue("pipe0_loss0", loss_0, ".3f"))
