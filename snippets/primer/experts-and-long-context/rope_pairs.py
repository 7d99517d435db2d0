"""P15 RoPE's pairs (2j, 2j+1) against rotate_half's (j, j + d_k/2): equal up to a permutation."""
import numpy as np

from esm import check_close, check_equal, check_true, glue, rope_angles, rope_rotate


def rotate_half(x):
    """(x_1, x_2) -> (-x_2, x_1) for the two halves of the last axis."""
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def rope_halves(x, positions):
    """RoPE as rotate_half code writes it: coordinates j and j + d_k/2 turn together by t omega_j."""
    ang = np.multiply.outer(positions, rope_angles(x.shape[-1]))
    ang = np.concatenate([ang, ang], axis=-1)
    return x * np.cos(ang) + rotate_half(x) * np.sin(ang)


def to_pairs(d_k):
    """The order with x_pairs = x_halves[order], the permutation Pi: slot 2j takes coordinate j, slot 2j+1 takes j + d_k/2."""
    order = np.empty(d_k, dtype=int)
    order[0::2], order[1::2] = np.arange(d_k // 2), np.arange(d_k // 2) + d_k // 2
    return order


print(check_equal("pencil: d_k = 4 takes the coordinates in the order (0, 2, 1, 3)", to_pairs(4), np.array([0, 2, 1, 3]), eq="pairing"))
print(glue("rp_p4", to_pairs(4).tolist()))
rng = np.random.default_rng(15)
T, d_k, H, d = 12, 16, 2, 32
order, pos = to_pairs(d_k), np.arange(T) + 1000.0
X = rng.normal(size=(T, d_k))
print(check_close("rotate_half RoPE, then Pi = the book's RoPE (esm.rope_rotate) of Pi x", rope_halves(X, pos)[:, order],
                  rope_rotate(X[:, order], pos), atol=1e-12, eq="pairing"))

# Weights trained with pairs (2j, 2j+1), run by rotate_half code: reorder each head's columns of W_Q and W_K.
cols = np.concatenate([h * d_k + np.argsort(order) for h in range(H)])      # argsort(order): the inverse permutation
A = rng.normal(size=(T, d))
W_Q, W_K = (rng.normal(size=(d, H * d_k)) / np.sqrt(d) for _ in range(2))


def scores(W_Q, W_K, rope):
    Q, K = ((A @ W).reshape(T, H, d_k).transpose(1, 0, 2) for W in (W_Q, W_K))
    return rope(Q, pos) @ rope(K, pos).transpose(0, 2, 1)


print(check_close("scores: the book's RoPE = rotate_half RoPE with W_Q's and W_K's columns reordered per head",
                  scores(W_Q[:, cols], W_K[:, cols], rope_halves), scores(W_Q, W_K, rope_rotate), atol=1e-9, eq="pairing"))
gap = np.abs(scores(W_Q, W_K, rope_halves) - scores(W_Q, W_K, rope_rotate)).max()
print(check_true("the same weights without the reordering give other scores", gap > 1, f"largest difference {gap:.1f}"))
# Hugging Face's conversion of Llama's (out x in) weights: w.view(H, d_k // 2, 2, d).transpose(1, 2).reshape(H d_k, d).
print(check_equal("that conversion's reshape and transpose is this reordering", W_Q.T.reshape(H, d_k // 2, 2, d)
                  .transpose(0, 2, 1, 3).reshape(H * d_k, d).T, W_Q[:, cols]))
