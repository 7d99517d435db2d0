"""Claims of docs/part2/positional-information.md (6.1-6.5), checked against independent
computations: attention by loops, RoPE by complex numbers, the ALiBi paper's slope recipe."""

from __future__ import annotations

import cmath
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DOCS, demo_namespace

PAGE = (DOCS / "part2" / "positional-information.md").read_text(encoding="utf-8")


def demo(name: str) -> dict:
    return demo_namespace(f"part2/positional-information/{name}")


def attn_loop(X, WQ, WK, WV, causal=False):
    """Single-head attention by loops over queries and keys."""
    Q, K, V = X @ WQ, X @ WK, X @ WV
    T, dk = Q.shape
    out = np.zeros((T, V.shape[1]))
    for i in range(T):
        keys = range(i + 1) if causal else range(T)
        s = [float(Q[i] @ K[j]) / math.sqrt(dk) for j in keys]
        m = max(s)
        w = [math.exp(v - m) for v in s]
        for j, wj in zip(keys, w):
            out[i] += wj / sum(w) * V[j]
    return out


# -- 6.1 --------------------------------------------------------------------------------------------

@given(st.integers(2, 7), st.integers(0, 10_000))
@settings(max_examples=30, deadline=None)
def test_attention_is_permutation_equivariant_and_causal_attention_is_not(T, seed):
    rng = np.random.default_rng(seed)
    d, dk = 5, 3
    X = rng.normal(size=(T, d))
    WQ, WK, WV = (rng.normal(size=(d, dk)) for _ in range(3))
    perm = rng.permutation(T)
    assert np.allclose(attn_loop(X[perm], WQ, WK, WV), attn_loop(X, WQ, WK, WV)[perm], atol=1e-10)


def test_causal_mask_breaks_equivariance_for_a_swap():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4, 5))
    WQ, WK, WV = (rng.normal(size=(5, 3)) for _ in range(3))
    perm = np.array([1, 0, 2, 3])
    gap = np.abs(attn_loop(X[perm], WQ, WK, WV, causal=True) - attn_loop(X, WQ, WK, WV, causal=True)[perm]).max()
    assert gap > 1e-3


def test_permutation_demo_numbers():
    ns = demo("permutation")
    X, perm = ns["X"], ns["perm"]
    WQ, WK, WV = ns["W_Q"], ns["W_K"], ns["W_V"]
    assert np.allclose(attn_loop(X[perm], WQ, WK, WV), attn_loop(X, WQ, WK, WV)[perm], atol=1e-12)
    gap = np.abs(attn_loop(X[perm], WQ, WK, WV, causal=True) - attn_loop(X, WQ, WK, WV, causal=True)[perm]).max()
    assert gap > 1e-3                                                # the mask breaks it, as the checks say
    # the by-hand example: three integer tokens, identity projections; swapping the first two
    # permutes rows and columns of the scores, and the third token's output does not move
    Xh = np.array([[2, 0], [0, 1], [1, 1]])
    sw = [1, 0, 2]
    S = [[int(a @ b) for b in Xh] for a in Xh]
    assert [[S[sw[t]][sw[s]] for s in range(3)] for t in range(3)] == (Xh[sw] @ Xh[sw].T).tolist()
    eye = np.eye(2)
    assert np.allclose(attn_loop(Xh[sw].astype(float), eye, eye, eye)[2], attn_loop(Xh.astype(float), eye, eye, eye)[2])
    assert "${{perm}}$" in PAGE and "{{Sh_swapped}}" in PAGE and "{{Xh}}" in PAGE


# -- 6.2 --------------------------------------------------------------------------------------------

@given(st.integers(0, 5000), st.integers(0, 300), st.sampled_from([2, 4, 8, 16, 64]))
@settings(max_examples=40, deadline=None)
def test_sinusoidal_shift_and_dot_product(p, k, d):
    def pe(q):
        out = []
        for j in range(d // 2):
            w = 10000 ** (-2 * j / d)
            out += [math.sin(w * q), math.cos(w * q)]
        return np.array(out)
    M = np.zeros((d, d))
    for j in range(d // 2):
        a = k * 10000 ** (-2 * j / d)
        M[2 * j:2 * j + 2, 2 * j:2 * j + 2] = [[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]]
    assert np.allclose(M @ pe(p), pe(p + k), atol=1e-9)
    assert math.isclose(float(pe(p) @ pe(p + k)), sum(math.cos(k * 10000 ** (-2 * j / d)) for j in range(d // 2)),
                        abs_tol=1e-9)


def test_sinusoidal_numbers():
    ns = demo("sinusoidal")
    d = ns["d"]
    assert math.isclose(ns["omega"][-1], 10000 ** (-(d - 2) / d), rel_tol=1e-12)
    period = 2 * math.pi / ns["omega"][-1]
    assert math.isclose(period, 2 * math.pi * 10000 ** ((d - 2) / d), rel_tol=1e-12)
    PE = ns["PE"]
    assert np.allclose((PE ** 2).sum(axis=1), d / 2)                     # squared norm d/2


# -- 6.3 --------------------------------------------------------------------------------------------

def test_learned_position_claims():
    ns = demo("learned")
    # GPT-2 small's position table wpe (1024 x 768) and BERT-base's (512 x 768), as published; the
    # whole of GPT-2 small is counted in primer chapter P8, not here
    assert (ns["gpt2_T_max"], ns["gpt2_d"], ns["bert_T_max"], ns["bert_d"]) == (1024, 768, 512, 768)
    assert "n_gpt2" not in ns
    P, P0, T = ns["P"], ns["P0"], ns["T"]
    assert np.array_equal(P[T:], P0[T:]) and np.all(np.linalg.norm(P[:T] - P0[:T], axis=1) > 0)
    try:
        P0[ns["T_max"]]
        raise AssertionError("row T_max exists")
    except IndexError:
        pass


# -- 6.4 --------------------------------------------------------------------------------------------

def rope_complex(x, p, d):
    """RoPE as complex multiplication: pair (x_2j, x_2j+1) times exp(i p theta_j)."""
    out = []
    for j in range(d // 2):
        z = complex(x[2 * j], x[2 * j + 1]) * cmath.exp(1j * p * 10000 ** (-2 * j / d))
        out += [z.real, z.imag]
    return np.array(out)


@given(st.integers(0, 100_000), st.integers(0, 100_000), st.sampled_from([2, 4, 8, 16]), st.integers(0, 10_000))
@settings(max_examples=40, deadline=None)
def test_rope_matches_complex_rotation_and_depends_on_offset_only(p, s, d, seed):
    import esm
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=d), rng.normal(size=d)
    assert np.allclose(esm.rope_rotate(q, p), rope_complex(q, p, d), atol=1e-8)
    assert math.isclose(np.linalg.norm(rope_complex(q, p, d)), np.linalg.norm(q), rel_tol=1e-9)
    score = float(rope_complex(q, p, d) @ rope_complex(k, s, d))
    assert math.isclose(score, float(q @ rope_complex(k, s - p, d)), abs_tol=1e-7)


def test_rope_demo_numbers():
    ns = demo("rope")
    Q, K, d = ns["Q"], ns["K"], ns["d"]
    scores = [float(rope_complex(Q[i], int(t), d) @ rope_complex(K[i], int(s), d))
              for i, (t, s) in enumerate(zip(ns["pos_q"], ns["pos_k"]))]
    assert np.allclose(scores, ns["scores"], atol=1e-9)
    assert math.isclose(max(abs(a - float(q @ k)) for a, q, k in zip(scores, Q, K)),
                        np.abs(ns["scores"] - ns["plain"]).max(), abs_tol=1e-9)
    assert math.isclose(ns["curve"][0], d, abs_tol=1e-12)


# -- 6.5 --------------------------------------------------------------------------------------------

def paper_slopes(n):
    """The slope recipe of the ALiBi reference code (Press et al.), powers of two and others."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + paper_slopes(2 * closest)[0::2][:n - closest]


def test_alibi_slopes_match_the_paper_recipe():
    import esm
    assert esm.alibi_slopes(8).tolist() == [1 / 2 ** h for h in range(1, 9)]
    for H in (1, 2, 4, 8, 16, 32, 64):
        assert np.allclose(esm.alibi_slopes(H), paper_slopes(H), rtol=1e-12)
    # the non-power-of-two recipe described on the page: 12 heads = the 8 slopes + every other of 16
    assert paper_slopes(12)[:8] == paper_slopes(8) and paper_slopes(12)[8:] == paper_slopes(16)[0::2][:4]


def test_alibi_bias_is_translation_invariant_and_causal():
    import esm
    for m in (0.5, 1 / 256):
        B = esm.alibi_bias(12, m)
        for i in range(12):
            for j in range(12):
                assert (B[i, j] == -m * (i - j)) if j <= i else np.isneginf(B[i, j])


def test_alibi_demo_numbers():
    ns = demo("alibi")
    Q, K, m, T, dk = ns["Q"], ns["K"], ns["m"], ns["T"], ns["d_k"]
    for h in (0, len(m) - 1):                                        # weight of key 0 for the last query
        s = [float(Q[h, T - 1] @ K[h, j]) / math.sqrt(dk) - m[h] * (T - 1 - j) for j in range(T)]
        top = max(s)
        assert math.isclose(math.exp(s[0] - top) / sum(math.exp(v - top) for v in s), ns["far"][h], rel_tol=1e-12)
    assert "{{pen9}}" in PAGE and "{{far_first}}" in PAGE
