"""mkdocs-jupyter: the functions its plugin runs and converts a notebook with, none of them a
documented interface: ``nbconvert2.get_nbconvert_app`` (the nbconvert configuration it executes
with), ``convert.nb2html`` (the page's HTML) and ``plugin.get_nb_toc`` (its table of contents).
Its ``on_pre_page`` replaces the page's ``render`` method; the notebook replaces it in turn, after
it (`replace_render`)."""

from __future__ import annotations

import functools
import logging

from . import require

RANGE = ">=0.26,<0.27"


@functools.cache
def _checked() -> None:
    require("mkdocs-jupyter", RANGE, "nbconvert2.get_nbconvert_app, convert.nb2html, plugin.get_nb_toc, "
                                     "Page.render replaced in on_pre_page")


def execute_config(*, kernel_name: str, allow_errors: bool):
    """The nbconvert configuration mkdocs-jupyter executes a notebook with."""
    _checked()
    from mkdocs_jupyter.nbconvert2 import get_nbconvert_app
    return get_nbconvert_app(execute=True, kernel_name=kernel_name, allow_errors=allow_errors).config


def nb2html(path: str, **options) -> str:
    """The page's HTML as mkdocs-jupyter converts the notebook at ``path`` (its "Converting
    notebook" line, which names a temporary file, left out of the build's log)."""
    _checked()
    from mkdocs_jupyter import convert
    logger = logging.getLogger("mkdocs.mkdocs-jupyter")
    level = logger.level
    logger.setLevel(max(level, logging.WARNING))
    try:
        return convert.nb2html(path, **options)
    finally:
        logger.setLevel(level)


def nb_toc(path: str, depth: int):
    """(toc, title) as mkdocs-jupyter reads them from the notebook at ``path``."""
    _checked()
    from mkdocs_jupyter.plugin import get_nb_toc
    return get_nb_toc(path, depth)


def replace_render(page, render) -> None:
    """Have ``page`` rendered by ``render(config, files)`` instead of mkdocs-jupyter's replacement
    (which replaced mkdocs' own in its on_pre_page, before this runs)."""
    _checked()
    page.render = render
