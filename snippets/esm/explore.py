"""Explorable figures: a figure with sliders and selects whose numbers come from the build.

A demo computes, with numpy, the figure's numbers for every setting of its controls (a grid)
and prints `explorable(...)`: plain HTML that shows the default setting as it is (what a reader
without scripts, print and the PDF see), the controls (hidden until docs/javascripts/explore.js
runs) and the grid as JSON in a ``data-explore`` attribute. The script only copies the numbers
of the chosen setting into the figure: element ``[data-o=i]`` gets the state's i-th string as
its text, or, with ``data-a="style.width"`` (any ``style.x`` or attribute name), as that
property. Kind ``"decode"`` (P10) is the one figure whose numbers the script computes from
the build's logits (softmax with temperature, top-k, top-p); a browser test compares them with
numpy's.

Not re-exported by ``esm``: demos ``from esm.explore import ...``.
"""

from __future__ import annotations

import hashlib
import html
import itertools
import json
import re

__all__ = ["Control", "explorable", "out", "bar"]


class Control:
    """A slider (``kind="range"``) or a select over ``values`` (display strings), ``name`` the
    label, ``say`` the announced text of each value (aria-valuetext; defaults to
    ``"name = value"``), ``default`` the index shown first."""

    def __init__(self, label: str, values, *, default: int = 0, kind: str = "range", say=None):
        self.label, self.values, self.default, self.kind = label, [str(v) for v in values], default, kind
        self.say = [str(s) for s in say] if say is not None else [f"{label} = {v}" for v in self.values]
        if not 0 <= default < len(self.values) or len(self.say) != len(self.values):
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
    signed values about a middle axis)."""
    return (f'<span class="esm-explore__track"><span class="esm-explore__bar{extra}" data-o="{i}" '
            f'data-a="style.{prop}" style="{prop}:{html.escape(width)}"></span></span>')


def _ident(payload: str) -> str:
    return "x" + hashlib.sha256(payload.encode()).hexdigest()[:8]


def explorable(controls: list[Control], body: str, *, states=None, caption: str, kind: str = "grid",
               data: dict | None = None) -> str:
    """The figure's HTML. ``states`` maps each tuple of control indices (every combination,
    row-major in the order of ``controls``) to its list of strings; ``body`` is the default
    state's HTML, whose ``data-o`` elements must show exactly the default state's strings.
    ``caption`` is plain text (no math: a raw HTML figure is not rendered by KaTeX)."""
    payload: dict = {"kind": kind, "controls": [{"values": c.values, "say": c.say} for c in controls]}
    if kind == "grid":
        shape = [len(c.values) for c in controls]
        flat = []
        for key in itertools.product(*(range(n) for n in shape)):
            flat.append([str(s) for s in states[key]])
        if len({len(s) for s in flat}) != 1:
            raise ValueError("every state needs the same number of strings")
        payload["states"] = flat
        default = states[tuple(c.default for c in controls)]
        shown = {int(i): (w or t) for i, w, t in
                 re.findall(r'data-o="(\d+)"(?: data-a="[^"]*" style="[^":]*:([^"]*)")?>([^<]*)', body)}
        wrong = {i: v for i, v in shown.items() if html.unescape(v) != str(default[i])}
        if wrong:
            raise ValueError(f"the default figure does not show the default state: {wrong}")
    elif kind != "decode":
        raise ValueError(f"kind {kind!r}")
    payload.update(data or {})
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
            f'<figcaption>{html.escape(caption)}</figcaption></figure>\n')
