"""markdown-exec: its public formatter table and ``base_format``, and two details of its
Markdown set-up that a cache of its HTML must read.

Public (exported by ``markdown_exec``): ``formatters`` (the language -> formatter table that
its fences call at run time), ``base_format``, ``code_block``, ``ExecutionError``. Internal:
an inner conversion's Markdown keeps the page's as ``_original_md``, and the page's
``markdown_exec_insert_headings`` treeprocessor holds, by output, the headings an output
reported to the table of contents (``.headings``); its logger is ``mkdocs.plugins.markdown_exec``.
"""

from __future__ import annotations

import functools
import logging

from markdown_exec import ExecutionError, InsertHeadings, base_format, code_block, formatters
from markupsafe import Markup

from . import require

RANGE = ">=1.10,<2"
_USES = "Markdown._original_md, InsertHeadings.headings, the mkdocs.plugins.markdown_exec logger"

__all__ = ["ExecutionError", "Markup", "base_format", "capture_warnings", "code_block", "inner_conversion",
           "reported_headings", "use_python_formatter"]


def use_python_formatter(format_python) -> None:
    """Python fences are formatted by ``format_python(original, **options)``, where ``original``
    is markdown-exec's own python formatter (for what ours leaves to it)."""
    require("markdown-exec", RANGE, _USES)
    original = getattr(formatters["python"], "esm_original", formatters["python"])     # once per process
    ours = functools.partial(format_python, original)
    ours.esm_original = original
    formatters["python"] = ours


@functools.cache
def _checked() -> str:
    return require("markdown-exec", RANGE, _USES)


def inner_conversion(md) -> bool:
    """Whether ``md`` is markdown-exec's conversion of a block's output (not the page's own)."""
    _checked()
    return hasattr(md, "_original_md")


def reported_headings(md, markup) -> bool:
    """Whether converting an output reported headings to the page's table of contents."""
    outer = getattr(md, "_original_md", md)
    inserter = outer.treeprocessors[InsertHeadings.name] if InsertHeadings.name in outer.treeprocessors else None
    return bool(inserter is not None and inserter.headings.get(markup))


def capture_warnings(handler: logging.Handler) -> None:
    """Send markdown-exec's warnings (a failed block) to ``handler`` too. Under ``mkdocs build
    -q`` (log level ERROR) markdown-exec's warning would be dropped before any handler sees it,
    and a failed block would surface only as a later error (a value its output lacked): the
    logger then keeps its warnings for ``handler`` alone, which the build turns into an error
    naming the page and the block."""
    logger = logging.getLogger("mkdocs.plugins.markdown_exec")
    if handler not in logger.handlers:
        logger.addHandler(handler)
    if not logger.isEnabledFor(logging.WARNING):
        logger.setLevel(logging.WARNING)
        logger.propagate = False
