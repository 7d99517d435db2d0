"""A failed block is named even in a quiet build (`mkdocs build -q`, as `make portable` runs):
markdown-exec reports the failure as a warning, which the quiet log level would drop before the
build's handler saw it, leaving a later error (a value the block never printed) in its place."""

from __future__ import annotations

import logging

from mkdocs_esm.compat.markdown_exec import capture_warnings


class _Keep(logging.Handler):
    def __init__(self):
        super().__init__()
        self.records = []

    def emit(self, record):
        self.records.append(record)


def test_markdown_execs_warning_reaches_the_build_under_a_quiet_log_level():
    mkdocs, logger = logging.getLogger("mkdocs"), logging.getLogger("mkdocs.plugins.markdown_exec")
    saved = mkdocs.level, logger.level, logger.propagate, list(logger.handlers)
    try:
        mkdocs.setLevel(logging.ERROR)              # what -q does
        logger.setLevel(logging.NOTSET)
        keep = _Keep()
        capture_warnings(keep)
        logger.warning("Execution of python code block exited with errors")
        assert [r.getMessage() for r in keep.records] == ["Execution of python code block exited with errors"]
    finally:
        mkdocs.setLevel(saved[0])
        logger.setLevel(saved[1])
        logger.propagate = saved[2]
        logger.handlers[:] = saved[3]
