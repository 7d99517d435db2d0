"""Debugging exercise: an online softmax over blocks of keys, for one query. It runs, and on some
inputs it is right; its check (the output against softmax(s) V for random scores cut into blocks)
fails, and is printed as the expected failure."""
import math

import numpy as np

from esm import check_close, expect_failure, softmax


def online_attention(s, V, block):
    """softmax(s) V for one query's scores s (n,) and values V (n, d_v), the keys taken `block` at a time."""
    m, l, o = -math.inf, 0.0, np.zeros(V.shape[1])
    for j in range(0, len(s), block):
        s_b, V_b = s[j:j + block], V[j:j + block]
        m_new = max(m, s_b.max())
        p = np.exp(s_b - m_new)
        l = math.exp(m - m_new) * l + p.sum()
        o = o + p @ V_b
        m = m_new
    return o / l


def check_online(attend):
    """Random scores of spread 3 and values, 40 keys in blocks of 8, against P4's softmax."""
    rng = np.random.default_rng(41)
    s, V = rng.normal(size=40) * 3, rng.normal(size=(40, 4))
    return check_close("one pass over 40 keys in blocks of 8 = softmax(s) V", attend(s, V, 8), softmax(s) @ V, atol=1e-12)


def run_broken():
    return check_online(online_attention)


# It runs, and with a single block it is right: the loop then makes one pass of the plain softmax.
rng = np.random.default_rng(0)
s, V = rng.normal(size=12), rng.normal(size=(12, 3))
print(check_close("with one block of all 12 keys the broken code gives softmax(s) V", online_attention(s, V, 12),
                  softmax(s) @ V, atol=1e-12))
print(expect_failure(run_broken))
