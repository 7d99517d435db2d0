"""The progress line while a build runs its blocks (execution.Progress): in a log, a line every
few seconds at most; on a terminal, one line rewritten in place; nothing under ``mkdocs build -q``."""

from __future__ import annotations

import io
import logging

from mkdocs_esm import execution


def _steps(progress, n, cached=lambda k: k % 2 == 0):
    for k in range(n):
        progress.step(cached(k))


def test_a_log_gets_a_line_every_few_seconds_at_most(caplog, monkeypatch):
    clock = iter(range(0, 1000, 2))                      # each block takes 2 s
    monkeypatch.setattr(execution.time, "monotonic", lambda: next(clock))
    monkeypatch.setattr(execution.sys.stderr, "isatty", lambda: False, raising=False)
    progress = execution.Progress(every=5.0)
    progress.start(10)
    with caplog.at_level(logging.INFO, logger=execution.log.name):
        _steps(progress, 10)
    lines = [r.getMessage() for r in caplog.records if r.name == execution.log.name]
    assert lines == ["executed blocks: 3 of 10 done (2 from the cache)",
                     "executed blocks: 6 of 10 done (3 from the cache)",
                     "executed blocks: 9 of 10 done (5 from the cache)"]     # the summary line ends the build


def test_a_terminal_gets_one_line_rewritten_in_place(monkeypatch):
    out = io.StringIO()
    out.isatty = lambda: True
    monkeypatch.setattr(execution.sys, "stderr", out)
    monkeypatch.setattr(execution.time, "monotonic", iter(range(0, 1000)).__next__)
    progress = execution.Progress()
    progress.start(3)
    execution.log.setLevel(logging.INFO)
    try:
        _steps(progress, 3)
    finally:
        execution.log.setLevel(logging.NOTSET)
    text = out.getvalue()
    assert text.count("\n") == 1 and text.endswith("3 of 3 done (2 from the cache)\x1b[K\n")
    assert text.count("\r") == 3


def test_quiet_builds_print_no_progress(caplog, monkeypatch):
    out = io.StringIO()
    out.isatty = lambda: True
    monkeypatch.setattr(execution.sys, "stderr", out)
    progress = execution.Progress(every=0.0)
    progress.start(3)
    execution.log.setLevel(logging.ERROR)              # what mkdocs build -q sets
    try:
        with caplog.at_level(logging.ERROR):
            _steps(progress, 3)
    finally:
        execution.log.setLevel(logging.NOTSET)
    assert out.getvalue() == "" and not [r for r in caplog.records if r.name == execution.log.name]
