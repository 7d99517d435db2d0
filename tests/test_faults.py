"""Fault injection on the fixture book (tests/fixture/: one page, one demo, one formula, one
citation, a tiny notebook): each fault fails the build (strict or not) with a message naming
the page and, for a block, the block and its demo. The faults go through the plugin code a
fault in the real book goes through; the real book's own end-to-end fault is in
tests/test_cache_faults.py (a failing block run ahead in worker processes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import build_fails, edit
from sitebuild import build

pytestmark = pytest.mark.build

PAGE = "part1/lesson.md"
DEMO = "part1/lesson/lookup.py"
BLOCK = f"executed block 1 ({DEMO}) failed"      # the error names page, block and demo


def fails(project: Path, tmp_path: Path, *needles: str, strict: bool = True) -> str:
    return build_fails(project, tmp_path / "site", PAGE, *needles, strict=strict)


def test_the_unfaulted_fixture_builds(fixture_project, tmp_path):
    result = build(tmp_path / "site", root=fixture_project, pages=[PAGE], fork=True)
    assert result.returncode == 0, result.stderr[-3000:]
    html = (tmp_path / "site" / "part1" / "lesson" / "index.html").read_text(encoding="utf-8")
    assert html.count('<div class="esm-check"') == 1 and "Vaswani et al., 2017" in html


@pytest.mark.parametrize("strict", [True, False])
def test_a_failing_check_fails_the_build(fixture_project, tmp_path, strict):
    edit(fixture_project / "snippets" / DEMO, "X, loop,", "X, loop + 1e-3,")
    fails(fixture_project, tmp_path, PAGE, BLOCK, DEMO, "FAIL [lookup]", strict=strict)


def test_an_exception_fails_the_build(fixture_project, tmp_path):
    path = fixture_project / "snippets" / DEMO
    path.write_text(path.read_text() + "\nraise RuntimeError('injected fault')\n")
    log = fails(fixture_project, tmp_path, PAGE, BLOCK, DEMO, "RuntimeError: injected fault")
    assert "Traceback" not in log.split("ERROR", 1)[-1].split("\n", 3)[0]


def test_an_invalid_formula_fails_the_build(fixture_project, tmp_path):
    page = fixture_project / "docs" / PAGE
    page.write_text(page.read_text() + "\nA broken formula: $\\frac{a}{$ here.\n")
    fails(fixture_project, tmp_path, f"Invalid math in {PAGE}", "\\frac{a}{", "Unexpected end of input")


def test_a_missing_include_fails_the_build(fixture_project, tmp_path):
    edit(fixture_project / "docs" / PAGE, f'--8<-- "{DEMO}"', '--8<-- "part1/lesson/no_such_demo.py"')
    fails(fixture_project, tmp_path, PAGE, "no_such_demo.py")


def test_a_formula_without_a_check_fails_the_build(fixture_project, tmp_path):
    page = fixture_project / "docs" / PAGE
    page.write_text(page.read_text() + "\n$$\n\\label{orphan}\na=b\n$$\n")
    fails(fixture_project, tmp_path, PAGE, "\\label{orphan} has no check")


def test_a_display_formula_without_a_label_fails_the_build(fixture_project, tmp_path):
    page = fixture_project / "docs" / PAGE
    page.write_text(page.read_text() + "\n$$\na=b\n$$\n")
    fails(fixture_project, tmp_path, PAGE, "has no \\label")


def test_a_check_naming_no_formula_fails_the_build(fixture_project, tmp_path):
    edit(fixture_project / "snippets" / DEMO, 'X, loop, eq="lookup"', 'X, loop, eq="lookup"))\nprint(check_close("x", 1, 1, eq="ghost"')
    fails(fixture_project, tmp_path, PAGE, 'eq="ghost"')
