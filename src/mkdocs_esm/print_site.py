"""`make pdf` only (mkdocs-pdf.yml): give mkdocs-print-site-plugin each page's final HTML,
and make its renaming of heading ids linear.

The plugin keeps a page's HTML as it stands at the plugin's own ``on_page_content``, before
this plugin renders its math (mathml.py) and mkdocs-autorefs resolves its cross-references and
citations (``on_env``). After all of them, this hands it the finished content instead, with
what search.py holds out of it for the search index put back (code and output, figures:
without them the book printed no code at all).

The plugin (2.9) finds the tags that carry an id with ``<([^\\s]+).*?id="..."``: at each ``<``
of a line without a later id (a long line of markup: thousands of tags), the greedy tag name is
shortened one character at a time and the rest of the line scanned again for each, 24 of the
book build's 34 s. The same pattern with a possessive tag name (``[^\\s]++``) finds the same
tags: a shorter name can only succeed where ``id="`` lies inside the name's run of
non-space characters, so such a page (``<\\S+?id="``) keeps the plugin's own function.
A match lies on one line (``.`` stops at a line end) unless an id's value runs past it, so
the pattern is tried only on the lines that hold an ``id="`` (a page where an id's closing
quote is not on its line keeps the plugin's function), not on the lines of markup that
hold no id (tests/test_print_site.py compares both with the plugin's). The patch itself is in
compat/print_site.py.
"""

from __future__ import annotations

import re

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


class PrintSite:
    """Feeds mkdocs-print-site-plugin the finished pages (``print_site: true``, `make pdf`)."""

    def __init__(self, unhold) -> None:
        #: the search feature's: a page's content with what the index did not see put back
        self.unhold = unhold

    def on_config(self) -> None:
        from .compat import print_site
        print_site.faster_anchor_ids(update_anchor_ids)

    def on_env(self, files) -> None:
        from .compat import print_site
        for file in files:
            page = file.page
            if page is not None and print_site.holds_html(page) and page.content:
                # search.py holds the formulas' visual HTML and the code out of page.content
                # until on_post_page: the book takes them back.
                print_site.set_html(page, self.unhold(page, page.content))
