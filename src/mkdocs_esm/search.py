"""A small search index: what a reader would search for, each formula once, no code dumps.

Each formula is indexed once, as its MathML text (Temml writes no TeX annotation): as a
screen reader reads it.

Material's search plugin indexes the text of a page's HTML in on_page_context, after every
on_page_content event. This (run last, so it sees the math, learner and notebook
output) takes out of the HTML, for the time of indexing, what a reader would not search for:

- every ``<pre>``: demo and notebook code (the notebook's helper cell included) and printed
  output;
- inline SVG (a figure's tick labels; its caption stays), the Code/Output tab labels and the
  check lines (a check restates, with its measured values, what the prose around it says: a
  search finds the prose).

Each such element is swapped for an empty placeholder in on_page_content and put back in
on_post_page, so the pages served are unchanged (``Search.unhold`` puts them back in a copy
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

from . import execcache
from .compat import material

#: Opening tags of the elements left out of the index (each up to its matching end tag).
_OUT = re.compile(r'<(pre)\b|<(svg)\b|<(div) class="tabbed-labels"|<(details) class="success esm-checks"')
_CHECK = re.compile(r'<div class="esm-check"[^>]*>(?:(?!</div>).)*</div>', re.S)
_HOLE = re.compile(r'<esm-x n="(\d+)"></esm-x>')


def _end_of(html: str, start: int, tag: str) -> int:
    """Index just past the end tag that closes the element opened at ``start``."""
    depth = 0
    pattern = re.compile(rf"<(/?){tag}\b[^>]*?(/?)>")
    for m in pattern.finditer(html, start):
        if m[2]:                       # <tag ... /> opens and closes
            if depth == 0:
                return m.end()
            continue
        depth += -1 if m[1] else 1
        if depth == 0:
            return m.end()
    raise PluginError(f"search: <{tag}> at {start} is never closed")


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

    def on_page_content(self, html: str, page) -> str:
        held = self.state.page(page.file.src_uri).held
        held.clear()

        def hold(fragment: str) -> str:
            held.append(fragment)
            return f'<esm-x n="{len(held) - 1}"></esm-x>'

        html = _CHECK.sub(lambda m: hold(m[0]), html)
        out, pos = [], 0
        while (m := _OUT.search(html, pos)):
            tag = next(g for g in m.groups() if g)
            end = _end_of(html, m.start(), tag)
            out.append(html[pos:m.start()])
            out.append(hold(html[m.start():end]))
            pos = end
        out.append(html[pos:])
        return "".join(out)

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
