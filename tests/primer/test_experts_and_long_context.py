"""Claims of primer chapter P15 (mixture of experts and long context) against independent code:
Mixtral's counts tensor by tensor, the router and the MoE layer on other sizes, the load-balancing
loss's bounds on random routers, the sliding window's mask, buffer and receptive field on other
sizes, NTK-aware scaling's slowdowns, and the two RoPE pairings."""
from __future__ import annotations

import math

import numpy as np
import pytest

import esm
from conftest import demo_namespace

PAGE = "primer/experts-and-long-context"


@pytest.fixture(scope="module")
def router():
    return demo_namespace(f"{PAGE}/router")


@pytest.fixture(scope="module")
def balance():
    return demo_namespace(f"{PAGE}/balance")


@pytest.fixture(scope="module")
def window():
    return demo_namespace(f"{PAGE}/window")


@pytest.fixture(scope="module")
def pairs():
    return demo_namespace(f"{PAGE}/rope_pairs")


def test_mixtral_counted_tensor_by_tensor():
    """Every tensor of the released checkpoint's layout (names as in Mistral's reference code), its
    shape from Table 1 of Jiang et al. (2024); summed, and with 2 of the 8 experts per layer."""
    ns = demo_namespace(f"{PAGE}/mixtral")
    d, L, H, n_kv, d_k, f, V, E = 4096, 32, 32, 8, 128, 14336, 32000, 8
    shapes = {"tok_embeddings": (V, d), "norm": (d,), "output": (V, d)}
    for i in range(L):
        shapes |= {f"layers.{i}.attention.wq": (H * d_k, d), f"layers.{i}.attention.wk": (n_kv * d_k, d),
                   f"layers.{i}.attention.wv": (n_kv * d_k, d), f"layers.{i}.attention.wo": (d, H * d_k),
                   f"layers.{i}.attention_norm": (d,), f"layers.{i}.ffn_norm": (d,), f"layers.{i}.gate": (E, d)}
        for e in range(E):
            for w in ("w1", "w2", "w3"):
                shapes[f"layers.{i}.experts.{e}.{w}"] = (f, d) if w != "w2" else (d, f)
    total = sum(math.prod(s) for s in shapes.values())
    active = sum(math.prod(s) for n, s in shapes.items() if ".experts." not in n or n.split(".")[3] in ("0", "1"))
    assert (total, active) == (ns["total"], ns["active"]) == (46_702_792_704, 12_879_925_248)
    # the published figures, 46.7B and 12.9B, to three significant figures
    assert f"{total / 1e9:.1f}" == "46.7" and f"{active / 1e9:.1f}" == "12.9"


def test_one_expert_model_is_mistral_7b_shaped():
    ns = demo_namespace(f"{PAGE}/mixtral")
    d, L, n_kv, d_k, f, V = 4096, 32, 8, 128, 14336, 32000
    mistral = 2 * V * d + L * (2 * d * d + 2 * d * n_kv * d_k + 3 * d * f + 2 * d) + d
    assert ns["dense"] == mistral


@pytest.mark.parametrize("seed", range(5))
def test_moe_layer_against_a_dense_evaluation_of_every_expert(router, seed):
    """Other sizes: every expert evaluated on every token, the outputs weighted by a mask of the top k."""
    rng = np.random.default_rng(100 + seed)
    T, d, E, k, f = 9, 6, 5, 1 + seed % 4, 7
    X, W_r = rng.normal(size=(T, d)), rng.normal(size=(d, E))
    experts = [tuple(rng.normal(size=s) for s in ((d, f), (d, f), (f, d))) for _ in range(E)]
    logits = X @ W_r
    keep = logits >= np.sort(logits, axis=1)[:, [-k]]
    g = np.where(keep, np.exp(logits - logits.max(1, keepdims=True)), 0.0)
    g /= g.sum(1, keepdims=True)
    outs = np.stack([router["swiglu"](X, *w) for w in experts], axis=1)          # (T, E, d)
    assert np.allclose(router["moe"](X, W_r, experts, k), (g[:, :, None] * outs).sum(1), atol=1e-10)
    assert np.allclose(router["moe"](X, W_r, experts, k), router["moe_loop"](X, W_r, experts, k), atol=1e-10)


def test_moe_with_all_experts_is_the_dense_mixture(router):
    X, W_r, experts, E = router["X"], router["W_r"], router["experts"], router["E"]
    dense = sum(esm.softmax(X @ W_r, axis=1)[:, [e]] * router["swiglu"](X, *experts[e]) for e in range(E))
    assert np.allclose(router["moe"](X, W_r, experts, E), dense, atol=1e-12)


def test_balance_loss_bounds_on_random_routers(balance):
    """What the page claims on any router: shares and probabilities sum to 1, f_i <= 1/k, the loss is at
    most E/k, and E sum P_i^2 >= 1 (Cauchy-Schwarz)."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        T, E = rng.integers(1, 40), rng.integers(2, 10)
        k = int(rng.integers(1, E + 1))
        value, f, P = balance["balance_loss"](rng.normal(size=(T, E)) * rng.uniform(0.1, 10), k)
        assert math.isclose(f.sum(), 1) and math.isclose(P.sum(), 1)
        assert f.max() <= 1 / k + 1e-12
        assert value <= E / k + 1e-9
        assert E * (P ** 2).sum() >= 1 - 1e-12


def balance_loop(logits, k):
    """The load-balancing loss E sum_i f_i P_i in plain Python: count each expert's choices, add up its
    probabilities."""
    T, E = len(logits), len(logits[0])
    f = [sum(e in sorted(range(E), key=lambda i: -z[i])[:k] for z in logits) / (k * T) for e in range(E)]
    P = [sum(math.exp(z[e]) / sum(map(math.exp, z)) for z in logits) / T for e in range(E)]
    return E * sum(a * b for a, b in zip(f, P))


def test_balance_loss_against_a_loop(balance):
    """The page's pencil example (f = (2, 2, 1, 1)/6, scoring 1.12) and random routers, against the loop."""
    assert math.isclose(balance_loop(balance["Z"].tolist(), 2), balance["aux"], rel_tol=1e-12)
    assert f"{balance['aux']:.2f}" == "1.12"
    rng = np.random.default_rng(11)
    for _ in range(50):
        T, E = int(rng.integers(1, 20)), int(rng.integers(2, 9))
        k = int(rng.integers(1, E + 1))
        logits = rng.normal(size=(T, E)) * 3
        assert math.isclose(balance["balance_loss"](logits, k)[0], balance_loop(logits.tolist(), k), rel_tol=1e-12)


def test_window_mask_properties(window):
    mask = window["window_mask"]
    for T in (1, 5, 17):
        assert np.array_equal(mask(T, T), esm.causal_mask(T))             # a window as long as the input is causal
        assert np.array_equal(mask(T, 1), np.eye(T, dtype=bool))          # W = 1: only itself
        for W in (2, 3, 8):
            M = mask(T, W)
            for t in range(T):
                seen = np.flatnonzero(M[t])
                assert seen.tolist() == list(range(max(0, t - W + 1), t + 1))   # contiguous, ends at t, at most W


@pytest.mark.parametrize("W", [1, 2, 5, 40])
def test_rolling_buffer_decoding_on_other_windows(window, W):
    rng = np.random.default_rng(W)
    X = rng.normal(size=(23, 4))
    Ws = [rng.normal(size=(4, 4)) for _ in range(3)]
    want, _ = esm.attention(X @ Ws[0], X @ Ws[1], X @ Ws[2], mask=window["window_mask"](23, W))
    assert np.allclose(window["decode_rolling"](X, *Ws, W), want, atol=1e-12)


@pytest.mark.parametrize("T,W,L", [(12, 2, 1), (20, 3, 4), (30, 5, 2), (9, 9, 3)])
def test_receptive_field_is_the_band_of_the_mask_power(window, T, W, L):
    """Reachability through L masks (boolean matrix power) against the closed form t - L(W-1) <= s <= t."""
    M = window["window_mask"](T, W).astype(int)
    reach = np.linalg.matrix_power(M, L) > 0
    t, s = np.arange(T)[:, None], np.arange(T)[None, :]
    assert np.array_equal(reach, (s <= t) & (t - s <= L * (W - 1)))
    assert np.array_equal(window["reach"], np.linalg.matrix_power(window["window_mask"](16, 4).astype(int), 3) > 0)


def test_mistral_cache_bytes_from_an_array():
    cache = np.zeros((32, 2, 8, 4096, 128), dtype=np.float16)               # layers, k/v, heads, W slots, d_k
    assert cache.nbytes == 536_870_912 and cache.nbytes * 8 == 2 * 32 * 32768 * 8 * 128 * 2


@pytest.mark.parametrize("d_k,lam", [(8, 4), (64, 2), (128, 4), (128, 8)])
def test_ntk_slowdowns(d_k, lam):
    """omega_j / omega'_j by the base change in logs, against lambda^(2j/(d_k-2)); ends 1 and lambda; and
    the geometric mean of the slowdowns is sqrt(lambda) (a sum of exponents)."""
    ns = demo_namespace(f"{PAGE}/rope_scaling")
    b_new = ns["ntk_base"](lam, d_k)
    j = np.arange(d_k // 2)
    slow = np.exp((2 * j / d_k) * (math.log(b_new) - math.log(10000.0)))
    assert np.allclose(esm.rope_angles(d_k) / esm.rope_angles(d_k, b_new), slow, rtol=1e-12)
    assert np.allclose(slow, lam ** (2 * j / (d_k - 2)), rtol=1e-12)
    assert math.isclose(slow[0], 1) and math.isclose(slow[-1], lam, rel_tol=1e-12)
    assert math.isclose(math.exp(np.log(slow).mean()), math.sqrt(lam), rel_tol=1e-12)


def test_interpolation_keeps_every_angle_in_range():
    for T_train, lam in ((4096, 4), (2048, 16)):
        assert (lam * T_train - 1) / lam < T_train


def test_rope_scaling_figure_values():
    ns = demo_namespace(f"{PAGE}/rope_scaling")
    omega = esm.rope_angles(128)
    never = [j for j in range(64) if 2 * math.pi / omega[j] > 4096]
    assert never == list(range(46, 64))
    assert math.isclose(ns["over"][46], 4 ** (1 - 92 / 126), rel_tol=1e-12)


def test_pairing_permutation_and_its_inverse(pairs):
    for d_k in (2, 4, 16, 128):
        pi = pairs["to_pairs"](d_k)
        inv = np.empty_like(pi)
        inv[pi] = np.arange(d_k)
        assert sorted(pi.tolist()) == list(range(d_k))
        assert np.array_equal(pi[inv], np.arange(d_k)) and np.array_equal(inv, np.argsort(pi))
        assert [pi[2 * j + 1] - pi[2 * j] for j in range(d_k // 2)] == [d_k // 2] * (d_k // 2)


def test_rotate_half_rope_by_explicit_pairs(pairs):
    """Hugging Face's layout by a loop: coordinates j and j + d_k/2 rotated by t omega_j."""
    rng = np.random.default_rng(3)
    d_k = 10
    x = rng.normal(size=d_k)
    for t in (0, 1, 37, 1000):
        want = x.copy()
        for j in range(d_k // 2):
            a = t * 10000.0 ** (-2 * j / d_k)
            u, v = x[j], x[j + d_k // 2]
            want[j], want[j + d_k // 2] = math.cos(a) * u - math.sin(a) * v, math.sin(a) * u + math.cos(a) * v
        assert np.allclose(pairs["rope_halves"](x[None], np.array([t]))[0], want, atol=1e-12)
