"""A small search index: what a reader would search for, each formula once, no code dumps.

Each formula is indexed once, as its MathML text (Temml writes no TeX annotation): as a
screen reader reads it.

Material's search plugin indexes the text of a page's HTML in on_page_context, after every
on_page_content event. This (run last, so it sees the math, learner and notebook
output) takes out of the HTML, for the time of indexing, what a reader would not search for:

- every ``<pre>``: demo and notebook code (the notebook's helper cell included) and printed
  output; and every table a demo printed (in a tab of its block: shape tables, the rows behind
  a check), which the prose quotes where it matters;
- inline SVG (a figure's tick labels; its caption stays), the Code/Output tab labels and the
  check lines (a check restates, with its measured values, what the prose around it says: a
  search finds the prose).

Each such element (found by `holds`, from the one parse of the page's content: content.py) is
swapped for an empty placeholder in on_page_content, with defer.py's templates made at the same
time (`held_out`; its ``<noscript>`` notes are held too), and put back in on_post_page, so the
pages served are whole (``Search.unhold`` puts them back in a copy
of the content taken before that: the print page of `make pdf`).

Indexing a page (Material parses its HTML) costs about half of a build whose blocks all come
from the execution cache, so a page's entries are kept in that cache (execcache.py), keyed
on everything Material reads to make them: the page's HTML as indexed, its table of contents, URL,
title and front matter, and the versions of Material and Python; a page whose key is unchanged
gets its stored entries, the same values in the same order. (Material's ``data-search-exclude`` cannot
do this: its parser compares elements by tag name, so the first ``</span>`` inside a marked
span ends the exclusion.)
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import re
from pathlib import Path

from mkdocs.exceptions import PluginError

from . import execcache, markup, skillchecks
from .compat import material

#: The elements left out of the index: (tag, its attributes exactly, or None for any).
_OUT = (("pre", None), ("svg", None), ("div", (("class", "tabbed-labels"),)),
        ("details", (("class", "success esm-checks"),)))
#: An exercise's folded hint and solution, left out of the index by Material's own mark (its
#: parser skips an element with ``data-search-exclude``; its on_page_context then strips the
#: mark from the page): a search lands where an idea is taught or asked, and never opens a
#: solution first. Marked, not held like ``_OUT``: their cross-references must stay in the
#: content that xref and autorefs resolve at on_env, before Material indexes at on_page_context.
#: A skill check's choices, answer and controls' words are marked too (`skillchecks.UNINDEXED`;
#: their quoted values are filled in at on_env). (Material ends an exclusion at the first end
#: tag of its name: the feedback's one inner div, the explanation, ends where the feedback does.)
_EXCLUDED = ('<details class="tip">', '<details class="success">', *skillchecks.UNINDEXED)
_HOLE = re.compile(r'<esm-x n="(\d+)"></esm-x>')


def _hole(n: int) -> str:
    return f'<esm-x n="{n}"></esm-x>'


def holds(text: str) -> list[list[int]]:
    """The (start, end) of each element of ``text`` left out of the index: the check lines
    (``div.esm-check``), then the outermost of the others (``_OUT``), each in the page's order."""
    tokens, ends = markup.read_tokens(text)
    checks, out = [], []
    last = block_end = -1
    for i, t in enumerate(tokens):
        if t.kind != "start":
            continue
        if t.name == "div" and t.attrs[:1] == (("class", "esm-check"),):
            checks.append([t.start, tokens[ends[i]].end])
        if t.name == "div" and t.attrs[:1] == (("class", "tabbed-block"),):
            block_end = tokens[ends[i]].end           # a demo's Output or Code tab
        printed = t.name == "table" and t.start < block_end   # a table a demo printed
        if t.start >= last and (printed or any(t.name == name and (attrs is None or t.attrs[:1] == attrs)
                                               for name, attrs in _OUT)):
            last = tokens[ends[i]].end
            out.append([t.start, last])
    return checks + out


def held_out(text: str, spans: list[list[int]], inserts: list[list]) -> tuple[str, list[str]]:
    """``text`` with ``inserts`` (``[where, what, held]``: defer.py's) made and each of ``spans``
    (`holds`) and each held insert swapped for a hole; and the held texts, the n-th filling the
    hole ``n`` (a held element holds the holes of the spans and inserts inside it)."""
    held: list[str] = [""] * (len(spans) + sum(1 for *_, h in inserts if h))
    spans = [(s, e, n) for n, (s, e) in enumerate(spans)]
    numbered = []
    n = len(spans)
    for at, what, is_held in inserts:
        numbered.append((at, what, n if is_held else None))
        n += is_held

    def render(lo: int, hi: int, inner: list, points: list) -> str:
        # at one place an insert comes before a held element that starts there
        events = sorted([(s, 1, k) for k, (s, _, _) in enumerate(inner)]
                        + [(at, 0, k) for k, (at, _, _) in enumerate(points)])
        out, pos = [], lo
        for at, kind, k in events:
            if at < pos:
                continue
            if kind == 0:
                _, what, number = points[k]
                out.append(text[pos:at])
                if number is None:
                    out.append(what)
                else:
                    held[number] = what
                    out.append(_hole(number))
                pos = at
            else:
                s, e, number = inner[k]
                inside = [x for x in spans if s <= x[0] and x[1] <= e and x != inner[k]]
                inside = [x for x in inside if not any(y[0] <= x[0] and x[1] <= y[1] and y != x for y in inside)]
                held[number] = render(s, e, inside, [p for p in numbered if s < p[0] < e])
                out += [text[pos:s], _hole(number)]
                pos = e
        out.append(text[pos:hi])
        return "".join(out)

    top = [x for x in spans if not any(y[0] <= x[0] and x[1] <= y[1] and y != x for y in spans)]
    inside_any = lambda at: any(s < at < e for s, e, _ in spans)      # noqa: E731
    return render(0, len(text), top, [p for p in numbered if not inside_any(p[0])]), held


def _put_back(text: str, held: list[str]) -> tuple[str, int]:
    """``text`` with its holes filled by the held elements, and how many were filled: a held
    element may hold holes itself (the check lines inside a held ``details.esm-checks``)."""
    total = 0
    while True:
        text, n = _HOLE.subn(lambda m: held[int(m[1])], text)
        if not n:
            return text, total
        total += n


def _toc_key(items) -> list:
    return [[item.id, item.url, item.title, _toc_key(item.children)] for item in items]


@functools.cache
def _salt() -> str:
    return json.dumps([importlib.metadata.version("mkdocs-material"), execcache.interpreter(),
                       Path(__file__).read_text(encoding="utf-8")])


def index_key(page) -> list[str]:
    """What Material's SearchIndex.add_entry_from_context reads from a page."""
    meta = {k: page.meta.get(k) for k in ("search", "tags", "title")}
    return [_salt(), page.url, str(page.title), page.content or "", json.dumps(_toc_key(page.toc)),
            json.dumps(meta, sort_keys=True, default=str)]


class Search:
    """The search index made lighter: elements held out of it while Material indexes a page."""

    def __init__(self) -> None:
        self.state = None

    def on_config(self, config, state) -> None:
        """Index each page through the cache: Material's search plugin made its index in its own
        on_config (it runs before this plugin)."""
        self.state = state
        store = execcache.ExecCache(state.cache_dir)

        def add_entry(index, page, parse) -> None:
            parts = index_key(page)
            stored = store.get("search", parts)
            if stored is not None:
                index.entries.extend(stored)
                return
            start = len(index.entries)
            parse(page)
            store.put("search", parts, index.entries[start:], {})

        material.index_through(config, add_entry)

    def on_page_content(self, html: str, page, spans: list, inserts: list) -> str:
        """``html`` (with ``inserts`` made: defer.py's) as the index reads it: what `holds` found
        (``spans``) held out, each put back in on_post_page."""
        text, held = held_out(html, spans, inserts)
        self.state.page(page.file.src_uri).held = held
        for tag in _EXCLUDED:
            text = text.replace(tag, tag[:-1] + ' data-search-exclude="fold">')
        return text

    def unhold(self, page, text: str) -> str:
        """``text`` (the page's content, taken before on_post_page: the print page of `make pdf`)
        with the elements held out of the index put back."""
        return _put_back(text, self.state.page(page.file.src_uri).held)[0]

    def on_post_page(self, output: str, page) -> str:
        held = self.state.page(page.file.src_uri).held
        output, n = _put_back(output, held)
        if n != len(held):
            raise PluginError(f"search: {page.file.src_uri}: {len(held) - n} held elements not put back")
        self.state.page(page.file.src_uri).held = []
        return output

    def on_post_build(self, config) -> None:
        """Material writes the index with every non-ASCII character escaped (``\\u2223`` for the
        six bytes of one math symbol); written again as UTF-8 it reads the same and is smaller."""
        path = Path(config.site_dir) / "search" / "search_index.json"
        if path.exists():
            data = json.loads(path.read_text(encoding="utf-8"))
            path.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
