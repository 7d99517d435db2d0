"""Nothing built that nobody sees yet: what a reader must open first ships inert.

Two kinds of content are hidden when a page loads: the Code tab of each demo (markdown-exec's
``tabs="Code|Output"`` tab set with the output first) and the content of a closed
``<details>`` (a demo's folded checks, an exercise's solution, the notebook's helper code).
Each still cost its elements, style and memory at every load (on the exercises page about
11,000 of 18,000). Each such content is moved into a ``<template data-esm-defer>`` in its place
(`insertions`, read from the page's content with reading's and search's: content.py; search.py
makes them while it holds out of the index what is not indexed, the ``<noscript>`` note
included, so that the index reads the page as before): parsed,
but not in the document, so neither styled, laid out nor counted. ``learner.js`` puts it back
(``restore``) when the reader opens the tab or the details (a click on a summary or a tab's
label, a change of a tab's input, a ``toggle``), when a link's target is inside it, and all of
it before printing (``beforeprint``). Material's copy button is added by ``learner.js`` to a
code block it restores (its clipboard handler is bound to the document).

The theory notebook's code cells are shown, not behind a tab: there, every code block after the
first three (what the first screens show) ships in a ``<template data-esm-defer data-esm-near>`` inside its ``.highlight``
box, which keeps about its height (``--esm-lines``), and ``learner.js`` puts it back when the
box comes within about two screens of the viewport (an IntersectionObserver), or before
printing. The browser's find-in-page does not see such a block until then; the search index
does (it was made before).

Not deferred: the book's print page (``print_page``, which ``make pdf`` prints with the same
HTML as before), content that is open (``<details open>``) or the first tab. Without
JavaScript the prose, every formula, figure and output (the first tab) and each summary stay
as they were; the Code tab and the content of a closed details show a one-line ``<noscript>``
note instead.
"""

from __future__ import annotations

import re

from . import markup

_TWO_TABS = re.compile(r"\d+:2")
_CODE_BOX = re.compile(r"(?:language-\w+ )?highlight")   # a code block's box (its class)
_LABELS = ("Output", "Code")         # markdown-exec's tab set, the output first
_SUMMARY = "summary"
#: Code blocks of the notebook shipped in the document (the first screens: its introduction, the
#: folded helper cell, the first cells).
NOTEBOOK_FIRST = 3
NOSCRIPT = "<noscript><p><em>Shown when JavaScript is on.</em></p></noscript>"
OPEN = "<template data-esm-defer>"
CLOSE = "</template>"


def _is(t: markup.Token, name: str, *attrs: tuple[str, str]) -> bool:
    """``t`` is the start tag ``<name a="v" ...>`` with exactly the attributes ``attrs``."""
    return t.kind == "start" and t.name == name and t.attrs == attrs


def _tab_labels(tokens, ends, i) -> bool:
    """The element at ``i`` is a tab set's labels: Output, then Code."""
    labels = [tokens[k + 1].text for k in range(i + 1, ends[i]) if tokens[k].kind == "start" and tokens[k].name == "label"]
    return _is(tokens[i], "div", ("class", "tabbed-labels")) and tuple(labels) == _LABELS


def _spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each content to defer: the inside of a Code tab's block, the
    content after the summary of a closed details; outermost only."""
    tokens, ends = markup.read_tokens(text)
    spans = []
    for i, t in enumerate(tokens):
        if t.kind != "start":
            continue
        if (t.name == "div" and len(t.attrs) == 2 and t.attrs[0] == ("class", "tabbed-set tabbed-alternate")
                and t.attrs[1][0] == "data-tabs" and _TWO_TABS.fullmatch(t.attrs[1][1] or "")):
            divs = [k for k in range(i + 1, ends[i]) if tokens[k].kind == "start" and tokens[k].name == "div"]
            if not divs or not _tab_labels(tokens, ends, divs[0]):
                continue
            blocks = [k for k in divs if _is(tokens[k], "div", ("class", "tabbed-block"))]
            second = next((k for k in blocks if blocks and k > ends[blocks[0]]), None)
            if second is not None:
                spans.append((tokens[second].end, tokens[ends[second]].start))
        elif t.name == "details" and t.attr("open", False) is False:     # a valueless attribute is None
            close = ends[i]
            summary = next((k for k in range(i + 1, close) if tokens[k].kind == "end" and tokens[k].name == _SUMMARY), None)
            if summary is not None:
                spans.append((tokens[summary].end, tokens[close].start))
    spans.sort()
    outer: list[tuple[int, int]] = []
    for start, end in spans:
        if outer and start < outer[-1][1]:
            continue            # inside one already deferred
        if text[start:end].strip():
            outer.append((start, end))
    return outer


def _notebook_code(text: str, taken: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The ``<pre>`` of each notebook code block after the first ``NOTEBOOK_FIRST``, outside
    ``taken`` (the spans already deferred)."""
    tokens, ends = markup.read_tokens(text)
    found = []
    for i, t in enumerate(tokens[:-1]):
        cls = t.attr("class") if t.kind == "start" and t.name == "div" and len(t.attrs) == 1 else None
        pre = tokens[i + 1]
        if (cls is not None and _CODE_BOX.fullmatch(cls)
                and pre.kind == "start" and pre.name == "pre" and pre.start == t.end
                and not any(s <= t.start < e for s, e in taken)):
            found.append((pre.start, tokens[ends[i + 1]].end))
    return found[NOTEBOOK_FIRST:]


def insertions(text: str) -> list[list]:
    """What ``defer`` inserts in ``text``: ``[where, what, held]`` in order, ``held`` marking
    what the search index must not read (the note shown without JavaScript)."""
    body = text.find("<body")
    spans = [(s, e) for s, e in _spans(text) if s > body]
    near = _notebook_code(text, spans) if ' esm-notebook"' in text else []
    out: list[list] = []
    for start, end in sorted(spans + near):
        if (start, end) in near:
            lines = text.count("\n", start, end) + 1
            # the box keeps about its height: the placeholder style is taken off with the template
            out += [[start - 1, f' style="--esm-lines:{lines}"', False], [start, NOSCRIPT, True],
                    [start, "<template data-esm-defer data-esm-near>", False], [end, CLOSE, False]]
        else:
            out += [[start, NOSCRIPT, True], [start, OPEN, False], [end, CLOSE, False]]
    return out


def defer(html: str) -> str:
    """``html`` with its unseen content moved into templates (see the module's docstring)."""
    out, last = [], 0
    for at, what, _ in insertions(html):
        out += [html[last:at], what]
        last = at
    out.append(html[last:])
    return "".join(out)


def restore(html: str) -> str:
    """``html`` as it was before ``defer``: what learner.js does in the browser (for tests)."""
    html = re.sub(r' style="--esm-lines:\d+">' + re.escape(NOSCRIPT) + r"<template data-esm-defer data-esm-near>(.*?)</template>",
                  r">\1", html, flags=re.S)
    return re.sub(re.escape(NOSCRIPT + OPEN) + r"(.*?)</template>", r"\1", html, flags=re.S)


