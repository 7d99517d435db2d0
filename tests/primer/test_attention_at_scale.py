"""Claims of primer chapter P14 (attention at scale) against independent computations.

The published parameter totals are recounted tensor by tensor, named and shaped as in the released
checkpoints, not from the chapter's closed form; the online softmax and the tiled attention are
tested on random scores, block boundaries and masks (hypothesis); the memory traffic is counted a
second time element by element, each element of each array logged with its reads and writes; the
intensities and thresholds of the decode step are recomputed in exact rational arithmetic."""
from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import esm
from conftest import demo_namespace

GQA = "primer/attention-at-scale/gqa"
CACHE = "primer/attention-at-scale/cache"
ONLINE = "primer/attention-at-scale/online_softmax"
TRAFFIC = "primer/attention-at-scale/traffic"
DECODE = "primer/attention-at-scale/decode"


# ---- The published totals, tensor by tensor -------------------------------------------------

def llama_tensors(L, d, H, n_kv, d_k, d_ff, V):
    """Names and shapes of a Llama checkpoint's tensors (Hugging Face's naming): untied head, RMSNorm gains."""
    yield "model.embed_tokens.weight", (V, d)
    for i in range(L):
        p = f"model.layers.{i}."
        yield p + "self_attn.q_proj.weight", (H * d_k, d)
        yield p + "self_attn.k_proj.weight", (n_kv * d_k, d)
        yield p + "self_attn.v_proj.weight", (n_kv * d_k, d)
        yield p + "self_attn.o_proj.weight", (d, H * d_k)
        yield p + "mlp.gate_proj.weight", (d_ff, d)
        yield p + "mlp.up_proj.weight", (d_ff, d)
        yield p + "mlp.down_proj.weight", (d, d_ff)
        yield p + "input_layernorm.weight", (d,)
        yield p + "post_attention_layernorm.weight", (d,)
    yield "model.norm.weight", (d,)
    yield "lm_head.weight", (V, d)


def gemma_tensors():
    """Gemma 2B's tensors: 18 layers, d = 2048, 8 query heads and one key-value head of 256, GeGLU of
    2 x 16,384, tied head (no lm_head tensor)."""
    d, L, H, d_k, f, V = 2048, 18, 8, 256, 16384, 256128
    yield "model.embed_tokens.weight", (V, d)
    for i in range(L):
        p = f"model.layers.{i}."
        for name, shape in (("q_proj", (H * d_k, d)), ("k_proj", (d_k, d)), ("v_proj", (d_k, d)), ("o_proj", (d, H * d_k)),
                            ("gate_proj", (f, d)), ("up_proj", (f, d)), ("down_proj", (d, f))):
            yield p + ("self_attn." if name[0] in "qkvo" else "mlp.") + name + ".weight", shape
        yield p + "input_layernorm.weight", (d,)
        yield p + "post_attention_layernorm.weight", (d,)
    yield "model.norm.weight", (d,)


def total(tensors):
    return sum(math.prod(shape) for _, shape in tensors)


def test_llama_2_7b_recounted_tensor_by_tensor_is_the_released_total():
    assert total(llama_tensors(32, 4096, 32, 32, 128, 11008, 32000)) == 6_738_415_616


def test_llama_3_8b_recounted_is_the_released_checkpoints_total_size():
    # model.safetensors.index.json of the released checkpoint: "total_size": 16060522496 bytes, bfloat16
    assert 2 * total(llama_tensors(32, 4096, 32, 8, 128, 14336, 128256)) == 16_060_522_496


def test_gemma_2b_recounted_is_table_2():
    tensors = list(gemma_tensors())
    emb = sum(math.prod(s) for n, s in tensors if "embed" in n)
    assert (emb, total(tensors) - emb) == (524_550_144, 1_981_884_416)


def test_the_chapter_count_and_cache_match_the_tensor_count():
    ns = demo_namespace(CACHE)
    assert ns["N"]["Llama 3 8B"] == total(llama_tensors(32, 4096, 32, 8, 128, 14336, 128256))
    assert ns["N"]["Gemma 2B"] == total(gemma_tensors())
    # the cache per token by the tensors too: the k_proj and v_proj outputs of every layer, 2 bytes each
    for name, tensors in (("Llama 3 8B", llama_tensors(32, 4096, 32, 8, 128, 14336, 128256)), ("Gemma 2B", gemma_tensors())):
        kv_rows = sum(shape[0] for n, shape in tensors if n.endswith(("k_proj.weight", "v_proj.weight")))
        assert ns["out"][name]["per_tok"] == 2 * kv_rows
    # the sequences at which the caches outweigh the weights: the smallest such whole number
    for name, o in ns["out"].items():
        assert (o["even"] - 1) * o["seq"] <= o["w"] < o["even"] * o["seq"], name


# ---- Grouped-query attention ---------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(st.sampled_from([(1, 1), (2, 1), (4, 2), (6, 3), (6, 2), (8, 4), (8, 1)]), st.integers(1, 7), st.integers(1, 3),
       st.integers(0, 2**32 - 1))
def test_gqa_is_multi_head_attention_with_key_and_value_heads_tied_in_groups(heads, T, d_k, seed):
    """The other route: widen W_K and W_V to H heads by copying each key-value head's columns for its group,
    then P5's multi-head attention."""
    H, n_kv = heads
    ns = demo_namespace(GQA)
    rng = np.random.default_rng(seed)
    d = H * d_k
    X = rng.normal(size=(T, d))
    W_Q = rng.normal(size=(d, d))
    W_K, W_V = rng.normal(size=(d, n_kv * d_k)), rng.normal(size=(d, n_kv * d_k))
    cols = np.concatenate([np.arange(j * d_k, (j + 1) * d_k) for j in range(n_kv) for _ in range(H // n_kv)])
    want = esm.multi_head_attention(X, W_Q, W_K[:, cols], W_V[:, cols], np.eye(d), H, mask=esm.causal_mask(T))
    got, (K, V) = ns["gqa"](X, W_Q, W_K, W_V, H, n_kv)
    assert np.allclose(got, want, atol=1e-10)
    assert K.shape == V.shape == (n_kv, T, d_k)


def test_repeat_kv_puts_the_group_head_at_every_query_index():
    ns = demo_namespace(GQA)
    KV = np.arange(3)[:, None, None] * np.ones((3, 2, 1))
    for rep in (1, 2, 4):
        out = ns["repeat_kv"](KV, rep)
        assert [int(out[h, 0, 0]) for h in range(3 * rep)] == [h // rep for h in range(3 * rep)]


# ---- The online softmax and tiled attention -------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(st.integers(1, 60), st.integers(0, 2**32 - 1), st.floats(0.1, 300), st.data())
def test_online_softmax_over_random_blocks_is_the_softmax(n, seed, spread, data):
    ns = demo_namespace(ONLINE)
    rng = np.random.default_rng(seed)
    s, V = rng.normal(size=n) * spread, rng.normal(size=(n, 3))
    cuts = sorted(data.draw(st.sets(st.integers(1, max(1, n - 1)), max_size=8)) if n > 1 else [])
    state = (-math.inf, 0.0, np.zeros(3))
    for a, b in zip([0, *cuts], [*cuts, n]):
        state = ns["online_step"](state, s[a:b], V[a:b])
    m, l, o = state
    assert m == s.max()
    assert 1 <= l <= n + 1e-9                      # the largest term is e^0 = 1, none exceeds it
    w = np.exp(s - s.max())
    assert np.allclose(o / l, (w / w.sum()) @ V, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 40), st.integers(0, 2**32 - 1), st.data())
def test_online_state_after_every_block_is_its_loop_definition(n, seed, data):
    """After every block: m the largest score seen, l = sum of e^(s_j - m) and o = sum of e^(s_j - m) v_j over
    the keys seen (P14.4-P14.6's invariant), by loops with math.fsum."""
    ns = demo_namespace(ONLINE)
    rng = np.random.default_rng(seed)
    s, V = rng.normal(size=n) * 4, rng.normal(size=(n, 3))
    cuts = sorted(data.draw(st.sets(st.integers(1, max(1, n - 1)), max_size=6)) if n > 1 else [])
    state = (-math.inf, 0.0, np.zeros(3))
    for a, b in zip([0, *cuts], [*cuts, n]):
        state = ns["online_step"](state, s[a:b], V[a:b])
        m, l, o = state
        assert m == max(s[:b])
        assert l == pytest.approx(math.fsum(math.exp(x - m) for x in s[:b]), abs=1e-12)
        assert np.allclose(o, [math.fsum(math.exp(s[j] - m) * V[j, c] for j in range(b)) for c in range(3)], atol=1e-12)


def test_online_softmax_does_not_overflow_where_exp_would():
    ns = demo_namespace(ONLINE)
    s = np.array([1000.0, 999.0, 1001.0, -1000.0])
    V = np.eye(4)
    state = (-math.inf, 0.0, np.zeros(4))
    for j in range(4):
        state = ns["online_step"](state, s[j:j + 1], V[j:j + 1])
    assert np.all(np.isfinite(state[2]))
    assert np.allclose(state[2] / state[1], esm.softmax(s), atol=1e-15)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 30), st.integers(1, 12), st.integers(1, 12), st.booleans(), st.integers(0, 2**32 - 1))
def test_tiled_attention_is_row_by_row_softmax_attention(T, B_q, B_k, causal, seed):
    ns = demo_namespace(ONLINE)
    rng = np.random.default_rng(seed)
    Q, K, V = rng.normal(size=(T, 4)) * 3, rng.normal(size=(T, 4)), rng.normal(size=(T, 2))
    rows = []
    for t in range(T):
        keys = range(t + 1) if causal else range(T)
        s = [math.fsum(Q[t, c] * K[j, c] for c in range(4)) / 2 for j in keys]
        e = [math.exp(x - max(s)) for x in s]
        rows.append(sum(w * V[j] for j, w in zip(keys, e)) / math.fsum(e))
    assert np.allclose(ns["tiled_attention"](Q, K, V, B_q, B_k, causal), np.array(rows), atol=1e-12)


def test_worked_example_by_hand():
    ns = demo_namespace(ONLINE)
    e = math.exp
    assert ns["l1"] == pytest.approx(e(-1) + 1, abs=1e-15)
    assert np.allclose(ns["o2"], [e(-1) * e(-1) + e(-3) + 2, e(-1) + e(-3)], atol=1e-15)
    assert ns["l2"] == pytest.approx(e(-1) * (e(-1) + 1) + e(-3) + 1, abs=1e-15)


# ---- Memory traffic, element by element -----------------------------------------------------

class Logged:
    """An array whose every element read or written is logged by its index."""

    def __init__(self, a, log, name):
        self.a, self.log, self.name = a, log, name

    def _touch(self, idx, kind):
        index = np.arange(self.a.size).reshape(self.a.shape)[idx]
        for i in index.ravel():
            self.log[(self.name, int(i), kind)] += 1

    def __getitem__(self, idx):
        self._touch(idx, "r")
        return self.a[idx].copy()

    def __setitem__(self, idx, x):
        self._touch(idx, "w")
        self.a[idx] = x


@pytest.mark.parametrize("T, d, B", [(8, 2, 2), (12, 3, 4), (16, 4, 8), (9, 2, 3)])
def test_every_element_is_moved_as_the_formulas_say(T, d, B, monkeypatch):
    ns = demo_namespace(TRAFFIC)
    rng = np.random.default_rng(T)
    Q, K, V = (rng.normal(size=(T, d)) for _ in "QKV")
    for algo, run in (("naive", lambda: ns["naive"](Q, K, V, {})), ("tiled", lambda: ns["tiled"](Q, K, V, B, {}))):
        log = Counter()
        names = iter(["Q", "K", "V", "S", "A", "O"] if algo == "naive" else ["Q", "K", "V", "O"])
        monkeypatch.setitem(ns["naive"].__globals__, "Slow", lambda a, counts: Logged(a, log, next(names)))
        out = run()
        want, _ = esm.attention(Q, K, V)
        assert np.allclose(out, want, atol=1e-12)
        if algo == "naive":
            # each element of Q, K, V read once; of S and A written once and read once; of O written once
            assert all(n == 1 for n in log.values())
            assert sum(log.values()) == ns["n_naive"](T, d) == 4 * T * d + 4 * T * T
        else:
            assert {k: n for k, n in log.items() if k[0] in "KV"} == {(nm, i, "r"): T // B for nm in "KV" for i in range(T * d)}
            assert all(n == 1 for k, n in log.items() if k[0] in "QO")
            assert sum(log.values()) == ns["n_tiled"](T, d, B) == 2 * T * d + 2 * T * d * T // B


@pytest.mark.parametrize("T, d, B", [(8, 2, 2), (12, 3, 4), (16, 4, 8)])
def test_causal_tiling_reads_each_key_once_per_query_block_at_or_after_it(T, d, B, monkeypatch):
    ns = demo_namespace(TRAFFIC)
    rng = np.random.default_rng(T)
    Q, K, V = (rng.normal(size=(T, d)) for _ in "QKV")
    log = Counter()
    names = iter(["Q", "K", "V", "O"])
    monkeypatch.setitem(ns["tiled"].__globals__, "Slow", lambda a, counts: Logged(a, log, next(names)))
    out = ns["tiled"](Q, K, V, B, {}, causal=True)
    assert np.allclose(out, esm.attention(Q, K, V, mask=esm.causal_mask(T))[0], atol=1e-12)
    n = T // B
    # key row r sits in block r // B; query blocks r // B, ..., n - 1 read it
    assert {k: c for k, c in log.items() if k[0] in "KV"} == {(nm, i, "r"): n - (i // d) // B for nm in "KV"
                                                              for i in range(T * d)}
    assert sum(c for k, c in log.items() if k[0] in "KV") * 2 == 2 * T * d * (n + 1)


def test_tiling_wins_exactly_above_d_T_over_d_plus_2T_and_near_d_over_2():
    ns = demo_namespace(TRAFFIC)
    for d in (64, 128):
        for T in (256, 1024, 8192, 2**17):
            # exact counts with T/B real: naive > tiled  <=>  (4Td + 4T^2) B > 2TdB + 2dT^2
            first = next(B for B in range(1, T + 1) if Fraction(4 * T * d + 4 * T * T) > 2 * T * d + Fraction(2 * d * T * T, B))
            assert first == math.floor(Fraction(d * T, d + 2 * T)) + 1
            assert first <= d // 2
        if d == 128:
            assert ns["n_naive"](8192, d) > ns["n_tiled"](8192, d, 64) and ns["n_naive"](8192, d) < ns["n_tiled"](8192, d, 63)


def test_the_block_that_fits_in_sram_is_the_root_of_the_quadratic():
    ns = demo_namespace(TRAFFIC)
    M, d = Fraction(192_000, 2), 128                       # 192 KB of 16-bit numbers
    B = ns["B_fit"]
    assert 4 * B * d + B * B <= M < 4 * (B + 1) * d + (B + 1) ** 2
    assert B == math.floor(-2 * d + math.sqrt(4 * d * d + 96_000))


def test_traffic_ratio_tends_to_2B_over_d():
    ns = demo_namespace(TRAFFIC)
    for B in (64, 256):
        r = [ns["n_naive"](T, 128) / ns["n_tiled"](T, 128, B) for T in (2**12, 2**16, 2**20)]
        gap = [abs(x - 2 * B / 128) for x in r]
        assert gap[0] > gap[1] > gap[2] and gap[2] < 0.01


# ---- Prefill and decode, in exact arithmetic --------------------------------------------------

def test_decode_thresholds_in_exact_arithmetic():
    ns = demo_namespace(DECODE)
    ridge = Fraction(312 * 10**12, 2039 * 10**9)
    d, H, d_k, f = 4096, 32, 128, 14336

    def layer(kv):
        shapes = [(d, H * d_k), (d, kv * d_k), (d, kv * d_k), (H * d_k, d), (d, f), (d, f), (f, d)]
        return sum(r * c for r, c in shapes), sum(r + c for r, c in shapes)

    def intensity(B, T, kv):
        P, A = layer(kv)
        return Fraction(B * (2 * P + 4 * T * H * d_k), 2 * (P + B * A + B * 2 * T * kv * d_k))

    assert intensity(1, 0, 8) < 1
    B_star = next(B for B in range(1, 1000) if intensity(B, 0, 8) >= ridge)
    assert B_star == math.ceil(ns["B_star"]) == ns["B_first"]
    for kv, glued in ((8, "Tl_gqa"), (32, "Tl_mha")):
        P, A = layer(kv)
        lim = lambda T: Fraction(2 * P + 4 * T * H * d_k, 2 * (A + 2 * T * kv * d_k))   # noqa: E731
        T_max = max(T for T in range(1, 5000) if lim(T) > ridge)
        assert T_max == math.floor(ns["T_limit"](kv))
        # the limit is what a very large batch reaches, and no batch beyond it
        assert intensity(10**15, 8192, kv) < lim(8192) < ridge
    # the attention over the cache: 2H / (n_bytes n_kv) FLOPs per byte, whatever T
    assert {ns["attention_intensity"](T, kv) for T in (1, 77, 8192) for kv in (8,)} == {4.0}
