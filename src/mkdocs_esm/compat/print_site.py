"""mkdocs-print-site-plugin: the page's HTML it assembles the book from (``page.html``, set at
its ``on_page_content``) and its ``urls.update_anchor_ids``, made faster."""

from __future__ import annotations

import functools

from . import require

RANGE = ">=2.6,<3"
_USES = "the page.html it keeps, urls.update_anchor_ids"


def faster_anchor_ids(update) -> None:
    """Make the plugin rename heading ids with ``update(page_html, page_key, original)``."""
    require("mkdocs-print-site-plugin", RANGE, _USES)
    from mkdocs_print_site_plugin import urls

    original = getattr(urls.update_anchor_ids, "esm_original", urls.update_anchor_ids)   # once per process
    faster = functools.partial(update, original=original)
    faster.esm_original = original
    urls.update_anchor_ids = faster


def holds_html(page) -> bool:
    """Whether the plugin kept this page's HTML (it does for the pages it prints)."""
    return hasattr(page, "html")


def set_html(page, html: str) -> None:
    page.html = html
