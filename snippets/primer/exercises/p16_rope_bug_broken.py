"""Debugging exercise: the backward pass of RoPE attention scores, written by hand. It runs and returns
gradients of the right shapes; the check it fails (central differences of the scores) is printed as the
expected failure."""
import math

import numpy as np

from esm import check_close, check_equal, expect_failure, numerical_grad, rope_rotate


def scores(Q, K):                        # S[t, s] = (R_t q_t) . (R_s k_s) / sqrt(d_k): one head, rows are positions
    pos = np.arange(len(Q))
    return rope_rotate(Q, pos) @ rope_rotate(K, pos).T / math.sqrt(Q.shape[1])


def scores_back(dS, Q, K):               # dQ and dK from dS, the gradient reaching the scores
    pos = np.arange(len(Q))
    Qr, Kr = rope_rotate(Q, pos), rope_rotate(K, pos)
    dQr, dKr = dS @ Kr / math.sqrt(Q.shape[1]), dS.T @ Qr / math.sqrt(Q.shape[1])
    return rope_rotate(dQr, pos), rope_rotate(dKr, pos)


def check_back(back, T=5, d_k=4, seed=0):
    """The hand-written gradients of sum(dS * scores(Q, K)) against central differences."""
    rng = np.random.default_rng(seed)
    Q, K, dS = rng.normal(size=(T, d_k)), rng.normal(size=(T, d_k)), rng.normal(size=(T, T))
    dQ, dK = back(dS, Q, K)
    fd = np.concatenate([numerical_grad(lambda A: float((dS * scores(A, K)).sum()), Q).ravel(),
                         numerical_grad(lambda B: float((dS * scores(Q, B)).sum()), K).ravel()])
    return check_close(f"dQ and dK = central differences, {T} position{'s' * (T != 1)}", np.concatenate([dQ.ravel(), dK.ravel()]),
                       fd, atol=1e-8)


rng = np.random.default_rng(2)
Q, K = rng.normal(size=(5, 4)), rng.normal(size=(5, 4))
dQ, dK = scores_back(rng.normal(size=(5, 5)), Q, K)
print(check_equal("the broken backward runs: dQ and dK have the shapes of Q and K", [dQ.shape, dK.shape], [Q.shape, K.shape]))


def run_broken():
    return check_back(scores_back)


print(expect_failure(run_broken))
