"""6.3 Learned positions: a trainable table with T_max rows, and nothing after the last one."""
import numpy as np

from esm import (PALETTE, attention, check_close, check_equal, check_true, figure, glue,
                 numerical_grad, shape_table, softmax, svg)

# GPT-2 small (Radford et al., 2019) and BERT-base (Devlin et al., 2019), as published: only their
# position tables are counted here (the whole of GPT-2 small is counted in primer chapter P8).
gpt2_T_max, gpt2_d = 1024, 768
bert_T_max, bert_d = 512, 768
print(glue("gpt2_T", gpt2_T_max), glue("gpt2_d", gpt2_d), glue("gpt2_pos", gpt2_T_max * gpt2_d, ","),
      glue("bert_pos", bert_T_max * bert_d, ","))

rng = np.random.default_rng(63)
V, d, T_max, T = 50, 8, 16, 10
E = rng.normal(0, 1, (V, d))                     # token table
P0 = rng.normal(0, 0.02, (T_max, d))             # position table at initialisation
ids = rng.integers(0, V, T)
X0 = E[ids] + P0[np.arange(T)]                   # the first residual state: token row + position row

print(shape_table({"V": V, "d": d, "T_max": T_max, "T": T}, [
    ("token table", "E", E, "V d", "one row per token id"),
    ("position table", "P", P0, "T_max d", r"one trainable row per position $0,\dots,T_{\max}-1$"),
    ("input ids", r"\mathbf i", ids, "T", "a sequence shorter than the table"),
    ("first residual state", r"X^{(0)}", X0, "T d", r"row $t$ is $\mathbf h^{(0)}_t=E_{i_t,:}+P_{t,:}$"),
]))

one_hot_ids, one_hot_pos = np.eye(V)[ids], np.eye(T_max)[:T]   # the same sum as two one-hot products (2.2)
print(check_close("h_t = E[i_t] + P[t] vs one-hot(i_t) E + one-hot(t) P", X0, one_hot_ids @ E + one_hot_pos @ P0,
                  atol=1e-15, eq="learned-pos"))

try:
    P0[T_max]
    raised = "no error"
except IndexError as err:
    raised = type(err).__name__
print(check_equal(f"position {T_max} has no row: indexing P[T_max] fails", raised, "IndexError"))

# Clamp positions to the last row (JAX's default for x[ids] out of range, section 9.5; nn.Embedding raises instead). Without a mask, attention then cannot tell
# the order of the tokens at positions T_max - 1 and beyond, while it still can before them.
W_Q, W_K, W_V = (rng.normal(0, 1 / np.sqrt(d), (d, d)) for _ in range(3))
long_ids = rng.integers(0, V, T_max + 4)
clamp = np.minimum(np.arange(T_max + 4), T_max - 1)


def attend(ids_):
    X = E[ids_] + P0[clamp]
    return attention(X @ W_Q, X @ W_K, X @ W_V)[0]


def swap(a, b):
    order = np.arange(T_max + 4)
    order[[a, b]] = order[[b, a]]
    return order


early_a, early_b = 3, 5
late, early = swap(T_max, T_max + 2), swap(early_a, early_b)
late_gap = np.abs(attend(long_ids[late]) - attend(long_ids)[late]).max()
early_gap = np.abs(attend(long_ids[early]) - attend(long_ids)[early]).max()
print(check_true(f"clamped: swapping the tokens at positions {T_max} and {T_max + 2} only swaps their outputs, "
                 f"swapping those at {early_a} and {early_b} does not", late_gap < 1e-12 and early_gap > 1e-3,
                 f"max |Attn(swapped) - swapped Attn| < 1e-12 for {T_max} <-> {T_max + 2}, "
                 f"{early_gap:.3f} for {early_a} <-> {early_b}"))
print(glue("clamp_first", T_max - 1), glue("clamp_last", T_max + 3))

# Train on sequences of length T < T_max. The gradient is scattered onto the rows of P that the
# positions read, through the same indexing for every row, so rows T..T_max-1 could move if read.
W = rng.normal(0, 1, (V, d))


def loss_and_grad(P, seq):
    pos = np.arange(len(seq) - 1)                # the positions of the inputs
    G = softmax((E[seq[:-1]] + P[pos]) @ W.T)
    loss = -np.mean(np.log(G[np.arange(len(pos)), seq[1:]]))
    G[np.arange(len(pos)), seq[1:]] -= 1.0       # d loss / d logits
    gP = np.zeros_like(P)
    np.add.at(gP, pos, G @ W / len(pos))         # d loss / d P[t] for every row of the table
    return loss, gP


seq0 = rng.integers(0, V, T + 1)
fd = numerical_grad(lambda M: loss_and_grad(M, seq0)[0], P0)
print(check_close("gradient on the whole table P: scatter vs finite differences over all T_max x d entries",
                  loss_and_grad(P0, seq0)[1], fd, atol=1e-8))
print(check_close(f"finite differences: rows {T}..{T_max - 1} get gradient 0 from a length-{T} sequence",
                  fd[T:], np.zeros((T_max - T, d)), atol=1e-12))
P, lr, steps = P0.copy(), 0.1, 50
for step in range(steps):
    P -= lr * loss_and_grad(P, rng.integers(0, V, T + 1))[1]    # every row is updated
print(check_equal(f"rows {T}..{T_max - 1}, never read in training, are still at initialisation",
                  P[T:], P0[T:]))
moved = np.linalg.norm(P[:T] - P0[:T], axis=1)
print(check_true(f"rows 0..{T - 1} moved", moved.min() > 0,
                 f"smallest change {moved.min():.3f}, largest {moved.max():.3f}; initial row norms about "
                 f"{np.linalg.norm(P0, axis=1).mean():.3f}"))
print(glue("T_l", T), glue("T_l_last", T - 1), glue("T_max_last", T_max - 1),
      glue("steps_l", steps))

fig, ax = figure(size=(6.4, 2.5))
change = np.linalg.norm(P - P0, axis=1)
ax.bar(range(T_max), change, color=[PALETTE[0] if t < T else PALETTE[1] for t in range(T_max)])
ax.set_xlim(-0.6, T_max + 1.8)
ax.axvline(T_max - 0.5, color=PALETTE[4], lw=1, ls="--")
ax.text(T_max - 0.3, change.max() * 0.8, "no row", color=PALETTE[4])
ax.set_xticks(range(0, T_max + 1, 2))
ax.set_xlabel("position t")
ax.set_ylabel(r"$\Vert P_{t,:} - P^{init}_{t,:}\Vert$")
print(svg(fig, alt=f"Bar chart of how far each of the {T_max} position rows moved in {steps} training steps on sequences of "
          f"length {T}: rows 0 to {T - 1} moved by {moved.min():.2f} to {moved.max():.2f}, rows {T} to {T_max - 1} by "
          f"exactly 0, and position {T_max} has no row",
          caption=f"Change of each row of $P$ after training on sequences "
          f"of length {T}; rows {T} to {T_max - 1} never received a gradient."))
