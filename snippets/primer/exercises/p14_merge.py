"""Exercise: merging two partial softmax states. Each block of keys gives (m, l, o) on its own; two states
combine by re-referencing both to the larger maximum. The merge is checked against the softmax over the
union, to be commutative and associative, and a tree of merges over 16 blocks in a shuffled order gives
softmax(s) V: the keys can be split among workers and the results combined in any order."""
import math

import numpy as np

from esm import check_close, glue, softmax


def state(s, V):
    """(m, l, o) of one block on its own: its maximum, sum_j e^(s_j - m) and sum_j e^(s_j - m) v_j."""
    m = float(s.max())
    p = np.exp(s - m)
    return m, float(p.sum()), p @ V


def merge(a, b):
    """Both states re-referenced to the larger maximum, then added."""
    (m_a, l_a, o_a), (m_b, l_b, o_b) = a, b
    m = max(m_a, m_b)
    ea, eb = math.exp(m_a - m), math.exp(m_b - m)
    return m, ea * l_a + eb * l_b, ea * o_a + eb * o_b


rng = np.random.default_rng(43)
n = 64
s, V = rng.normal(size=n) * 3, rng.normal(size=(n, 5))
A, B, C = state(s[:20], V[:20]), state(s[20:45], V[20:45]), state(s[45:], V[45:])
m, l, o = merge(merge(A, B), C)
print(check_close("(b) merging the states of three blocks = the state of all the keys (m, l and o)",
                  np.concatenate([[m, l], o]), np.concatenate([[state(s, V)[0], state(s, V)[1]], state(s, V)[2]]), atol=1e-12))
print(check_close("(b) o / l = softmax(s) V (P4's softmax)", o / l, softmax(s) @ V, atol=1e-12))
flat = lambda x: np.concatenate([[x[0], x[1]], x[2]])                   # noqa: E731
print(check_close("(a) commutative: merge(A, B) = merge(B, A)", flat(merge(A, B)), flat(merge(B, A)), atol=1e-12))
print(check_close("(a) associative: merge(merge(A, B), C) = merge(A, merge(B, C))", flat(merge(merge(A, B), C)),
                  flat(merge(A, merge(B, C))), atol=1e-12))
print(check_close("(a) merge with the empty state (-inf, 0, 0) changes nothing", flat(merge((-math.inf, 0.0, np.zeros(5)), A)),
                  flat(A), atol=0))


def online_step(st, s_b, V_b):
    """The chapter's update, as on its page: equations (P14.4) to (P14.6) for one new block."""
    m, l, o = st
    m_new = max(m, s_b.max())
    scale = math.exp(m - m_new)
    p = np.exp(s_b - m_new)
    return m_new, scale * l + p.sum(), scale * o + p @ V_b


# The chapter's update is a merge with a one-block state: fold both over 8 blocks, left to right, from (-inf, 0, 0).
edges = [0, 5, 13, 14, 30, 41, 50, 58, 64]
by_merge = by_update = (-math.inf, 0.0, np.zeros(5))
worst = 0.0
for a, b in zip(edges[:-1], edges[1:]):
    by_merge, by_update = merge(by_merge, state(s[a:b], V[a:b])), online_step(by_update, s[a:b], V[a:b])
    worst = max(worst, float(np.abs(flat(by_merge) - flat(by_update)).max()))
print(check_close("(a) after every one of 8 blocks, merge(state, state of the block) = the chapter's update (largest difference)",
                  worst, 0.0, atol=1e-12))

# (c) 16 blocks, given to workers in a shuffled order, combined pairwise in a tree.
cuts = np.sort(rng.choice(np.arange(1, n), size=15, replace=False))
blocks = [state(s[a:b], V[a:b]) for a, b in zip([0, *cuts], [*cuts, n])]
order = rng.permutation(len(blocks))
level = [blocks[i] for i in order]
depth = 0
while len(level) > 1:
    level = [merge(level[i], level[i + 1]) if i + 1 < len(level) else level[i] for i in range(0, len(level), 2)]
    depth += 1
m, l, o = level[0]
print(check_close(f"(c) 16 blocks in a shuffled order, merged pairwise in a tree of depth {depth}: o / l = softmax(s) V",
                  o / l, softmax(s) @ V, atol=1e-12))
print(glue("mg_blocks", len(blocks)), glue("mg_depth", depth))
