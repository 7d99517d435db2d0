"""mkdocs-material's search plugin: each page's entries are made by the index object's
``add_entry_from_context(page)``, an internal of ``material.plugins.search.plugin.SearchIndex``."""

from __future__ import annotations

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
