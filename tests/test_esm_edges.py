"""The helpers at their edges, each against an independent route (a loop, a closed form,
plain Python): the cases that mutation testing (`make mutate`) found unchecked. Integer and
unsigned inputs (token ids, counts, real data in uint8) must give the float answers; axes
other than the last two; batch dimensions; error messages that name the problem."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import esm


# -- check lines --------------------------------------------------------------------------------

def test_check_less_fails_on_equal_values():
    with pytest.raises(esm.CheckFailed, match=r"^FAIL tie: a = 2 < b = 2$"):
        esm.check_less("tie", 2, 2)


def test_literal_escapes_each_markdown_character_once():
    from mkdocs_esm.output import _literal
    assert _literal("a_b`c*<d") == "a&#95;b&#96;c&#42;&lt;d"


# -- glue ---------------------------------------------------------------------------------------

def test_glue_plain_line_of_a_sequence():
    assert esm.glue("ids", (3, 7, 7)) == "\nvalue ids = (3, 7, 7)  [ of [3, 7, 7]]\n"
    assert esm.glue("w", np.array([[0.5], [0.25]]), ".2f") == "\nvalue w = (0.50, 0.25)  [.2f of [0.5, 0.25]]\n"


def test_the_build_reads_the_value_line_as_the_marker_and_the_notebook_keeps_the_text():
    from mkdocs_esm import output
    from printed import for_page, parse_value
    out = esm.glue("n", 12)
    marker = for_page(out).strip()
    assert marker.startswith("@@glue:") and marker.endswith("@@")
    payload = json.loads(bytes.fromhex(marker[len("@@glue:"):-2]).decode())
    assert payload == {"name": "n", "value": 12, "fmt": ""}
    assert output.value_line("n", "12", 12, "", True) == "value n = 12\n\n" + marker
    odd = esm.glue("s", "x  [y of z]")               # a text holding what the bracket holds
    assert parse_value(odd.strip()) == ("s", "x  [y of z]", "x  [y of z]", "")


@pytest.mark.parametrize("name, value, fmt, error, message", [
    ("flag", True, None, TypeError, r"^glue: publish a bool as the string"),
    ("flags", [True, 2], None, TypeError, r"^glue: publish a bool as the string"),
    ("x", float("nan"), ".3f", ValueError, r"^glue: nan cannot be quoted in prose$"),
    ("d", {"a": 1}, None, TypeError, r"^glue: cannot publish a dict$"),
    ("1st", 1, None, ValueError, r"^glue: bad name '1st' \(letters, digits, _; a letter first\)$"),
    ("f", 0.5, None, ValueError, r"^glue: f is a float: give it a format such as '\.3f'$"),
    ("s", "queen", ".3f", ValueError, r"^glue: s is a string: it takes no format$"),
])
def test_glue_misuse_messages_name_the_problem(name, value, fmt, error, message):
    with pytest.raises(error, match=message):
        esm.glue(name, value, fmt)


# -- shape tables -------------------------------------------------------------------------------

def test_shape_table_messages_and_scalars():
    text = esm.shape_table({"d": 2}, [("temperature", "\\tau", 0.5, "", "a scalar")])
    row = [line.strip() for line in text.splitlines() if line.strip().startswith("| temperature")][0]
    assert row == "| temperature | $\\tau$ | scalar | `()` | a scalar |"
    with pytest.raises(esm.ShapeMismatch, match=r"^x: array shape \(2,\) != scalar = \(\)$"):
        esm.shape_table({}, [("x", "x", np.zeros(2), "", "")])
    with pytest.raises(esm.ShapeMismatch, match=r"^E: no size for symbol 'V' in dims \{'d': 2\}$"):
        esm.shape_table({"d": 2}, [("E", "E", np.zeros((3, 2)), "V d", "")])


def test_share_of_seeds_counts_by_hand():
    assert esm.share_of_seeds(lambda s: s % 4 == 0) == 13 / 50          # seeds 0, 4, ..., 48
    assert esm.share_of_seeds(lambda s: s < 3, iter(range(10))) == 0.3    # any iterable, read once
    assert esm.share_of_seeds(lambda s: np.float64(s) > 7, [7, 8]) == 0.5
    assert esm.share_of_seeds(lambda s: [s] * s, range(4)) == 0.75        # truthiness, as in `if`


# -- errors of the closed forms -----------------------------------------------------------------

@pytest.mark.parametrize("call, message", [
    (lambda: esm.sinusoidal_positions(4, 5), r"^d must be even$"),
    (lambda: esm.rope_angles(5), r"^d must be even$"),
    (lambda: esm.shift_map(1.0, 5), r"^d must be even$"),
    (lambda: esm.alibi_slopes(6), r"^this closed form is for a power-of-two number of heads$"),
    (lambda: esm.split_heads(np.zeros((3, 10)), 4), r"^width 10 is not divisible by 4 heads$"),
])
def test_errors_say_what_is_wrong(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_shift_map_moves_sinusoidal_positions_by_k_rotation_by_rotation():
    # PE_{t+k} = M_k PE_t for whole, negative and fractional k (and another base); M_k written
    # out as its 2x2 blocks on the diagonal, zero elsewhere.
    for d, base in ((6, 10000.0), (8, 50.0)):
        for k in (3, -2, 0.5):
            M = esm.shift_map(k, d, base)
            t = np.arange(5, 9)
            assert np.allclose(M @ _pe_at(t, d, base).T, _pe_at(t + k, d, base).T, atol=1e-12, rtol=0)
            for j in range(d // 2):
                w = base ** (-2 * j / d)
                c, s = math.cos(k * w), math.sin(k * w)
                assert np.allclose(M[2 * j:2 * j + 2, 2 * j:2 * j + 2], [[c, s], [-s, c]], atol=1e-15, rtol=0)
            off = M.copy()
            for j in range(d // 2):
                off[2 * j:2 * j + 2, 2 * j:2 * j + 2] = 0
            assert not off.any() and M.shape == (d, d)


def _pe_at(positions, d, base):
    """PE rows at (possibly fractional) positions, from the definition, one entry at a time."""
    return np.array([[math.sin(p / base ** (2 * (i // 2) / d)) if i % 2 == 0 else math.cos(p / base ** (2 * (i // 2) / d))
                      for i in range(d)] for p in positions])


# -- unsigned and integer inputs give the float answers -----------------------------------------

U = np.array([[200, 3, 0], [7, 250, 1]], dtype=np.uint8)     # e.g. counts read from real data


def test_cosine_of_uint8_vectors_against_python():
    u, v = [int(x) for x in U[0]], [int(x) for x in U[1]]
    loop = sum(a * b for a, b in zip(u, v)) / math.sqrt(sum(a * a for a in u) * sum(b * b for b in v))
    assert esm.cosine(U[0], U[1]) == pytest.approx(loop, abs=1e-12)
    assert esm.cosine_matrix(U[:1], U[1:])[0, 0] == pytest.approx(loop, abs=1e-12)


def test_log_softmax_and_log_sigmoid_of_uint8_against_python():
    for row in U:
        z = [int(x) for x in row]
        m = max(z)
        lse = m + math.log(sum(math.exp(x - m) for x in z))
        assert np.allclose(esm.log_softmax(row), [x - lse for x in z], atol=1e-12)
        assert np.allclose(esm.softmax(row), [math.exp(x - lse) for x in z], atol=1e-12)
        assert np.allclose(esm.log_sigmoid(row), [-math.log1p(math.exp(-x)) for x in z], atol=1e-12)


def test_top_k_of_uint8_scores_against_sorted():
    row = U.ravel()
    want = sorted(range(len(row)), key=lambda i: (-int(row[i]), i))
    assert esm.top_k(row, 6).tolist() == want
    assert esm.top_k(row, 6, exclude=[want[0]]).tolist() == want[1:]


def test_rope_rotate_of_integer_vectors_with_another_base_against_2x2_rotations():
    x, pos, base, d = np.array([1, 2, 3, 4, 5, 6]), 3, 100.0, 6
    out = esm.rope_rotate(x, pos, base=base)
    for j in range(d // 2):
        t = pos * base ** (-2 * j / d)
        a, b = x[2 * j], x[2 * j + 1]
        assert out[2 * j] == pytest.approx(a * math.cos(t) - b * math.sin(t), abs=1e-12)
        assert out[2 * j + 1] == pytest.approx(a * math.sin(t) + b * math.cos(t), abs=1e-12)


def test_numerical_grad_at_an_integer_point_against_the_closed_form():
    X = np.array([[1, -2], [3, 0]])
    G = esm.numerical_grad(lambda A: float((A ** 3).sum()), X)
    assert np.allclose(G, 3 * X.astype(float) ** 2, atol=1e-5)
    assert X.tolist() == [[1, -2], [3, 0]]                  # the input is left alone


# -- top_k: exclusion and ties ------------------------------------------------------------------

def test_top_k_never_returns_an_excluded_index():
    assert esm.top_k([1.0, 2.0, 3.0], 3, exclude=[0]).tolist() == [2, 1]
    assert esm.top_k([0.0, -np.inf, 1.0], 3, exclude=[2]).tolist() == [0, 1]


@given(st.lists(st.integers(0, 2), min_size=20, max_size=60), st.integers(1, 60),
       st.sets(st.integers(0, 19), max_size=5))
def test_top_k_is_a_stable_sort_on_many_ties(values, k, exclude):
    scores = [float(v) for v in values]
    want = sorted((i for i in range(len(scores)) if i not in exclude), key=lambda i: (-scores[i], i))[:k]
    assert esm.top_k(scores, k, exclude=sorted(exclude)).tolist() == want


@given(st.lists(st.sampled_from([0.0, 1.0, 2.5, -np.inf, np.inf, np.nan]), min_size=1, max_size=40),
       st.integers(1, 45), st.sets(st.integers(0, 39), max_size=6))
def test_top_k_with_infinities_and_nan_is_the_full_stable_sort(values, k, exclude):
    """top_k sorts only the k + |exclude| largest and their ties: the same list as a stable
    sort of all scores (NaN last, as numpy sorts it)."""
    exclude = sorted(i for i in exclude if i < len(values))
    key = lambda i: (math.isnan(values[i]), -values[i] if not math.isnan(values[i]) else 0.0, i)
    want = sorted((i for i in range(len(values)) if i not in exclude), key=key)[:k]
    assert esm.top_k(values, k, exclude=exclude).tolist() == want


def test_floats_keeps_float32_and_makes_the_rest_float64():
    assert esm.floats(np.ones(3, dtype=np.float32)).dtype == np.float32
    assert esm.floats([1, 2]).dtype == np.float64
    assert esm.floats(np.ones(2, dtype=np.float16)).dtype == np.float64
    X = np.random.default_rng(5).normal(size=(2, 4, 8))
    X32 = X.astype(np.float32)
    for f in (esm.softmax, esm.layer_norm, esm.gelu, lambda A: esm.attention(A, A, A)[0],
              lambda A: esm.merge_heads(esm.split_heads(A, 2))):
        got = f(X32)
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, f(X), atol=1e-5)


# -- axes and batch dimensions ------------------------------------------------------------------

def test_softmax_rows_of_very_different_scale_against_python():
    Z = np.array([[1000.0, 999.0, 998.0], [0.0, -1.0, -2.0]])
    for z, got_p, got_l in zip(Z, esm.softmax(Z), esm.log_softmax(Z)):
        m = max(z)
        lse = m + math.log(sum(math.exp(x - m) for x in z))
        assert np.allclose(got_l, [x - lse for x in z], atol=1e-12)
        assert np.allclose(got_p, [math.exp(x - lse) for x in z], atol=1e-12)


def test_normalize_rows_and_layer_norm_on_a_batch_use_the_last_axis():
    X = np.random.default_rng(4).normal(size=(2, 3, 4))
    N, L = esm.normalize_rows(X), esm.layer_norm(X)
    for b in range(2):
        for t in range(3):
            row = [float(v) for v in X[b, t]]
            norm = math.sqrt(sum(v * v for v in row))
            mu = sum(row) / 4
            sd = math.sqrt(sum((v - mu) ** 2 for v in row) / 4 + 1e-5)
            assert np.allclose(N[b, t], [v / norm for v in row], atol=1e-12)
            assert np.allclose(L[b, t], [(v - mu) / sd for v in row], atol=1e-12)


def test_merge_heads_keeps_batch_dimensions():
    S = np.arange(2 * 3 * 4 * 5, dtype=float).reshape(2, 3, 4, 5)     # (B, H, T, d_k)
    M = esm.merge_heads(S)
    assert M.shape == (2, 4, 15)
    for b in range(2):
        for t in range(4):
            assert M[b, t].tolist() == [S[b, h, t, c] for h in range(3) for c in range(5)]


def test_cosine_matrix_between_two_tables_against_a_loop():
    rng = np.random.default_rng(5)
    A, B = rng.normal(size=(3, 4)), rng.normal(size=(2, 4))
    M = esm.cosine_matrix(A, B)
    assert M.shape == (3, 2)
    for i in range(3):
        for j in range(2):
            dot = sum(float(a) * float(b) for a, b in zip(A[i], B[j]))
            assert M[i, j] == pytest.approx(dot / math.sqrt(float(A[i] @ A[i]) * float(B[j] @ B[j])), abs=1e-12)


def test_attention_of_uint8_queries_and_keys_against_a_loop():
    Q, K = U, U[::-1]                                      # (2, 3): scores up to 200*7 + ...
    V = np.array([[1.0, 0.0], [0.0, 1.0]])
    out, w = esm.attention(Q, K, V)
    for i in range(2):
        s = [sum(int(a) * int(b) for a, b in zip(Q[i], K[j])) / math.sqrt(3) for j in range(2)]
        e = [math.exp(x - max(s)) for x in s]
        assert np.allclose(w[i], [x / sum(e) for x in e], atol=1e-12)
        assert np.allclose(out[i], w[i] @ V)


def test_gelu_gelu_tanh_and_mean_pool_of_float32_inputs_against_python():
    # float32 inputs (real weights are float32) stay float32 through the activations (esm.floats)
    # and are the exact answers of their values to float32 precision; float64 inputs to 1e-15
    import math
    x32 = np.array([-3.25, -0.5, 0.0, 0.125, 1.5, 4.0], dtype=np.float32)
    xs = [float(v) for v in x32]
    c = math.sqrt(2 / math.pi)
    exact_gelu = [v * (1 + math.erf(v / math.sqrt(2))) / 2 for v in xs]
    # gelu keeps float32 (it runs inside the float32 encoder); float32 rounding of x*(1 + erf)/2:
    # the bracket is known to a float32 ulp of 1, so the error scales with |x|, not the result
    assert esm.gelu(x32).dtype == np.float32
    assert np.all(np.abs(esm.gelu(x32) - exact_gelu) <= 2 * np.finfo(np.float32).eps * np.abs(xs))
    assert np.allclose(esm.gelu(x32.astype(np.float64)), exact_gelu, atol=1e-15, rtol=0)
    # gelu_tanh (GPT-2's, used in float64 only) gives the float64 answer of the float32 values
    c = math.sqrt(2 / math.pi)
    assert np.allclose(esm.gelu_tanh(x32), [0.5 * v * (1 + math.tanh(c * (v + esm.GELU_C * v ** 3))) for v in xs],
                       atol=1e-15, rtol=0)
    H = (np.arange(24, dtype=np.float32).reshape(2, 3, 4) / np.float32(3)) + np.float32(1e-3)
    mask = np.array([[True, True, False], [True, False, False]])
    want = [[sum(float(H[b, t, k]) for t in range(3) if mask[b, t]) / mask[b].sum() for k in range(4)] for b in range(2)]
    assert np.allclose(esm.mean_pool(H, mask), want, atol=1e-15, rtol=0)
