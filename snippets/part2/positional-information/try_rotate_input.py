"""Try this: in 6.4's demo, rotate the token rows before the projections W_Q and W_K instead of the
queries and keys after them, and shifting both positions by the same amount changes the scores: the
projections mix the rotated pairs, so the score no longer depends on the offset alone."""
import numpy as np

from esm import check_close, check_true, rope_rotate, table

rng = np.random.default_rng(64)
d, T, t_max = 16, 8, 4096
X, Y = rng.normal(0, 1, (T, d)), rng.normal(0, 1, (T, d))      # token rows of the queries and of the keys
W_Q, W_K = (rng.normal(0, 1 / np.sqrt(d), (d, d)) for _ in range(2))
pos_q, pos_k = rng.integers(0, t_max, T), rng.integers(0, t_max, T)
shift = rng.integers(-1000, 1000, T)


def rope_scores(t, s):
    """RoPE as the section builds it: project, then rotate the query and the key by their positions."""
    return np.sum(rope_rotate(X @ W_Q, t) * rope_rotate(Y @ W_K, s), axis=1)


def input_scores(t, s):
    """Rotate the token rows once at the input, then project."""
    # changed: was rope_rotate(X @ W_Q, t) and rope_rotate(Y @ W_K, s)
    return np.sum((rope_rotate(X, t) @ W_Q) * (rope_rotate(Y, s) @ W_K), axis=1)


moved_rope = np.abs(rope_scores(pos_q + shift, pos_k + shift) - rope_scores(pos_q, pos_k))
moved_input = np.abs(input_scores(pos_q + shift, pos_k + shift) - input_scores(pos_q, pos_k))
print(table(("rotated", "largest change of a score when both positions shift"),
            [("queries and keys, after W_Q and W_K (RoPE)",
              "below 1e-9" if moved_rope.max() < 1e-9 else f"{moved_rope.max():.2f}"),
             ("token rows, before W_Q and W_K", f"{moved_input.max():.2f}")]))
print(check_close("RoPE: shifting both positions leaves every score as it was", moved_rope, np.zeros(T), atol=1e-9))
print(check_true("rotated at the input: the same shifts change a score by more than 1", moved_input.max() > 1,
                 f"largest change {moved_input.max():.2f}, scores up to {np.abs(input_scores(pos_q, pos_k)).max():.2f}"))
