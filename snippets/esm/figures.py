"""Figures: matplotlib in the site's style (`figure`) to inline SVG (`svg`), byte-identical
from build to build, its ink in ``currentColor`` so that it reads in the light and the dark
scheme, with alt text and an optional caption whose ``$...$`` is math; a diagram written as SVG
by the demo itself (`drawing`) in the same frame."""

from __future__ import annotations

import hashlib
import html
import io
import numpy as np
import re

__all__ = ['PALETTE', 'drawing', 'figure', 'svg']

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
    """Escape a caption; ``$...$`` parts become math for the build's Temml (mkdocs_esm/mathml.py)."""
    out = []
    # re.split with one group: the matched formulas are the odd-numbered parts, the text between
    # them the even ones (a lone `$` or `$$` stays text).
    for i, part in enumerate(re.split(r"(\$[^$]+\$)", text)):
        if i % 2:
            # Inside a tabbed output the caption is parsed as inline Markdown: arithmatex would
            # wrap a literal \\( again and emphasis could eat `_`. Entities hide the TeX from both;
            # the build (mkdocs_esm/mathml.py) unescapes it.
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
    # A marker plot writes one <use> per point, each with the same style: a run of three or more
    # takes its fill and stroke once, from a group around them (inherited properties). A cap or a
    # join stays on each mark, where matplotlib's rule for them looks (tests/browser/test_pages.py),
    # and a style with `opacity`, which a group would apply to the run as a whole, stays whole.
    def hoist(m):
        if re.search(r"(?<![\w-])opacity:", m[2]):
            return m[0]
        props = [p.strip() for p in m[2].split(";") if p.strip()]
        own = "; ".join(p for p in props if p.startswith(("stroke-linejoin", "stroke-linecap")))
        shared = "; ".join(p for p in props if not p.startswith(("stroke-linejoin", "stroke-linecap")))
        if not shared:
            return m[0]
        keep = f' style="{own}"/>' if own else "/>"
        return f'<g style="{shared}">' + m[1].replace(f' style="{m[2]}"/>', keep) + "</g>"
    text = re.sub(r'((?:<use xlink:href="#[^"]+" x="[^"]*" y="[^"]*" style="([^"]*)"/>)'
                  r'(?:<use xlink:href="#[^"]+" x="[^"]*" y="[^"]*" style="\2"/>){2,})', hoist, text)
    text = re.sub(r'(xlink:href="data:image/png;base64,)([^"]+)"', lambda m: f'{m[1]}{_palette_png(m[2])}"', text)
    # Name the remaining ids (and every reference to one) by the salt and their order of first
    # appearance, so that two figures on one page never share an id. matplotlib names a clip path
    # by a hash of its rectangle at full precision, which rounding noise in the data moves from
    # one CPU to another while the drawing, to 0.01 pt, stays the same.
    order: dict[str, str] = {}
    for m in re.finditer(r'(?:\bid="|url\(#|href="#)([^")]+)', text):
        if m[1] in refs and m[1] not in order:
            order[m[1]] = f"f{salt[:8]}-{m[1][0]}{len(order)}"
    text = re.sub(r'(\bid="|url\(#|href="#)([^")]+)',
                  lambda m: f"{m[1]}{order[m[2]]}" if m[2] in order else m[0], text)
    label = html.escape(alt)
    text = text.replace("<svg ", f'<svg role="img" aria-label="{label}" class="esm-svg" ', 1)
    text = re.sub(r"(<svg[^>]*>)", rf"\1<title>{label}</title>", text, count=1)
    cap = f"<figcaption>{_tex_caption(caption)}</figcaption>" if caption else ""
    return f'\n<figure class="esm-figure">\n{text.strip()}\n{cap}</figure>\n'


# ---------------------------------------------------------------------------------------------
# Diagrams written as SVG (introduced in 7.1)
# ---------------------------------------------------------------------------------------------

def drawing(body: str, *, size: tuple[float, float], alt: str, caption: str | None = None) -> str:
    """A diagram the demo writes as SVG elements itself (boxes, grids, lines, labels: a
    picture with no axes, in a few elements), in the frame `svg` gives a matplotlib figure.

    ``body`` holds the elements in user units, one unit a point, in a box of ``size`` (width,
    height). The root sets what they inherit: the ink ``currentColor`` as fill (text and
    unfilled shapes read in both schemes), matplotlib's font, size 10, and the joins and caps
    that `svg` sets. Raises ValueError where the page would break or lie: SVG that is not
    well-formed, an id (two figures on a page could share it), a ``$`` (the page's math
    extension would read it as a formula), a style sheet (it would style the whole page), or
    pure black (invisible on the dark scheme)."""
    import xml.etree.ElementTree as ET
    width, height = size
    body = re.sub(r">\s+<", "><", body.strip())
    try:
        ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{body}</svg>')
    except ET.ParseError as e:
        raise ValueError(f"drawing: not well-formed SVG ({e})") from None
    for bad, why in ((r"\bid=", "an id"), (r"\$", "a $"), (r"<style\b", "a style sheet"),
                     (r"(?:fill|stroke|color)\s*[=:]\s*\"?\s*(?:black|#000(?:000)?)\b", "pure black")):
        if re.search(bad, body, flags=re.I):
            raise ValueError(f"drawing: the SVG holds {why}")
    label = html.escape(alt)
    cap = f"<figcaption>{_tex_caption(caption)}</figcaption>" if caption else ""
    return (f'\n<figure class="esm-figure">\n<svg role="img" aria-label="{label}" class="esm-svg" '
            f'stroke-linejoin="round" stroke-linecap="butt" fill="currentColor" '
            f'font-family="\'DejaVu Sans\', sans-serif" font-size="10" width="{width:g}pt" height="{height:g}pt" '
            f'viewBox="0 0 {width:g} {height:g}" xmlns="http://www.w3.org/2000/svg" version="1.1">'
            f'<title>{label}</title>{body}</svg>\n{cap}</figure>\n')
