"""mkdocs-print-site-plugin: the page's HTML it assembles the book from (``page.html``, set at
its ``on_page_content``) and its ``urls.update_anchor_ids``, made faster.

The plugin (2.9) finds the tags that carry an id with ``<([^\\s]+).*?id="..."``: at each ``<``
of a line without a later id (a long line of markup: thousands of tags), the greedy tag name is
shortened one character at a time and the rest of the line scanned again for each, 24 of the
book build's 34 s. The same pattern with a possessive tag name (``[^\\s]++``) finds the same
tags: a shorter name can only succeed where ``id="`` lies inside the name's run of
non-space characters, so such a page (``<\\S+?id="``) keeps the plugin's own function.
A match lies on one line (``.`` stops at a line end) unless an id's value runs past it, so
the pattern is tried only on the lines that hold an ``id="`` (a page where an id's closing
quote is not on its line keeps the plugin's function), not on the lines of markup that
hold no id (tests/test_print_site.py compares both with the plugin's).
"""

from __future__ import annotations

import functools
import re

from . import require

RANGE = ">=2.6,<3"
_USES = "the page.html it keeps, urls.update_anchor_ids"


_TAG_WITH_ID = re.compile(r"<([^\s]++).*?id=\"([^\"]*?)\".*?>", flags=re.IGNORECASE)
_ID_IN_NAME = re.compile(r'<\S+?id="', flags=re.IGNORECASE)
_ID_LINE = re.compile(r'^.*?id="[^\n]*$', flags=re.IGNORECASE | re.MULTILINE)
_OPEN_ID = re.compile(r'id="[^"\n]*(?:\n|$)', flags=re.IGNORECASE)


def _tags_with_ids(page_html: str):
    """The plugin's matches, found line by line on the lines that hold an ``id="``."""
    for line in _ID_LINE.finditer(page_html):
        yield from _TAG_WITH_ID.finditer(page_html, line.start(), line.end())


def update_anchor_ids(page_html: str, page_key: str, original) -> str:
    """The plugin's ``update_anchor_ids`` (``original``) with the possessive pattern: the same
    tags, the same edits."""
    if _ID_IN_NAME.search(page_html) or _OPEN_ID.search(page_html):
        return original(page_html, page_key)
    change_tags = ["h1", "h2", "h3", "h4", "h5", "h6", "sup", "li"]
    for m in list(_tags_with_ids(page_html)):
        if m.group(1) not in change_tags:
            continue
        match_text = m.group()
        page_html = page_html.replace(match_text, match_text.replace(m.group(2), page_key + "-" + m.group(2)))
    return page_html


def faster_anchor_ids() -> None:
    """Make the plugin rename heading ids with `update_anchor_ids`."""
    require("mkdocs-print-site-plugin", RANGE, _USES)
    from mkdocs_print_site_plugin import urls

    original = getattr(urls.update_anchor_ids, "esm_original", urls.update_anchor_ids)   # once per process
    faster = functools.partial(update_anchor_ids, original=original)
    faster.esm_original = original
    urls.update_anchor_ids = faster


def holds_html(page) -> bool:
    """Whether the plugin kept this page's HTML (it does for the pages it prints)."""
    return hasattr(page, "html")


def set_html(page, html: str) -> None:
    page.html = html
