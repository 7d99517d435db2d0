"""Explorable figures: a figure with sliders and selects whose numbers come from the build.

A demo computes, with numpy, the figure's numbers for every setting of its controls (a grid)
and prints `explorable(...)`: plain HTML that shows the default setting as it is (what a reader
without scripts, print and the PDF see), the controls (hidden until docs/javascripts/explore.js
runs) and the grid as JSON in a ``data-explore`` attribute (the build moves all but the
controls to a file beside the page, which the script fetches at the first move:
mkdocs_esm/explore.py). The script only copies the numbers
of the chosen setting into the figure: element ``[data-o=i]`` gets the state's i-th string as
its text, or, with ``data-a="style.width"`` (any ``style.x`` or attribute name), as that
property. A heat map's cells (``heatmap``) take their colours from the build's palette, one
code per cell and state (``heat=``). Kind ``"decode"`` (the decoding chapter) is the one figure whose numbers
the script computes from the build's logits (softmax with temperature, top-k, top-p); a
browser test compares them with numpy's.

Not re-exported by ``esm``: demos ``from esm.explore import ...``.
"""

from __future__ import annotations

import hashlib
import html
import itertools
import json
import re

__all__ = ["Control", "explorable", "out", "bar", "diverging", "heatmap", "DIGITS"]

#: One character per heat-map cell: the index of its colour in the palette (at most 36 colours).
DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


class Control:
    """A slider (``kind="range"``) or a select over ``values`` (display strings), ``name`` the
    label, ``say`` the announced text of each value (aria-valuetext; defaults to
    ``"name = value"``), ``default`` the index shown first."""

    def __init__(self, label: str, values, *, default: int = 0, kind: str = "range", say=None, shown=None):
        self.label, self.values, self.default, self.kind = label, [str(v) for v in values], default, kind
        self.say = [str(s) for s in say] if say is not None else [f"{label} = {v}" for v in self.values]
        # the caption's "Shown:" clause, one text per value (the script rewrites it as controls move)
        self.shown = [str(s) for s in shown] if shown is not None else self.say
        if not 0 <= default < len(self.values) or not len(self.say) == len(self.shown) == len(self.values):
            raise ValueError("default out of range, or one announced text per value needed")
        if kind not in ("range", "select"):
            raise ValueError(f"kind {kind!r}: range or select")


def out(i: int, text: str, *, tag: str = "span", cls: str | None = None) -> str:
    """The element that shows the state's i-th string (its default state's text given)."""
    c = f' class="{cls}"' if cls else ""
    return f'<{tag}{c} data-o="{i}">{html.escape(text)}</{tag}>'


def bar(i: int, width: str, *, extra: str = "", prop: str = "width") -> str:
    """A horizontal bar whose width (a CSS length such as ``"42.1%"``) is the state's i-th
    string; with ``prop="inset"``, its inset (``"0 30% 0 50%"``: a bar from 50 % to 70 %, for
    signed values about a middle axis: see ``diverging``)."""
    return (f'<span class="esm-explore__track"><span class="esm-explore__bar{extra}" data-o="{i}" '
            f'data-a="style.{prop}" style="{prop}:{html.escape(width)}"></span></span>')


def diverging(x: float, big: float) -> str:
    """The inset of a bar from the middle axis to ``x`` on the range -big..big (right of the
    middle for positive x, left for negative); put the bar in a ``esm-explore__axis-box``."""
    half = 50 * x / big
    return f"0 {50 - max(half, 0):.2f}% 0 {50 + min(half, 0):.2f}%"


def heatmap(codes: str, palette: list[str], rows: list[str], cols: list[str], *, label: str) -> str:
    """A ``len(rows)`` x ``len(cols)`` grid of cells, row by row, cell k coloured
    ``palette[DIGITS.index(codes[k])]``; the row labels on the left, the column labels above.
    ``label`` is what a screen reader hears for the grid (one image)."""
    if len(codes) != len(rows) * len(cols):
        raise ValueError(f"{len(codes)} codes for {len(rows)} x {len(cols)} cells")
    head = '<span></span>' + "".join(f'<span class="esm-heat__col">{html.escape(c)}</span>' for c in cols)
    body = "".join(f'<span class="esm-heat__row">{html.escape(r)}</span>'
                   + "".join(f'<i style="background:{palette[DIGITS.index(c)]}"></i>'
                             for c in codes[i * len(cols):(i + 1) * len(cols)])
                   for i, r in enumerate(rows))
    return (f'<div class="esm-heat" role="img" aria-label="{html.escape(label)}" '
            f'style="--esm-cols:{len(cols)}">{head}{body}</div>')


def _cells(body: str) -> list[str]:
    """The colour of every heat-map cell of ``body``, in order."""
    return re.findall(r'<i style="background:([^"]*)"></i>', body)


def _shown(body: str) -> list[tuple[int, str]]:
    """(index, what the markup shows) for every ``data-o`` of ``body``: an element's text, or the
    attribute (or ``style`` property) named in ``data-a``; ``data-o="3 4" data-a="x1 y1"`` sets
    two attributes of one element."""
    found = []
    for tag, text in re.findall(r'(<[^<>]*\bdata-o="[^"]*"[^<>]*>)([^<]*)', body):
        attrs = dict(re.findall(r'([\w:-]+)="([^"]*)"', tag))
        names = attrs["data-a"].split(" ") if "data-a" in attrs else [None]
        for i, a in zip(attrs["data-o"].split(" "), names, strict=True):
            if a is None:
                value = text
            elif a.startswith("style."):
                props = dict(p.split(":", 1) for p in attrs.get("style", "").split(";") if ":" in p)
                value = props.get(a[6:], "")
            else:
                value = attrs.get(a, "")
            found.append((int(i), value))
    return found


def _rounded(value):
    """``value`` with every float to 10 significant digits: the browser computes what it shows
    from these numbers, and their last bits are rounding noise that differs from CPU to CPU."""
    if isinstance(value, float):
        return float(f"{value:.10g}")
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rounded(v) for v in value]
    return value


def _ident(payload: str) -> str:
    return "x" + hashlib.sha256(payload.encode()).hexdigest()[:8]


def explorable(controls: list[Control], body: str, *, states=None, caption: str, kind: str = "grid",
               data: dict | None = None, heat: tuple[list[str], dict] | None = None) -> str:
    """The figure's HTML. ``states`` maps each tuple of control indices (every combination,
    row-major in the order of ``controls``) to its list of strings; ``body`` is the default
    state's HTML, whose ``data-o`` elements must show exactly the default state's strings.
    ``caption`` is plain text (no math: the math of a raw HTML figure is not rendered); the figure
    adds "Shown: ..." (each control's ``shown`` text), which the script keeps current.
    ``heat`` is ``(palette, codes)``: ``codes`` maps each tuple of control indices to the string
    of the heat map's cell codes (``heatmap``), which the body must show in its default state."""
    payload: dict = {"kind": kind, "controls": [{"values": c.values, "say": c.say, "shown": c.shown}
                                                for c in controls]}
    if kind == "grid":
        shape = [len(c.values) for c in controls]
        flat = []
        for key in itertools.product(*(range(n) for n in shape)):
            flat.append([str(s) for s in states[key]])
        if len({len(s) for s in flat}) != 1:
            raise ValueError("every state needs the same number of strings")
        payload["states"] = flat
        default = states[tuple(c.default for c in controls)]
        shown = _shown(body)
        wrong = {i: v for i, v in shown if html.unescape(v) != str(default[i])}
        if wrong:
            raise ValueError(f"the default figure does not show the default state: {wrong}")
        if heat is not None:
            palette, codes = heat
            payload["palette"] = list(palette)
            payload["heat"] = [codes[key] for key in itertools.product(*(range(n) for n in shape))]
            want = [palette[DIGITS.index(c)] for c in codes[tuple(c.default for c in controls)]]
            if _cells(body) != want:
                raise ValueError("the default heat map does not show the default state's codes")
    elif kind != "decode":
        raise ValueError(f"kind {kind!r}")
    payload.update(_rounded(data or {}))
    text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    ident = _ident(text)
    rows = []
    for n, c in enumerate(controls):
        cid = f"{ident}-{n}"
        if c.kind == "range":
            field = (f'<input type="range" id="{cid}" data-c="{n}" min="0" max="{len(c.values) - 1}" step="1" '
                     f'value="{c.default}" aria-valuetext="{html.escape(c.say[c.default])}">')
        else:
            options = "".join(f'<option value="{k}"{" selected" if k == c.default else ""}>{html.escape(v)}</option>'
                              for k, v in enumerate(c.values))
            field = f'<select id="{cid}" data-c="{n}">{options}</select>'
        shown_value = (f'<output for="{cid}" data-v="{n}">{html.escape(c.values[c.default])}</output>'
                       if c.kind == "range" else "")
        rows.append(f'<div class="esm-explore__control"><label for="{cid}">{html.escape(c.label)}</label>'
                    f'{field}{shown_value}</div>')
    return (f'\n<figure class="esm-explore" id="{ident}" data-explore="{html.escape(text)}">\n'
            f'<div class="esm-explore__controls" hidden>{"".join(rows)}</div>\n'
            f'<div class="esm-explore__body">{body}</div>\n'
            f'<figcaption>{html.escape(caption)} <span class="esm-explore__shown">Shown: '
            f'{html.escape(", ".join(c.shown[c.default] for c in controls))}.</span></figcaption></figure>\n')
