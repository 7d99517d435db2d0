"""Fault injection on a temporary copy of the project: each fault fails the build (strict or
not) with a message naming the page. The copy builds only the page under test."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import build_fails, edit
from sitebuild import build

pytestmark = pytest.mark.build

PAGE = "part1/intuition.md"
DEMO = "part1/intuition/lookup.py"


def fails(copy: Path, tmp_path: Path, *needles: str, strict: bool = True) -> str:
    return build_fails(copy, tmp_path / "site", PAGE, *needles, strict=strict)


def test_the_unfaulted_copy_builds(copy, tmp_path):
    result = build(tmp_path / "site", root=copy, pages=[PAGE], fork=True)
    assert result.returncode == 0, result.stderr[-3000:]


@pytest.mark.parametrize("strict", [True, False])
def test_a_failing_check_fails_the_build(copy, tmp_path, strict):
    edit(copy / "snippets" / DEMO, "X, loop,", "X, loop + 1e-3,")
    fails(copy, tmp_path, PAGE, DEMO, "FAIL [lookup]", strict=strict)


def test_an_exception_fails_the_build(copy, tmp_path):
    path = copy / "snippets" / DEMO
    path.write_text(path.read_text() + "\nraise RuntimeError('injected fault')\n")
    log = fails(copy, tmp_path, PAGE, DEMO, "RuntimeError: injected fault")
    assert "Traceback" not in log.split("ERROR", 1)[-1].split("\n", 3)[0]


def test_an_invalid_formula_fails_the_build(warm_copy, tmp_path):
    copy = warm_copy
    page = copy / "docs" / PAGE
    page.write_text(page.read_text() + "\nA broken formula: $\\frac{a}{$ here.\n")
    fails(copy, tmp_path, f"Invalid math in {PAGE}", "\\frac{a}{", "Unexpected end of input")


def test_a_missing_include_fails_the_build(warm_copy, tmp_path):
    copy = warm_copy
    edit(copy / "docs" / PAGE, f'--8<-- "{DEMO}"', '--8<-- "part1/intuition/no_such_demo.py"')
    fails(copy, tmp_path, PAGE, "no_such_demo.py")


def test_a_formula_without_a_check_fails_the_build(warm_copy, tmp_path):
    copy = warm_copy
    page = copy / "docs" / PAGE
    page.write_text(page.read_text() + "\n$$\n\\label{orphan}\na=b\n$$\n")
    fails(copy, tmp_path, PAGE, "\\label{orphan} has no check")


def test_a_display_formula_without_a_label_fails_the_build(warm_copy, tmp_path):
    copy = warm_copy
    page = copy / "docs" / PAGE
    page.write_text(page.read_text() + "\n$$\na=b\n$$\n")
    fails(copy, tmp_path, PAGE, "has no \\label")


def test_a_check_naming_no_formula_fails_the_build(copy, tmp_path):
    edit(copy / "snippets" / DEMO, 'X, loop, eq="lookup"', 'X, loop, eq="lookup"))\nprint(check_equal("x", 1, 1, eq="ghost"')
    fails(copy, tmp_path, PAGE, 'eq="ghost"')
