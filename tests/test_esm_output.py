"""The exact text the helpers print (check lines, number formatting, tables, captions) and the
properties of the SVG markup, against hand-written expectations and independent parsing:
the cases that mutation testing (`make mutate`) found unchecked."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import esm


@pytest.fixture
def plain():
    """Checks print one plain format wherever they run (kept for the tests that name it)."""


# -- numbers in check lines ---------------------------------------------------------------------

@pytest.mark.parametrize("value, text", [
    (True, "True"), (np.bool_(False), "False"), (3, "3"), (np.int64(-7), "-7"),
    (math.pi, "3.14159"), (0.0, "0"), (-0.0, "0"), (np.float32(0.5), "0.5"), (1e-12, "1e-12"),
    (123456789.0, "1.23457e+08"), ((1,), "(1,)"), ((1, 2.5), "(1, 2.5)"), ((), "()"),
    (np.arange(8), "[0, 1, 2, 3, 4, 5, 6, 7]"), (np.arange(9), "array(9,)"),
    (np.eye(2), "[1, 0, 0, 1]"), (np.zeros((3, 3)), "array(3, 3)"), ("s", "s"), (None, "None"),
])
def test_fmt_of_each_kind(value, text):
    assert esm.checks._fmt(value) == text


# -- check lines, plain and html ----------------------------------------------------------------

def test_plain_lines_exactly(plain):
    assert esm.check_true("c", True, "d") == "PASS c — d"
    assert esm.check_true("c", np.bool_(True), "d", eq="e") == "PASS [e] c — d"
    assert esm.check_less("o", 1, 2) == "PASS o — a = 1 < b = 2"
    assert esm.check_less("o", 1, 2, eq="e") == "PASS [e] o — a = 1 < b = 2"
    assert esm.check_equal("ids", np.array([1, 2]), [1, 2]) == "PASS ids — [1, 2]"
    assert esm.check_equal("holds", True, True) == "PASS holds" and esm.check_equal("z", np.zeros(9), np.zeros(9)) == "PASS z — all 9 entries 0"
    assert esm.check_equal("r", np.arange(9), np.arange(9)) == "PASS r — all 9 entries as expected"
    assert esm.check_equal("ids", [1, 2], np.array([1, 2])).startswith("PASS")
    assert esm.check_close("x", 1.5, 1.0, atol=0.25, rtol=0.25) == \
        "PASS x — expected 1, |got - expected| <= 0.25 + 0.25·|expected|"
    assert esm.check_close("x", np.zeros(2), np.zeros(2)) == \
        "PASS x — |got - expected| <= 1e-09 everywhere over shape (2,)"
    assert esm.check_close("x", np.zeros(0), np.zeros(0)) == \
        "PASS x — |got - expected| <= 1e-09 everywhere over shape (0,)"


def test_a_passing_close_check_states_its_bound_not_the_rounding_it_measured(plain):
    """The measured difference of two routes is rounding noise that differs from CPU to CPU; the
    line is the same on every machine."""
    lines = {esm.check_close("x", 1.0 + d, 1.0, atol=1e-12) for d in (0.0, 2.2e-16, -4.4e-16, 1e-13)}
    assert lines == {"PASS x — expected 1, |got - expected| <= 1e-12"}
    arrays = {esm.check_close("x", np.full(3, 2.0) + d, np.full(3, 2.0), atol=1e-12) for d in (0.0, 1e-15)}
    assert len(arrays) == 1


@pytest.mark.parametrize("call, line", [
    (lambda: esm.check_true("c", False, "d"), "FAIL c: d"),
    (lambda: esm.check_true("c", 0, "d", eq="e"), "FAIL [e] c: d"),
    (lambda: esm.check_equal("ids", np.array([1, 2]), [1, 3]), "FAIL ids: got [1, 2], expected [1, 3]"),
    (lambda: esm.check_equal("n", 2, 2.5), "FAIL n: got 2, expected 2.5"),
    (lambda: esm.check_less("o", 3, 2, names=("x", "y")), "FAIL o: x = 3 < y = 2"),
    (lambda: esm.check_close("x", 1.0, 1.0 + 1e-8), "FAIL x: got 1, expected 1, |diff| 1e-08 > 1e-09"),
    (lambda: esm.check_close("x", 100.0, 100.5), "FAIL x: got 100, expected 100.5, |diff| 0.5 > 1e-09"),
    (lambda: esm.check_close("s", np.zeros(3), np.zeros(4), eq="e"), "FAIL [e] s: shape (3,) != (4,)"),
])
def test_fail_lines_exactly(plain, call, line):
    with pytest.raises(esm.CheckFailed) as failed:
        call()
    assert str(failed.value) == line


def test_check_close_bound_is_atol_plus_rtol_times_the_expected_magnitude(plain):
    # |diff| = 0.5 exactly in binary; the bound atol + rtol*|expected| is met with equality ...
    assert esm.check_close("x", 1.5, 1.0, atol=0.25, rtol=0.25).startswith("PASS")
    assert esm.check_close("x", -1.0, -2.0, atol=0.0, rtol=0.5).startswith("PASS")     # |-2| * 0.5 = 1
    assert esm.check_close("x", 1.0, 1.0 + 1e-10).startswith("PASS")                   # default atol 1e-9
    # ... and missed when it is any smaller, on any one entry of an array
    for kwargs in ({"atol": 0.25, "rtol": 0.125}, {"atol": 0.125, "rtol": 0.25}):
        with pytest.raises(esm.CheckFailed):
            esm.check_close("x", 1.5, 1.0, **kwargs)
    with pytest.raises(esm.CheckFailed, match=r"max \|diff\| 0\.5 > 0\.25 somewhere over shape \(3,\)"):
        esm.check_close("x", [1.0, 1.5, 1.0], [1.0, 1.0, 1.0], atol=0.25)


def test_html_lines_exactly():
    from mkdocs_esm.output import check_html
    from printed import for_page
    assert check_html("c<", "d&", None) == \
        '<div class="esm-check"><strong>PASS</strong> c&lt;: <code>d&amp;</code></div>\n'
    assert check_html("c", "d", "e") == (
        '<div class="esm-check" data-eq="e"><strong>PASS</strong> '
        '<a class="esm-eqref" href="#eq-e">[e]</a> c: <code>d</code></div>\n')
    assert for_page(esm.check_true("c<", True, "d&")) == (
        '<details class="success esm-checks"><summary>1 check passed</summary>\n<div class="esm-checks-body">\n'
        '<div class="esm-check"><strong>PASS</strong> c&lt;: <code>d&amp;</code></div>\n</div>\n</details>\n')
    assert esm.check_true("c", True, "d") == "PASS c — d"
    assert for_page("PASS is a word\nPASS x — y\n").startswith("PASS is a word\n<details")   # only check lines


def test_checks_fold_where_the_first_stood_and_name_each_formula_once():
    from printed import for_page
    out = for_page("table\nPASS [a] one — 1\ntext\nPASS two — 2\nPASS [b] three — 3\nPASS [a] four — 4\nend")
    lines = out.split("\n")
    assert lines[0] == "table" and lines[1].startswith('<details class="success esm-checks"><summary>4 checks passed: '
                                                       '<span class="esm-eqref" data-eq="a">[a]</span>, '
                                                       '<span class="esm-eqref" data-eq="b">[b]</span></summary>')
    assert out.count('<div class="esm-check"') == 4 and out.count("<details") == 1
    assert [l for l in lines if not l.startswith("<")][-2:] == ["text", "end"]     # the rest in its order
    assert out.index("one") < out.index("two") < out.index("three") < out.index("four") < out.index("text")


# -- tables -------------------------------------------------------------------------------------

def test_table_exactly():
    assert esm.table(("a", "b"), [(1, "x|y"), ("p\nq", 2)]) == "\n| a | b |\n|---|---|\n| 1 | x\\|y |\n| p q | 2 |\n"


def test_shape_table_exactly():
    text = esm.shape_table({"V": 5, "d_ff": 3, "n": 2},
                           [("table", "E", np.zeros((5, 3)), "V d_ff", "rows"),
                            ("ids", "", np.zeros(2), "n", "")])
    assert text == (          # folded under a summary: reference, one click away
        '\n??? abstract "Shapes in this demo"\n\n'
        "    | object | symbol | shape | in this demo | role |\n    |---|---|---|---|---|\n"
        "    | table | $E$ | $\\lvert\\mathcal V\\rvert\\times d_{\\mathrm{ff}}$ | `(5, 3)` | rows |\n"
        "    | ids |  | $n$ | `(2,)` |  |\n"
        "\n    Sizes in this demo: $\\lvert\\mathcal V\\rvert=5$, $d_{\\mathrm{ff}}=3$, $n=2$.\n")


def test_folded_text_indents_every_line_it_holds():
    assert esm.folded("S", "\na\n\nb\n") == '\n??? abstract "S"\n\n    a\n\n    b\n'


# -- captions -----------------------------------------------------------------------------------

def test_caption_hides_tex_in_entities_and_escapes_the_rest():
    assert esm.figures._tex_caption("a_b <c> $x_1*y\\z`$ `d` and $5") == (
        'a_b &lt;c&gt; <span class="arithmatex">&#92;(x&#95;1&#42;y&#92;z&#96;&#92;)</span> `d` and $5')
    assert esm.figures._tex_caption("$a$$b$") == (
        '<span class="arithmatex">&#92;(a&#92;)</span><span class="arithmatex">&#92;(b&#92;)</span>')



@pytest.mark.parametrize("caption, html", [
    ("$", "$"),                                   # a lone dollar is text, not an empty formula
    ("$$", "$$"),
    ("costs 5$", "costs 5$"),                     # ends with a dollar, starts without one
    ("$5 or 6$", '<span class="arithmatex">&#92;(5 or 6&#92;)</span>'),
    ("$x$", '<span class="arithmatex">&#92;(x&#92;)</span>'),          # a one-character formula
    ("$x$$", '<span class="arithmatex">&#92;(x&#92;)</span>$'),
    ("a $ b", "a $ b"),
])
def test_caption_dollars_that_are_no_formula_stay_text(caption, html):
    assert esm.figures._tex_caption(caption) == html


# -- figures ------------------------------------------------------------------------------------

def test_figure_passes_its_layout_through():
    fig, axes = esm.figure(2, 3, size=(4.0, 2.0), sharex=True)
    assert axes.shape == (2, 3) and tuple(fig.get_size_inches()) == (4.0, 2.0)
    assert axes[0, 0].get_shared_x_axes().joined(axes[0, 0], axes[1, 2])     # sharex reached subplots
    fig2, ax2 = esm.figure()
    assert tuple(fig2.get_size_inches()) == (6.4, 3.6)     # the site's default size
    assert len(fig2.axes) == 1 and ax2 is fig2.axes[0]     # one axes by default, not an array
    import matplotlib
    assert matplotlib.get_backend() == "Agg"                # figure() selects the non-interactive backend
    import matplotlib.pyplot as plt
    plt.close(fig)
    plt.close(fig2)


def _svg(alt="fig", caption=None, legend=True):
    fig, ax = esm.figure()
    ax.plot([0, 1.23456, 2], [1, 0.333333, 1], label="line")
    ax.fill_between([0, 1, 2], [0, 0.5, 0], alpha=0.3)     # a clip path: an id that is referred to
    ax.text(0.5, 0.5, "note")                              # default black text, made after figure()
    if legend:
        ax.legend(frameon=True)
    return esm.svg(fig, alt=alt, caption=caption)


def test_svg_markup_is_light_and_self_consistent():
    out = _svg(alt='a "quoted" <alt>', caption="cap $x$")
    assert out.startswith('\n<figure class="esm-figure">\n<svg role="img" aria-label="a &quot;quoted&quot; &lt;alt&gt;" class="esm-svg" ')
    assert out.endswith('</svg>\n<figcaption>cap <span class="arithmatex">&#92;(x&#92;)</span></figcaption></figure>\n')
    body = out[out.index("<svg"):out.index("</svg>") + 6]
    root = ET.fromstring(body)                                              # well-formed XML
    assert root[0].tag.endswith("title") and root[0].text == 'a "quoted" <alt>'
    assert body.count("<title>") == 1
    assert "<metadata" not in body and "<!--" not in body and not re.search(r">\s+<", body)
    assert "#000000" not in body and "#010101" not in body and "#020202" not in body
    # every coordinate has at most two decimals
    for attr, value in re.findall(r'\b(d|transform|x|y|width|height|viewBox)="([^"]*)"', body):
        assert not re.search(r"\d\.\d{3}", value), (attr, value)
        assert "  " not in value
    # every id is referred to, every reference resolves, and every id carries the salt
    ids = re.findall(r'\bid="([^"]+)"', body)
    refs = re.findall(r'(?:url\(#|href="#)([^")]+)', body)
    assert ids and set(refs) <= set(ids) and set(ids) <= set(refs)
    salt = esm.figures.hashlib.sha256('a "quoted" <alt>'.encode()).hexdigest()[:8]
    assert all(i.startswith(f"f{salt}-") for i in ids)
    # text made after figure() is drawn in the ink colour; the legend has no frame
    assert "currentColor" in body and "<text" in body
    assert 'style="fill: #ffffff' not in body and "fill: white" not in body


def test_svg_without_caption_has_no_figcaption():
    out = _svg(legend=False)
    assert "<figcaption>" not in out and out.endswith("</svg>\n</figure>\n")



def _points(value: str) -> float:
    assert value.endswith("pt"), value
    return float(value[:-2])


def test_svg_is_cropped_to_its_content():
    # bbox_inches="tight": the default 6.4 x 3.6 in figure is 460.8 x 259.2 pt uncropped; the
    # axes leave margins that the crop removes, and the viewBox is the same box from 0, 0
    root = ET.fromstring(re.search(r"<svg.*</svg>", _svg(), flags=re.S)[0])
    width, height = _points(root.get("width")), _points(root.get("height"))
    assert width < 6.4 * 72 - 10 and height < 3.6 * 72 - 10
    assert [float(v) for v in root.get("viewBox").split()] == [0.0, 0.0, width, height]


def _fills(body: str) -> list[str]:
    """Every fill colour in the SVG, from style attributes and fill attributes."""
    return re.findall(r"fill:\s*([^;\"]+)", body) + re.findall(r'\bfill="([^"]+)"', body)


def test_svg_draws_no_opaque_background_and_no_legend_frame():
    # A colorbar's axes and a legend are made after figure() returned, outside the site's style:
    # by matplotlib's defaults both would be drawn on white (a legend also with a grey #cccccc
    # frame). On the dark scheme any of them is a white box: none may remain.
    fig, ax = esm.figure()
    im = ax.imshow(np.arange(12.0).reshape(3, 4))
    fig.colorbar(im, ax=ax)
    ax.plot([0, 3], [0, 2], label="line")
    ax.legend(frameon=True)
    body = esm.svg(fig, alt="background")
    fills = {f.strip().lower() for f in _fills(body)}
    assert fills <= {"none", "currentcolor", *(c.lower() for c in esm.PALETTE)}, fills
    assert "#cccccc" not in body.lower()             # the legend frame's edge colour
    # the figure's background path (the first one drawn, the full crop box) is unfilled
    root = ET.fromstring(re.search(r"<svg.*</svg>", body, flags=re.S)[0])
    first = next(el for el in root.iter() if el.tag.endswith("path"))
    assert "fill: none" in first.get("style", "")


def test_svg_holds_no_date_or_creator_and_two_builds_are_byte_identical(monkeypatch):
    # matplotlib writes the date and its own version into the SVG's metadata unless told not to
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")       # would still be a date: none may appear
    a = _svg(alt="same", caption="c")
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    b = _svg(alt="same", caption="c")
    assert a == b
    for text in ("dc:date", "1970", "Matplotlib v", "matplotlib.org", "dc:creator", "rdf:RDF"):
        assert text not in a


def test_svg_ids_are_the_salt_and_their_order_so_rounding_noise_in_the_data_changes_nothing():
    # matplotlib names clip paths by a hash of their rectangle at full precision: data that differ
    # at rounding level (another CPU's last bit) gave other ids for the same drawing. The ids in
    # the page are "f" + 8 digits of sha256(alt) + the kind's letter and the order of appearance.
    import hashlib

    def draw(noise):
        fig, ax = esm.figure()
        ax.plot([0, 1, 2], np.array([1, 0, 1]) + noise, marker="o")
        ax.fill_between([0, 1, 2], np.array([0, 0.5, 0]) + noise, alpha=0.3)
        return fig

    alt = "salted figure"
    salt = hashlib.sha256(alt.encode("utf-8")).hexdigest()[:8]
    ours = esm.svg(draw(0.0), alt=alt)
    ids = re.findall(r'\bid="([^"]+)"', ours)
    assert ids and all(re.fullmatch(rf"f{salt}-[A-Za-z]\d+", i) for i in ids)
    assert sorted(int(re.sub(r"^.*-[A-Za-z]", "", i)) for i in ids) == list(range(len(ids)))
    assert esm.svg(draw(np.array([3e-16, -2e-16, 1e-15])), alt=alt) == ours


def test_svg_grid_is_drawn_faint_in_the_text_colour():
    # the site's style: a grid on every axes, in currentColor at opacity 0.18
    assert re.search(r"stroke: currentColor; stroke-opacity: 0\.18\b", _svg(legend=False))


# -- embedded images ----------------------------------------------------------------------------

def _png_base64(rgba: np.ndarray) -> str:
    """An RGBA PNG as matplotlib embeds it: base64 broken into lines."""
    import base64
    import io

    from PIL import Image
    buf = io.BytesIO()
    Image.fromarray(rgba, mode="RGBA").save(buf, format="PNG")
    return base64.encodebytes(buf.getvalue()).decode("ascii")


def _decoded(b64: str):
    import base64
    import io

    from PIL import Image
    return Image.open(io.BytesIO(base64.b64decode(b64, validate=True)))


def test_palette_png_keeps_every_pixel_and_its_alpha():
    rng = np.random.default_rng(3)
    table = np.array([[47, 127, 208, 255], [232, 119, 46, 255], [27, 158, 119, 128],
                      [204, 74, 139, 0], [0, 0, 0, 255], [255, 255, 255, 1],
                      [47, 127, 208, 200], [47, 127, 208, 100]], dtype=np.uint8)    # one colour, three alphas
    rgba = table[rng.integers(0, len(table), size=(9, 13))]
    b64 = _png_base64(rgba)
    assert "\n" in b64
    out = esm.figures._palette_png(b64)
    img = _decoded(out)
    assert img.mode == "P" and img.size == (13, 9)
    assert np.array_equal(np.asarray(img.convert("RGBA")), rgba)      # PIL's own decoding
    assert "\n" not in out and len(out) < len(b64.replace("\n", ""))


@pytest.mark.parametrize("n, indexed", [(256, True), (257, False)])
def test_palette_png_only_for_at_most_256_colours(n, indexed):
    k = np.arange(n)
    rgba = np.stack([k % 256, k // 256, np.full(n, 7), np.full(n, 255)], axis=-1).astype(np.uint8)
    rgba = rgba.reshape(1, n, 4)
    assert len(np.unique(rgba.reshape(-1, 4), axis=0)) == n
    b64 = _png_base64(rgba)
    out = esm.figures._palette_png(b64)
    if indexed:
        assert _decoded(out).mode == "P"
        assert np.array_equal(np.asarray(_decoded(out).convert("RGBA")), rgba)
    else:                                              # the PNG as it was, on one line
        assert out == b64.replace("\n", "") and "\n" in b64


def _embedded_pngs(body: str):
    return [_decoded(b64) for b64 in re.findall(r'xlink:href="data:image/png;base64,([^"]+)"', body)]


@pytest.mark.parametrize("interpolation", [None, "antialiased", "auto", "nearest"])
def test_svg_embeds_a_small_heatmap_as_its_own_pixels_in_a_palette_png(interpolation):
    # 3 x 4 data on a 6.4 x 3.6 in figure: the browser scales the data's own pixels (no
    # resampling by matplotlib), stored as an indexed PNG of at most 256 colours
    fig, ax = esm.figure()
    data = np.arange(12.0).reshape(3, 4)
    kwargs = {} if interpolation is None else {"interpolation": interpolation}
    ax.imshow(data, **kwargs)
    (png,) = _embedded_pngs(esm.svg(fig, alt=f"heatmap {interpolation}"))
    assert png.size == (4, 3) and png.mode == "P"
    # the pixels are the colormap's colours of the data, cell by cell
    import matplotlib as mpl
    rgba = np.asarray(png.convert("RGBA"))
    want = (mpl.colormaps["viridis"](data / 11.0) * 255).round().astype(np.uint8)
    assert np.abs(rgba.astype(int) - want.astype(int)).max() <= 1


def test_svg_leaves_a_chosen_smoothing_to_matplotlib():
    # an explicit bilinear interpolation is a choice: matplotlib resamples to the figure's size
    fig, ax = esm.figure()
    ax.imshow(np.arange(12.0).reshape(3, 4), interpolation="bilinear")
    (png,) = _embedded_pngs(esm.svg(fig, alt="smooth"))
    assert png.size[0] > 40 and png.size[1] > 30


def test_svg_of_an_rgb_image():
    fig, ax = esm.figure()
    rgb = np.zeros((2, 3, 3))
    rgb[0, :, 0] = 1.0                                  # a red row over a black one
    ax.imshow(rgb)
    (png,) = _embedded_pngs(esm.svg(fig, alt="rgb"))
    assert png.size == (3, 2)
    assert np.array_equal(np.asarray(png.convert("RGBA"))[:, :, 0], [[255] * 3, [0] * 3])


def test_svg_drops_the_source_comments_of_multi_line_text():
    # matplotlib keeps each text's source as an XML comment; a two-line label spans two lines
    fig, ax = esm.figure()
    ax.plot([0, 1], [0, 1])
    ax.set_title("first line $x$\nsecond line $y$")
    body = esm.svg(fig, alt="comments")
    assert "<!--" not in body and "-->" not in body and "$x$" not in body


def test_drawing_wraps_code_written_svg_as_svg_does():
    body = '<rect x="1" y="2" width="30" height="20" fill="#2f7fd0"/>\n  <text x="5" y="15">a &amp; b</text>'
    out = esm.drawing(body, size=(40, 25.5), alt='a "quoted" <alt>', caption="cap $x$")
    assert out.startswith('\n<figure class="esm-figure">\n<svg role="img" aria-label="a &quot;quoted&quot; &lt;alt&gt;" class="esm-svg" ')
    assert out.endswith('</svg>\n<figcaption>cap <span class="arithmatex">&#92;(x&#92;)</span></figcaption></figure>\n')
    root = ET.fromstring(out[out.index("<svg"):out.index("</svg>") + 6])
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg" and root[0].tag == f"{ns}title" and root[0].text == 'a "quoted" <alt>'
    # the box and its units, the inherited ink and the joins and caps `svg` gives its figures
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == ("40pt", "25.5pt", "0 0 40 25.5")
    assert (root.get("fill"), root.get("stroke-linejoin"), root.get("stroke-linecap")) == ("currentColor", "round", "butt")
    # the body unchanged but for the whitespace between tags (a blank line would end the HTML block)
    assert [el.tag for el in root[1:]] == [f"{ns}rect", f"{ns}text"] and root[2].text == "a & b"
    svg_text = out[out.index("<svg"):out.index("</svg>")]
    assert not [line for line in out.strip().splitlines() if not line.strip()] and not re.search(r">\s+<", svg_text)
    assert "<figcaption>" not in esm.drawing(body, size=(40, 25), alt="no caption")


@pytest.mark.parametrize("body, why", [
    ('<rect x="1"', "not well-formed"),
    ('<rect id="a" x="1"/>', "an id"),
    ("<text>costs $5</text>", "a $"),
    ("<style>*{fill:red}</style>", "a style sheet"),
    ('<rect fill="black"/>', "pure black"),
    ('<path style="stroke: #000000"/>', "pure black"),
])
def test_drawing_refuses_what_would_break_the_page(body, why):
    with pytest.raises(ValueError, match=re.escape(why)):
        esm.drawing(body, size=(10, 10), alt="bad")


def test_drawing_allows_colours_that_only_start_like_black():
    assert "#0001ff" in esm.drawing('<rect fill="#0001ff"/>', size=(10, 10), alt="blue")


def test_svg_closes_its_figure_and_only_that_one():
    import matplotlib.pyplot as plt
    fig, ax = esm.figure()
    ax.plot([0, 1], [1, 0])
    other, _ = esm.figure()                     # made after: pyplot's current figure
    assert plt.gcf() is other
    esm.svg(fig, alt="closing")
    assert not plt.fignum_exists(fig.number) and plt.fignum_exists(other.number)
    plt.close(other)


def test_palette_png_of_an_rgb_png_without_alpha():
    import base64
    import io

    from PIL import Image
    rgb = np.array([[[10, 20, 30], [200, 100, 0]], [[200, 100, 0], [0, 0, 255]]], dtype=np.uint8)
    buf = io.BytesIO()
    Image.fromarray(rgb, mode="RGB").save(buf, format="PNG")
    img = _decoded(esm.figures._palette_png(base64.b64encode(buf.getvalue()).decode("ascii")))
    assert img.mode == "P"
    assert np.array_equal(np.asarray(img.convert("RGBA")), np.concatenate([rgb, np.full((2, 2, 1), 255, np.uint8)], -1))


def test_svg_keeps_no_bare_group_and_draws_the_same(monkeypatch):
    """Groups with no attribute are unwrapped (snippets/esm/figures.py): every other element keeps its
    order, its attributes and the attributes of its ancestors, which is all that decides how it
    is drawn."""
    def drawn(svg: str) -> list:
        root = ET.fromstring(svg[svg.index("<svg"):svg.index("</svg>") + 6])
        out = []
        def walk(el, chain):
            bare = el.tag.endswith("}g") and not el.attrib
            if not bare:
                out.append((el.tag, sorted(el.attrib.items()), chain))
                chain = chain + (tuple(sorted(el.attrib.items())),)
            for child in el:
                walk(child, chain)
        walk(root, ())
        return out

    def figure() -> str:      # lines, a fill, markers, a scatter, a heatmap, mathtext
        fig, (ax, ax2) = esm.figure(ncols=2)
        ax.plot([0, 1, 2], [1, 0, 1], "o-", label="line")
        ax.fill_between([0, 1, 2], [0, 0.5, 0], alpha=0.3)
        ax.scatter([0.5, 1.5], [0.2, 0.8], s=[10, 40], label="points")
        ax.set_title(r"$\alpha_t$")
        ax.legend()
        fig.colorbar(ax2.imshow(np.arange(12.0).reshape(3, 4)), ax=ax2)   # an axes made outside the style
        ax.bar([0.2], [0.3], width=0.1, color="k")                          # black given on purpose: a fill,
        ax.plot([0, 2], [0.9, 0.9], color=(0, 0, 0, 0.5))                   # a line with alpha,
        ax.fill_between([0, 1], [0.1, 0.2], color="k", alpha=0.2)          # an area
        ax.annotate("", xy=(1, 0.5), xytext=(0.5, 0.1), arrowprops={"arrowstyle": "-|>", "color": "k"})
        return esm.svg(fig, alt="groups")

    assert esm.figures._unwrap_bare_groups('<g><g id="a"/><g/><g><path/></g></g><g clip-path="c"><g><use/></g></g>') == \
        '<g id="a"/><path/><g clip-path="c"><use/></g>'
    made = figure()
    assert "<g>" not in made and "<g/>" not in made and re.search(r"<g \w", made), "no group with attributes left"
    assert "#000000" not in made and "currentColor" in made                 # the colorbar's ticks and outline too
    assert "stroke: currentColor; stroke-opacity: 0.5" in made             # alpha kept
    # no shape is left to SVG's default fill, which is black (matplotlib writes no fill for black);
    # a definition (an id) takes the fill of the <use> that draws it
    assert not re.search(r'<(?:path|use|rect)\b(?![^>]*\b(?:fill|style|id)=)[^>]*\bd="[^"]*z"', made)
    monkeypatch.setattr(esm.figures, "_unwrap_bare_groups", lambda text: text)
    nested = figure()
    assert nested.count("<g>") > 20
    assert drawn(made) == drawn(nested)


def test_a_passing_equality_of_eight_entries_lists_them():
    """Up to 8 entries an array is listed (as `_fmt` lists it); beyond, "all N entries"."""
    assert esm.check_equal("ids", np.arange(8), np.arange(8)) == "PASS ids — [0, 1, 2, 3, 4, 5, 6, 7]"
    assert esm.check_equal("z", np.zeros(8), np.zeros(8)) == "PASS z — [0, 0, 0, 0, 0, 0, 0, 0]"


def test_check_less_prints_floats_short_unless_they_print_alike():
    """Six significant digits, unless both sides read alike there: 1 + 2^-40 reads "1" at .6g and
    1.0000000000009095 at .17g (2^-40 = 9.094947e-13)."""
    assert esm.check_less("o", 0.1, 0.2) == "PASS o — a = 0.1 < b = 0.2"
    assert esm.check_less("o", 1.0, 1.0 + 2**-40) == "PASS o — a = 1 < b = 1.0000000000009095"


def test_check_less_prints_a_constant_named_by_its_value_once():
    assert esm.check_less("o", 0.5, 0.9, names=("x", "0.9")) == "PASS o — x = 0.5 < 0.9"
    assert esm.check_less("o", 0.1, 0.3, names=("0.1", "y")) == "PASS o — 0.1 < y = 0.3"
