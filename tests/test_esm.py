"""The shared helpers against independent computations: loops, closed forms, finite
differences and properties (hypothesis)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import esm

finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)


# -- checks -------------------------------------------------------------------------------------

def test_checks_print_pass_lines_with_values():
    line = esm.check_close("pi", 3.14159265, math.pi, atol=1e-6, eq="circle")
    assert line == "PASS [circle] pi — expected 3.14159, |got - expected| <= 1e-06"
    assert esm.check_equal("shape", (2, 3), (2, 3)) == "PASS shape — (2, 3)"
    assert esm.check_less("order", 1, 2, names=("x", "y")) == "PASS order — x = 1 < y = 2"


def test_a_claim_with_the_separator_or_a_line_break_is_refused():
    """The build reads a line back at its first separator: a claim cannot hold one."""
    for claim in ("a — b", "a\nb"):
        with pytest.raises(ValueError, match="claim holds no"):
            esm.check_true(claim, True, "d")
    with pytest.raises(ValueError, match="line break"):
        esm.check_true("c", True, "d\ne")
    assert esm.check_true("x: y", True, "p: q — r") == "PASS x: y — p: q — r"


def test_failing_check_raises_the_fail_line():
    with pytest.raises(esm.CheckFailed, match=r"^FAIL \[e\] c: got 1, expected 2"):
        esm.check_equal("c", 1, 2, eq="e")
    with pytest.raises(esm.CheckFailed, match="max \\|diff\\| 0.5"):
        esm.check_close("arrays", np.zeros(3), np.array([0, 0.5, 0]))
    with pytest.raises(esm.CheckFailed, match="shape"):
        esm.check_close("shapes", np.zeros(3), np.zeros(4))


def test_checks_render_as_html_lines_under_the_build():
    from printed import for_page
    line = for_page(esm.check_true("a < b", True, "1 < 2", eq="ord"))
    assert line.startswith('<details class="success esm-checks"><summary>1 check passed: ')
    assert '<div class="esm-check" data-eq="ord"><strong>PASS</strong>' in line
    assert 'href="#eq-ord"' in line and "1 &lt; 2" in line


# -- tables -------------------------------------------------------------------------------------

def test_shape_table_lists_real_shapes_and_rejects_wrong_ones():
    E = np.zeros((5, 3))
    text = esm.shape_table({"V": 5, "d": 3}, [("table", "E", E, "V d", "rows")])
    assert r"$\lvert\mathcal V\rvert\times d$" in text and "`(5, 3)`" in text
    with pytest.raises(esm.ShapeMismatch, match=r"\(5, 3\) != d V"):
        esm.shape_table({"V": 5, "d": 3}, [("table", "E", E, "d V", "rows")])


# -- figures ------------------------------------------------------------------------------------

def _plot(alt):
    fig, ax = esm.figure()
    ax.plot([0, 1, 2], [1, 0, 1], label="line")
    ax.set_title("title")
    ax.legend()
    return esm.svg(fig, alt=alt, caption="a caption with $x^2$")


def test_svg_is_deterministic_themable_and_accessible():
    a, b = _plot("same alt"), _plot("same alt")
    assert a == b
    assert "currentColor" in a and esm.figures._INK not in a
    assert '<svg role="img" aria-label="same alt"' in a and "<title>same alt</title>" in a
    assert "<text" in a                                    # text stays text
    # caption math: TeX hidden from inline Markdown as entities, unescaped by mkdocs_esm/mathml.py
    assert '<span class="arithmatex">&#92;(x^2&#92;)</span>' in a
    assert "dc:date" not in a.lower()


def test_two_figures_on_a_page_share_no_id():
    ids = [set(re.findall(r'id="([^"]+)"', _plot(alt))) for alt in ("first", "second")]
    assert ids[0] and not ids[0] & ids[1]


# -- vectors ------------------------------------------------------------------------------------

@given(arrays(np.float64, (4, 3), elements=finite), st.integers(0, 3))
def test_one_hot_product_selects_the_row(E, i):
    assert np.array_equal(esm.one_hot(i, 4) @ E, E[i])


@given(arrays(np.float64, 5, elements=finite), arrays(np.float64, 5, elements=finite), st.floats(0.1, 100))
def test_cosine_matches_the_angle_and_ignores_scale(u, v, c):
    nu, nv = math.sqrt(sum(x * x for x in u)), math.sqrt(sum(x * x for x in v))
    if nu < 1e-3 or nv < 1e-3:
        return
    loop = sum(x * y for x, y in zip(u, v)) / (nu * nv)
    assert esm.cosine(u, v) == pytest.approx(loop, abs=1e-9)
    assert esm.cosine(c * u, v) == pytest.approx(loop, abs=1e-9)
    M = esm.cosine_matrix(np.stack([u, v]))
    assert M[0, 1] == pytest.approx(loop, abs=1e-9) and M[0, 0] == pytest.approx(1.0)


def test_top_k_excludes_and_breaks_ties_by_index():
    assert esm.top_k([0.1, 0.9, 0.9, 0.5], 3).tolist() == [1, 2, 3]
    assert esm.top_k([0.1, 0.9, 0.9, 0.5], 2, exclude=[1]).tolist() == [2, 3]


# -- softmax and loss ---------------------------------------------------------------------------

@given(arrays(np.float64, 6, elements=st.floats(-50, 50)))
def test_softmax_matches_the_definition(z):
    expected = [math.exp(x - max(z)) for x in z]
    total = sum(expected)
    assert np.allclose(esm.softmax(z), [x / total for x in expected])
    assert np.allclose(esm.log_softmax(z), np.log(esm.softmax(z)))


def test_softmax_is_stable_for_huge_logits():
    p = esm.softmax([1000.0, 1000.0, -1000.0])
    assert np.allclose(p, [0.5, 0.5, 0.0])


def test_cross_entropy_gradient_against_finite_differences():
    rng = np.random.default_rng(0)
    z, y, h = rng.normal(size=7), 3, 1e-6
    grad = esm.softmax(z) - np.eye(7)[y]
    fd = [(esm.cross_entropy(z + h * e, y) - esm.cross_entropy(z - h * e, y)) / (2 * h) for e in np.eye(7)]
    assert np.allclose(grad, fd, atol=1e-7)


# -- positions ----------------------------------------------------------------------------------

def test_sinusoidal_positions_against_the_formula_with_loops():
    n, d = 7, 6
    pe = esm.sinusoidal_positions(n, d)
    for p in range(n):
        for k in range(d // 2):
            assert pe[p, 2 * k] == pytest.approx(math.sin(p / 10000 ** (2 * k / d)))
            assert pe[p, 2 * k + 1] == pytest.approx(math.cos(p / 10000 ** (2 * k / d)))


def test_rope_against_explicit_2x2_rotations():
    rng = np.random.default_rng(1)
    d, x, pos = 8, rng.normal(size=8), 5
    out = esm.rope_rotate(x, pos)
    for j in range(d // 2):
        t = pos * 10000 ** (-2 * j / d)
        R = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
        assert np.allclose(out[2 * j:2 * j + 2], R @ x[2 * j:2 * j + 2])
    batch = esm.rope_rotate(np.stack([x, x]), np.array([0, pos]))
    assert np.allclose(batch[0], x) and np.allclose(batch[1], out)


def test_alibi_slopes_of_the_paper():
    assert esm.alibi_slopes(8).tolist() == [1 / 2 ** k for k in range(1, 9)]
    with pytest.raises(ValueError):
        esm.alibi_slopes(6)
    b = esm.alibi_bias(4, 0.5)
    assert b[3, 0] == -1.5 and b[2, 2] == 0 and np.isneginf(b[0, 1])


# -- attention ----------------------------------------------------------------------------------

def test_attention_against_a_loop():
    rng = np.random.default_rng(2)
    T, dk, dv = 4, 3, 2
    Q, K, V = rng.normal(size=(T, dk)), rng.normal(size=(T, dk)), rng.normal(size=(T, dv))
    out, w = esm.attention(Q, K, V, mask=esm.causal_mask(T))
    for i in range(T):
        s = [Q[i] @ K[j] / math.sqrt(dk) for j in range(i + 1)]
        e = [math.exp(x - max(s)) for x in s]
        wi = [x / sum(e) for x in e]
        assert np.allclose(w[i, :i + 1], wi) and np.allclose(w[i, i + 1:], 0)
        assert np.allclose(out[i], sum(wi[j] * V[j] for j in range(i + 1)))


# -- sigmoid (4.2, 5.2) -------------------------------------------------------------------------

def test_sigmoid_and_log_sigmoid_against_math_and_in_the_tails():
    for x in (-30.0, -2.5, 0.0, 0.7, 30.0):
        assert math.isclose(float(esm.sigmoid(x)), 1 / (1 + math.exp(-x)), rel_tol=1e-12)
        assert math.isclose(float(esm.log_sigmoid(x)), -math.log1p(math.exp(-x)), rel_tol=1e-12, abs_tol=1e-300)
    big = esm.log_sigmoid(np.array([-1000.0, 1000.0]))     # no overflow, no -inf, no nan
    assert big[0] == -1000.0 and big[1] == 0.0
    assert np.allclose(esm.sigmoid(np.array([-3.0, 3.0])).sum(), 1.0)   # sigma(-x) = 1 - sigma(x)


def test_check_text_is_never_read_as_markdown():
    from printed import for_page
    line = for_page(esm.check_true("a*b*c and `x` and _y_", True, "2*3*4 = 24"))
    assert "*" not in line and "`" not in line and "_y_" not in line
    assert "a&#42;b&#42;c" in line and "2&#42;3&#42;4" in line
