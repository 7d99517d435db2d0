"""Nothing built that nobody sees yet: what a reader must open first ships inert.

Two kinds of content are hidden when a page loads: the Code tab of each demo (markdown-exec's
``tabs="Code|Output"`` tab set with the output first) and the content of a closed
``<details>`` (a demo's folded checks, an exercise's solution, the notebook's helper code).
Each still cost its elements, style and memory at every load (on the exercises page about
11,000 of 18,000). Here, after the page is final (``on_post_page``: after the search index was
made from the page, so what is indexed is unchanged, and after ``search`` put back what it
held), each such content is moved into a ``<template data-esm-defer>`` in its place: parsed,
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

_TAG = re.compile(r"<(/?)(div|details|template)\b[^>]*>")
_TABSET = re.compile(r'<div class="tabbed-set tabbed-alternate" data-tabs="\d+:2">')
_LABELS = re.compile(r'<div class="tabbed-labels"><label for="[^"]+">Output</label><label for="[^"]+">Code</label></div>')
_BLOCK = '<div class="tabbed-block">'
_CLOSED = re.compile(r"<details\b(?![^>]*\sopen\b)[^>]*>")
_SUMMARY_END = "</summary>"
_NOTEBOOK_CODE = re.compile(r'<div class="(?:language-\w+ )?highlight">(?=<pre>)')
#: Code blocks of the notebook shipped in the document (the first screens: its introduction, the
#: folded helper cell, the first cells).
NOTEBOOK_FIRST = 3
NOSCRIPT = "<noscript><p><em>Shown when JavaScript is on.</em></p></noscript>"
OPEN = "<template data-esm-defer>"


def _end(html: str, start: int, tag: str) -> int:
    """The index just past the end tag that closes the ``tag`` element opened at ``start``."""
    depth = 0
    for m in _TAG.finditer(html, start):
        if m[2] != tag:
            continue
        depth += -1 if m[1] else 1
        if depth == 0:
            return m.end()
    raise ValueError(f"defer: <{tag}> at {start} is not closed")


def _spans(html: str) -> list[tuple[int, int]]:
    """The (start, end) of each content to defer: the inside of a Code tab's block, the
    content after the summary of a closed details; outermost only."""
    spans = []
    for m in _TABSET.finditer(html):
        labels = _LABELS.match(html, html.find("<div", m.end()))
        if not labels:
            continue
        first = html.index(_BLOCK, labels.end())
        second = html.index(_BLOCK, _end(html, first, "div"))
        end = _end(html, second, "div")
        spans.append((second + len(_BLOCK), end - len("</div>")))
    for m in _CLOSED.finditer(html):
        summary = html.find(_SUMMARY_END, m.end())
        end = _end(html, m.start(), "details")
        if 0 <= summary < end:
            spans.append((summary + len(_SUMMARY_END), end - len("</details>")))
    spans.sort()
    outer: list[tuple[int, int]] = []
    for start, end in spans:
        if outer and start < outer[-1][1]:
            continue            # inside one already deferred
        if html[start:end].strip():
            outer.append((start, end))
    return outer


def _notebook_code(html: str, taken: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The inside of each notebook code block after the first ``NOTEBOOK_FIRST``, outside
    ``taken`` (the spans already deferred)."""
    found = [m.end() for m in _NOTEBOOK_CODE.finditer(html)
             if not any(s <= m.start() < e for s, e in taken)]
    return [(start, html.index("</pre>", start) + len("</pre>")) for start in found[NOTEBOOK_FIRST:]]


def defer(html: str) -> str:
    """``html`` with its unseen content moved into templates (see the module's docstring)."""
    body = html.find("<body")
    spans = [(s, e) for s, e in _spans(html) if s > body]
    near = _notebook_code(html, spans) if ' esm-notebook"' in html else []
    out, last = [], 0
    for start, end in sorted(spans + near):
        if (start, end) in near:
            lines = html.count("\n", start, end) + 1
            # the box keeps about its height: the placeholder style is taken off with the template
            out += [html[last:start - 1], f' style="--esm-lines:{lines}">', NOSCRIPT,
                    "<template data-esm-defer data-esm-near>", html[start:end], "</template>"]
        else:
            out += [html[last:start], NOSCRIPT, OPEN, html[start:end], "</template>"]
        last = end
    out.append(html[last:])
    return "".join(out)


def restore(html: str) -> str:
    """``html`` as it was before ``defer``: what learner.js does in the browser (for tests)."""
    html = re.sub(r' style="--esm-lines:\d+">' + re.escape(NOSCRIPT) + r"<template data-esm-defer data-esm-near>(.*?)</template>",
                  r">\1", html, flags=re.S)
    return re.sub(re.escape(NOSCRIPT + OPEN) + r"(.*?)</template>", r"\1", html, flags=re.S)


class Defer:
    def on_post_page(self, output: str, page) -> str:
        if page.url.startswith("print_page"):
            return output
        return defer(output)
