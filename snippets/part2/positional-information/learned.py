"""6.3 Learned positions: a trainable table with T_max rows, and nothing after the last one."""
import numpy as np

from esm import PALETTE, check_close, check_equal, check_true, figure, shape_table, softmax, svg

rng = np.random.default_rng(63)
V, d, T_max, T = 50, 8, 16, 10
E = rng.normal(0, 1, (V, d))                     # token table
P0 = rng.normal(0, 0.02, (T_max, d))             # position table at initialisation (GPT-2 uses std 0.01)
ids = rng.integers(0, V, T)
H0 = E[ids] + P0[:T]                             # the first residual state: token row + position row

print(shape_table({"V": V, "d": d, "T_max": T_max, "T": T}, [
    ("token table", "E", E, "V d", "one row per token id"),
    ("position table", "P", P0, "T_max d", r"one trainable row per position $0..T_{\max}-1$"),
    ("input ids", r"\mathbf i", ids, "T", "a sequence shorter than the table"),
    ("first residual state", r"H^{(0)}", H0, "T d", r"row $t$ is $E_{i_t,:}+P_{t,:}$"),
]))

loop = np.stack([E[ids[t]] + P0[t] for t in range(T)])
print(check_close("h_t = E[i_t] + P[t]: vectorised vs a loop over t", H0, loop, atol=0.0, eq="learned-pos"))
print(check_equal("GPT-2 small: T_max = 1024, d = 768 gives 1024 * 768 position parameters",
                  np.zeros((1024, 768)).size, 786_432))
print(check_equal("BERT-base: T_max = 512, d = 768", np.zeros((512, 768)).size, 393_216))

try:
    P0[T_max]
    raised = "no error"
except IndexError as err:
    raised = type(err).__name__
print(check_equal(f"position {T_max} has no row: indexing P[T_max] fails", raised, "IndexError"))
clamped = P0[np.minimum(np.arange(T_max + 4), T_max - 1)]   # a common hack: reuse the last row
print(check_true("clamping makes positions T_max-1, T_max, ... identical, so their order is lost",
                 np.all(clamped[T_max - 1:] == P0[T_max - 1]), f"rows {T_max - 1}..{T_max + 3} all equal P[{T_max - 1}]"))

# Train only on sequences of length T = 10 < T_max: rows 10..15 never receive a gradient.
P = P0.copy()
W = rng.normal(0, 1, (V, d))
lr = 0.1
for step in range(50):
    seq = rng.integers(0, V, T + 1)              # T inputs and the T tokens that follow them
    G = softmax((E[seq[:T]] + P[:T]) @ W.T)
    G[np.arange(T), seq[1:]] -= 1.0              # d loss / d logits at positions 0..T-1
    P[:T] -= lr * (G @ W) / T                    # d loss / d P[t] = d loss / d h_t
print(check_equal(f"rows {T}..{T_max - 1}, never used in training, are still at initialisation",
                  P[T:], P0[T:]))
moved = np.linalg.norm(P[:T] - P0[:T], axis=1)
print(check_true(f"rows 0..{T - 1} moved", moved.min() > 0,
                 f"smallest change {moved.min():.3f}, largest {moved.max():.3f}; initial row norms about "
                 f"{np.linalg.norm(P0, axis=1).mean():.3f}"))

fig, ax = figure(size=(6.4, 2.5))
change = np.linalg.norm(P - P0, axis=1)
ax.bar(range(T_max), change, color=[PALETTE[0] if t < T else PALETTE[1] for t in range(T_max)])
ax.set_xlim(-0.6, T_max + 1.8)
ax.axvline(T_max - 0.5, color=PALETTE[4], lw=1, ls="--")
ax.text(T_max - 0.3, change.max() * 0.8, "no row", color=PALETTE[4])
ax.set_xticks(range(0, T_max + 1, 2))
ax.set_xlabel("position t")
ax.set_ylabel(r"$\Vert P_t - P_t^{init}\Vert$")
print(svg(fig, alt="Bar chart of how far each position row moved in training: rows 0 to 9 moved, rows 10 to 15 "
          "did not, and position 16 has no row", caption=f"Change of each row of $P$ after training on sequences "
          f"of length {T}; rows {T} to {T_max - 1} never received a gradient."))
