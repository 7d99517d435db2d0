"""Fix of the debugging exercise on RoPE's backward: turn the gradient back by -t (R_t's transpose). The same
check passes; then the checks that could have missed the bug: a window of one position, and row 0 of dQ."""
import math

import numpy as np

from esm import check_close, check_true, glue, numerical_grad, rope_rotate


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




def scores_back_fixed(dS, Q, K):
    pos = np.arange(len(Q))
    Qr, Kr = rope_rotate(Q, pos), rope_rotate(K, pos)
    dQr, dKr = dS @ Kr / math.sqrt(Q.shape[1]), dS.T @ Qr / math.sqrt(Q.shape[1])
    return rope_rotate(dQr, -pos), rope_rotate(dKr, -pos)     # R_t^T = R_{-t}


def run_fixed():
    return check_back(scores_back_fixed)


print(run_fixed())
# (c) A check on one position cannot see the bug: R_0 is the identity, so +0 and -0 turn alike.
print(check_back(scores_back, T=1))
rng = np.random.default_rng(1)
Q, K, dS = rng.normal(size=(6, 4)), rng.normal(size=(6, 4)), rng.normal(size=(6, 6))
(bq, bk), (fq, fk) = scores_back(dS, Q, K), scores_back_fixed(dS, Q, K)
wrong = [t for t in range(6) if not (np.allclose(bq[t], fq[t], atol=1e-12) and np.allclose(bk[t], fk[t], atol=1e-12))]
print(check_true("the broken dQ and dK differ from the fixed ones at every position but 0", wrong == list(range(1, 6)),
                 f"positions that differ: {wrong}"))
print(glue("rb_T", 5))
