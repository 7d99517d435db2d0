"""mkdocs-material's internals: its search plugin makes each page's entries through the index
object's ``add_entry_from_context(page)`` (``material.plugins.search.plugin.SearchIndex``), and
its templates write the search dialog and the progress bar without an accessible name."""

from __future__ import annotations

import functools

from . import require

RANGE = ">=9.5,<10"


def index_through(config, add_entry) -> None:
    """Have Material's search index make a page's entries through ``add_entry(index, page,
    parse)``, where ``parse(page)`` is its own method (it appends to ``index.entries``).
    Nothing happens without the search plugin."""
    index = next((getattr(p, "search_index", None) for p in config.plugins.values()
                  if hasattr(getattr(p, "search_index", None), "add_entry_from_context")), None)
    if index is None:
        return
    require("mkdocs-material", RANGE, "SearchIndex.add_entry_from_context, SearchIndex.entries")
    parse = index.add_entry_from_context
    index.add_entry_from_context = lambda page: add_entry(index, page, parse)


#: Material 9.x's markup of two widgets that axe-core finds without an accessible name (serious),
#: and the same markup named.
_A11Y_NAMES = (
    ('<div class="md-search" data-md-component="search" role="dialog">',
     '<div class="md-search" data-md-component="search" role="dialog" aria-label="Search">'),
    ('<div class="md-progress" data-md-component="progress" role="progressbar">',
     '<div class="md-progress" data-md-component="progress" role="progressbar" aria-label="Loading the page">'),
)


@functools.cache
def _widgets_checked() -> None:
    require("mkdocs-material", RANGE, "the markup of its search dialog and progress bar (base.html)")


def name_widgets(html: str) -> str:
    """Material's search dialog and progress bar with their accessible names (pages and 404.html)."""
    _widgets_checked()
    for old, new in _A11Y_NAMES:
        html = html.replace(old, new, 1)
    return html


#: What the theme override (overrides/main.html) wraps of Material's runtime, each for a measured
#: gain and each with a browser test (docs/dev/architecture.md, "The theme overrides").
WRAPPED_RUNTIME = (
    "XMLHttpRequest.open/send: the search index held until search opens (tests/browser/test_search.py)",
    "window.Worker: the search worker started at its first message (tests/browser/test_search.py)",
    "document.body.setAttribute: the palette's unchanged data-md-color-* left alone (tests/browser/test_theme.py)",
    "document.head.appendChild: Material's color-scheme meta kept out, ours written first (tests/browser/test_theme.py)",
)


def check_wrapped_runtime(config) -> None:
    """When the theme's override wraps Material's runtime (its ``main.html`` names the wrapped
    calls), Material must be a version the wrappers were written for: its bundle's calls, not a
    Python interface, and a renamed call would fail silently in the browser."""
    custom = getattr(config.theme, "custom_dir", None)
    if not custom:
        return
    from pathlib import Path
    main = Path(custom) / "main.html"
    if main.is_file() and any(call in main.read_text(encoding="utf-8")
                              for call in ("XMLHttpRequest", "window.Worker", "b.setAttribute", "h.appendChild")):
        require("mkdocs-material", RANGE, "its runtime, wrapped by the theme override: " + "; ".join(WRAPPED_RUNTIME))
