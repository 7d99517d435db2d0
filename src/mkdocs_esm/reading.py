"""Reading time and headings: every page's, shown under a lesson page's title, and the overview
page's table of every part and page of the nav.

- Every page gets its reading time and heading count (kept in the build state, which serve
  compares between builds); lesson pages (pages in a folder of docs/, such as part1/ or
  primer/) show them under their title.
- The overview page (docs/overview.md) gets, in place of the marker
  ``<div class="esm-overview"></div>``, a table of every part and page of the nav with reading
  time and heading count (filled in ``on_env``, once all pages are rendered).
"""

from __future__ import annotations

import html as htmllib
import math
import re

from mkdocs.exceptions import PluginError
from mkdocs.structure.nav import Section
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from . import markup

#: Reading speed and the time given to each display formula and each figure.
WORDS_PER_MINUTE = 200
SECONDS_PER_FORMULA = 20
SECONDS_PER_FIGURE = 20
_WORD = re.compile(r"[A-Za-z0-9][\w'’.-]*")
_H1_END = "</h1>"
_OVERVIEW_MARK = '<div class="esm-overview"></div>'
OVERVIEW = "overview.md"
_HEADINGS = ("h2", "h3", "h4", "h5", "h6")
#: Elements whose words are not read: code and output, figures' drawings, tables, formulas.
_UNREAD = ("pre", "svg", "script", "style", "table", "math")
#: ... and by class: a formula's markup before and after mathml.py renders it (its number too).
_UNREAD_CLASSES = ("arithmatex", "math-display", "math-inline-wide")
#: Added to a page after its text (a skill check, the practice page's questions): not counted.
_ADDED = ("esm-skillcheck", "esm-practice")


def stats(text: str) -> dict:
    """Minutes to read (prose words, display formulas, figures) and headings below the title, of
    the page's content ``text`` (markup.parse), without what is added after its text."""
    tokens, ends = markup.read_tokens(text)
    headings = formulas = figures = 0
    words: list[str] = []
    skip_to = added_to = -1
    for i, t in enumerate(tokens):
        if i <= added_to:
            continue
        if t.kind == "start":
            name, cls = t.name.lower(), markup.classes(t)
            if any(c in _ADDED for c in cls):
                added_to = ends[i]
                words.append(" ")
                continue
            headings += name in _HEADINGS
            figures += name in ("figure", "img")
            formulas += name == "div" and ("arithmatex" in cls or "math-display" in cls)
            if i > skip_to and (name in _UNREAD or any(c in _UNREAD_CLASSES for c in cls)):
                skip_to = ends[i]
                words.append(" ")
        if i > skip_to:
            words.append(t.text if t.kind == "text" else " ")
    count = len(_WORD.findall(htmllib.unescape("".join(words))))
    seconds = count * 60 / WORDS_PER_MINUTE + formulas * SECONDS_PER_FORMULA + figures * SECONDS_PER_FIGURE
    return {"words": count, "formulas": formulas, "figures": figures,
            "headings": headings, "minutes": max(1, math.ceil(seconds / 60))}


def is_lesson(page: Page) -> bool:
    """Lesson pages are the pages of a part, the primer or the notebook: those in a folder."""
    return "/" in page.file.src_uri and not page.file.src_uri.startswith("skill-checks/")


def _overview_table(nav, page: Page, stats_of) -> str:
    rows: list[str] = []
    total_min = total_pages = 0

    def link(p: Page) -> str:
        return f'<a href="{htmllib.escape(get_relative_url(p.url, page.url))}">{htmllib.escape(p.title or p.file.src_uri)}</a>'

    def pages_of(item) -> list[Page]:
        if isinstance(item, Page):
            return [item]
        if isinstance(item, Section):
            return [p for child in item.children for p in pages_of(child)]
        return []

    # The groups in the navigation's order: the pages before its first section start the
    # course, each section is a group, a lesson page on its own (the notebook) is one, and the
    # pages after the last section close it (the references). This page lists itself nowhere.
    parts: list[tuple[str, list[Page]]] = []
    start: list[Page] = []
    after: list[Page] = []
    for item in nav.items:
        if isinstance(item, Section):
            parts.append((item.title, pages_of(item)))
        elif isinstance(item, Page) and is_lesson(item):
            parts.append((item.title or item.file.src_uri, [item]))     # e.g. the notebook
        elif isinstance(item, Page) and item is not page and item.file.src_uri != OVERVIEW:
            (after if parts else start).append(item)
    if start:
        parts.insert(0, ("Start here", start))
    if after:
        parts.append(("Reference", after))
    body = []
    for title, ps in parts:
        minutes = sum(stats_of(p).get("minutes", 0) for p in ps)
        total_min += minutes
        total_pages += len(ps)
        body.append(f'<h2 id="{re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")}">{htmllib.escape(title)}</h2>')
        body.append(f'<p class="esm-overview-part">{len(ps)} page{"s" * (len(ps) != 1)}, about {minutes} min.</p>')
        body.append('<table><thead><tr><th scope="col">Page</th>'
                    '<th scope="col">Reading time</th><th scope="col">Headings</th></tr></thead><tbody>')
        for p in ps:
            s = stats_of(p) or {"minutes": 0, "headings": 0}
            body.append(f'<tr><td>{link(p)}</td><td>{s["minutes"]} min</td><td>{s["headings"]}</td></tr>')
        body.append("</tbody></table>")
    rows.append(f'<p class="esm-overview-total">{total_pages} pages in {len(parts)} group{"s" * (len(parts) != 1)}, '
                f"about {total_min} minutes of reading.</p>")
    return '<div class="esm-overview">' + "".join(rows + body) + "</div>"


def _meta_line(stats: dict) -> str:
    h = stats["headings"]
    return (f'<p class="esm-readmeta"><span class="esm-readtime">{stats["minutes"]} min read</span>'
            f'<span aria-hidden="true"> · </span><span class="esm-headcount">{h} heading{"s" * (h != 1)}</span></p>')


class Reading:
    """Reading time and headings, under each lesson page's title and in the overview."""

    def __init__(self) -> None:
        self.state = None
        self.nav = None

    def on_config(self, config, state) -> None:
        self.state = state

    def on_nav(self, nav) -> None:
        self.nav = nav

    def on_page_content(self, stats: dict, page) -> None:
        """The page's stats (`stats`, read with the rest of the page's content: content.py)."""
        # only what pages show (the meta line, the overview): serve compares it between builds
        self.state.page(page.file.src_uri).stats = {k: stats[k] for k in ("minutes", "headings")}

    def on_env(self, files) -> None:
        """All pages are converted now: the overview, with every page's reading stats."""
        for f in files.documentation_pages():
            p = f.page
            if p is not None and f.src_uri == OVERVIEW and p.content:
                if _OVERVIEW_MARK not in p.content:
                    raise PluginError(f"{f.src_uri}: the overview page needs the marker {_OVERVIEW_MARK}")
                stats_of = lambda page: self.state.page(page.file.src_uri).stats   # noqa: E731
                p.content = p.content.replace(_OVERVIEW_MARK, _overview_table(self.nav, p, stats_of), 1)

    def on_post_page(self, output: str, page) -> str:
        """A lesson page's reading time and headings under its title."""
        if not is_lesson(page):
            return output
        stats = self.state.page(page.file.src_uri).stats
        if stats:
            at = output.find(_H1_END)
            if at != -1:
                at += len(_H1_END)
                output = output[:at] + _meta_line(stats) + output[at:]
        return output
