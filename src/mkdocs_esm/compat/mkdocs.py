"""MkDocs' own build steps for one page, which serve's one-page route runs again:
``mkdocs.commands.build._populate_page`` (read, render, the page events up to on_page_content)
and ``_build_page`` (the template and on_post_page, then the write)."""

from __future__ import annotations

from . import require

RANGE = ">=1.6,<1.7"


def _build():
    require("mkdocs", RANGE, "commands.build._populate_page, commands.build._build_page")
    from mkdocs.commands import build
    return build


def populate_page(page, config, files) -> None:
    _build()._populate_page(page, config, files)


def build_page(page, config, doc_files, nav, env) -> None:
    _build()._build_page(page, config, doc_files, nav, env)
