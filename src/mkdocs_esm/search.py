"""A small search index: what a reader would search for, each formula once, no code dumps.

Material's search plugin indexes the text of a page's HTML in on_page_context, after every
on_page_content hook. This hook (listed last, so it sees the math, learner and notebook
output) takes out of the HTML, for the time of indexing, what a reader would not search for:

- KaTeX's visual HTML and the TeX annotation of each formula: the index keeps the MathML's
  text, each formula once, as a screen reader reads it;
- every ``<pre>``: demo and notebook code (the notebook's helper cell included) and printed
  output;
- inline SVG (a figure's tick labels; its caption stays), the Code/Output tab labels and the
  measured details of a check line (its ``<code>``; the sentence stays).

Each such element is swapped for an empty placeholder in on_page_content and put back in
on_post_page, so the pages served are unchanged (``page.unhold_search`` puts them back in a copy
of the content taken before that: the print page of `make pdf`).

Indexing a page (Material parses its HTML) costs about half of a build whose blocks all come
from the execution cache, so a page's entries are kept in that cache (hooks/execcache.py), keyed
on everything Material reads to make them: the page's HTML as indexed, its table of contents, URL,
title and front matter, and the versions of Material and Python; a page whose key is unchanged
gets its stored entries, the same values in the same order. (Material's ``data-search-exclude`` cannot
do this: its parser compares elements by tag name, so the first ``</span>`` inside a marked
span ends the exclusion.)
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

from . import execcache

#: Opening tags of the elements left out of the index (each up to its matching end tag).
_OUT = re.compile(r'<(span) class="katex-html"|<(annotation) encoding="application/x-tex"'
                  r'|<(pre)\b|<(svg)\b|<(div) class="tabbed-labels"')
_CHECK_CODE = re.compile(r'(<div class="esm-check"[^>]*>(?:(?!</div>).)*?)(<code>.*?</code>)', re.S)
_HOLE = re.compile(r'<esm-x n="(\d+)"></esm-x>')
_stash: dict[str, list[str]] = {}


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
    raise PluginError(f"search hook: <{tag}> at {start} is never closed")


def _toc_key(items) -> list:
    return [[item.id, item.url, item.title, _toc_key(item.children)] for item in items]


def _salt(memo: list = []) -> str:   # noqa: B006 - computed once
    if not memo:
        memo.append(json.dumps([importlib.metadata.version("mkdocs-material"), sys.version,
                                Path(__file__).read_text(encoding="utf-8")]))
    return memo[0]


def index_key(page) -> list[str]:
    """What Material's SearchIndex.add_entry_from_context reads from a page."""
    meta = {k: page.meta.get(k) for k in ("search", "tags", "title")}
    return [_salt(), page.url, str(page.title), page.content or "", json.dumps(_toc_key(page.toc)),
            json.dumps(meta, sort_keys=True, default=str)]


def on_config(config, **kwargs):
    """Index each page through the cache: Material's search plugin made its index in its own
    on_config (plugins run before hooks)."""
    index = next((getattr(p, "search_index", None) for p in config.plugins.values()
                  if hasattr(getattr(p, "search_index", None), "add_entry_from_context")), None)
    if index is None:
        return config
    store = execcache.ExecCache.from_env(Path(config.config_file_path).parent)
    parse = index.add_entry_from_context

    def add_entry_from_context(page):
        parts = index_key(page)
        stored = store.get("search", parts)
        if stored is not None:
            index.entries.extend(stored)
            return
        start = len(index.entries)
        parse(page)
        store.put("search", parts, index.entries[start:], {})

    index.add_entry_from_context = add_entry_from_context
    return config


def on_page_content(html, page, **kwargs):
    held: list[str] = []

    def hold(fragment: str) -> str:
        held.append(fragment)
        return f'<esm-x n="{len(held) - 1}"></esm-x>'

    html = _CHECK_CODE.sub(lambda m: m[1] + hold(m[2]), html)
    out, pos = [], 0
    while (m := _OUT.search(html, pos)):
        tag = next(g for g in m.groups() if g)
        end = _end_of(html, m.start(), tag)
        out.append(html[pos:m.start()])
        out.append(hold(html[m.start():end]))
        pos = end
    out.append(html[pos:])
    _stash[page.file.src_uri] = held
    # Whoever takes page.content before on_post_page (hooks/print_site.py for `make pdf`) puts
    # the held elements back with this. (Not an `esm_` attribute: those are the data other pages
    # read, which hooks/serve.py compares to decide whether an edited page is rebuilt alone.)
    page.unhold_search = lambda text: _HOLE.sub(lambda m: held[int(m[1])], text)
    return "".join(out)


def on_post_page(output, page, **kwargs):
    held = _stash.pop(page.file.src_uri, [])
    output, n = _HOLE.subn(lambda m: held[int(m[1])], output)
    if n != len(held):
        raise PluginError(f"search hook: {page.file.src_uri}: {len(held) - n} held elements not put back")
    return output


def on_post_build(config, **kwargs):
    """Material writes the index with every non-ASCII character escaped (``\\u2223`` for the
    six bytes of one math symbol); written again as UTF-8 it reads the same and is smaller."""
    path = Path(config.site_dir) / "search" / "search_index.json"
    if path.exists():
        data = json.loads(path.read_text(encoding="utf-8"))
        path.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
