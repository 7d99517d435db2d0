"""Every demo is the executed block of a page, so the build runs it (and its page notebook runs
it again, as a reader does: tests/notebook/test_page_notebooks.py); what it printed there has
at least one passing check, and every check it makes reaches the output.

The demo is not run again for this test: its output is the session build's (`make test`) or the
author's execution cache's (`make check`, where a demo the cache lacks runs in-process as the
build runs it: conftest.demo_output). A failing check raises (esm.checks.CheckFailed), so a
demo whose check fails never has an output: the build fails naming page and block
(tests/test_faults.py), and so does `make check`'s in-process run."""

from __future__ import annotations

import ast

import pytest

from conftest import ROOT, demo_block, demo_snippets

CHECKS = {"check_close", "check_equal", "check_true", "check_less"}
DEMOS = demo_snippets()


#: The home page's blocks (its course map, its prerequisites) are not lessons: they assert what
#: they rely on (a failure raises and fails the build) and show a newcomer no check box;
#: tests/test_front_pages.py tests the same facts.
FRONT = ROOT / "snippets" / "primer" / "front-pages"


@pytest.mark.parametrize("path", DEMOS, ids=lambda p: p.relative_to(ROOT / "snippets").as_posix())
def test_snippet_runs_and_passes(path, demo_output):
    demo_block(path)                 # the block of a page: the build runs it, or fails
    passed = [line for line in demo_output(path).splitlines() if line.startswith("PASS")]
    if path.is_relative_to(FRONT):
        assert not passed, f"{path.name}: the home page shows no check box"
    else:
        assert passed, f"{path.name} printed no PASS line"


def _unprinted_checks(source: str) -> list[str]:
    """Calls of a check whose line is thrown away: not printed, returned, assigned or passed on."""
    tree = ast.parse(source)
    lost = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Name) and node.value.func.id in CHECKS:
            lost.append(f"line {node.lineno}: {ast.unparse(node)[:80]}")
    return lost


@pytest.mark.parametrize("path", DEMOS, ids=lambda p: p.relative_to(ROOT / "snippets").as_posix())
def test_every_check_a_demo_makes_is_shown(path):
    """A check whose line is not printed passes unseen: the page would not show it."""
    assert _unprinted_checks(path.read_text(encoding="utf-8")) == []


def test_a_check_left_unprinted_is_found():
    assert _unprinted_checks("from esm import check_true\ncheck_true('x', True)\n") == ["line 2: check_true('x', True)"]
    assert _unprinted_checks("print(check_true('x', True))\nline = check_true('y', True)\n") == []
