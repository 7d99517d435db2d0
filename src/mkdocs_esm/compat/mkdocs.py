"""MkDocs' own build steps for one page, which serve's one-page route runs again:
``mkdocs.commands.build._populate_page`` (read, render, the page events up to on_page_content)
and ``_build_page`` (the template and on_post_page, then the write); and two details of
``mkdocs serve``'s LiveReloadServer that the route needs: the paths it watches
(``_watched_paths``) and the builder it calls on a change (its ``builder`` attribute, which
``on_serve`` receives but cannot replace through the event)."""

from __future__ import annotations

from . import require

RANGE = ">=1.6,<1.7"


def _build():
    require("mkdocs", RANGE, "commands.build._populate_page, commands.build._build_page")
    from mkdocs.commands import build
    return build


_SERVER_USES = "livereload.LiveReloadServer._watched_paths, LiveReloadServer.builder"


def watched_paths(server) -> list[str]:
    """The paths ``mkdocs serve`` watches (its config's and those plugins added)."""
    require("mkdocs", RANGE, _SERVER_USES)
    return list(getattr(server, "_watched_paths", {}) or {})


def replace_builder(server, builder) -> None:
    """``mkdocs serve`` calls ``builder`` (instead of its own) when a watched file changes."""
    require("mkdocs", RANGE, _SERVER_USES)
    server.builder = builder


def populate_page(page, config, files) -> None:
    _build()._populate_page(page, config, files)


def build_page(page, config, doc_files, nav, env) -> None:
    _build()._build_page(page, config, doc_files, nav, env)
