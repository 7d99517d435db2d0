"""mkdocs-autorefs: the anchors a page registered, kept in four dictionaries of its plugin
(``_primary_url_map``, ``_secondary_url_map``: identifier -> urls; ``_title_map``: url ->
title; ``_abs_url_map``: identifier -> url). serve's one-page route reads, saves and clears
a page's share of them; it has no public way to."""

from __future__ import annotations

import copy

from . import require

RANGE = ">=1.4,<2"
_URL_MAPS = ("_primary_url_map", "_secondary_url_map")
_MAPS = (*_URL_MAPS, "_title_map", "_abs_url_map")


def plugin_of(config):
    """The autorefs plugin of ``config``, or None."""
    plugin = config.plugins.get("autorefs")
    if plugin is not None:
        require("mkdocs-autorefs", RANGE, ", ".join(_MAPS))
    return plugin


def _mine(page):
    return lambda url: url.startswith(page.url + "#") or url == page.url


def anchors(plugin, page) -> list:
    """What ``page`` registered, sorted: (map, key, value) triples."""
    if plugin is None:
        return []
    mine = _mine(page)
    out = [(m, ident, url) for m in _URL_MAPS for ident, urls in getattr(plugin, m).items()
           for url in urls if mine(url)]
    out += [("title", url, title) for url, title in plugin._title_map.items() if mine(url)]
    out += [("abs", ident, url) for ident, url in plugin._abs_url_map.items() if mine(url)]
    return sorted(out)


def save(plugin) -> dict:
    """A copy of every map, to put back with ``restore`` (the order a full build made)."""
    return {m: copy.deepcopy(getattr(plugin, m)) for m in _MAPS} if plugin is not None else {}


def restore(plugin, saved: dict) -> None:
    for m, value in saved.items():
        setattr(plugin, m, value)


def forget(plugin, page) -> None:
    """Take out what ``page`` registered."""
    if plugin is None:
        return
    mine = _mine(page)
    for m in _URL_MAPS:
        table = getattr(plugin, m)
        for ident in list(table):
            table[ident] = [u for u in table[ident] if not mine(u)]
            if not table[ident]:
                del table[ident]
    for url in [u for u in plugin._title_map if mine(u)]:
        del plugin._title_map[url]
    for ident in [i for i, u in plugin._abs_url_map.items() if mine(u)]:
        del plugin._abs_url_map[ident]
