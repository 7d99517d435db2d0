"""Fault injection on a temporary copy of the project: each fault fails the build (strict or
not) with a message naming the page. The copy builds only the page under test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sitebuild import ROOT, build

pytestmark = pytest.mark.build

PAGE = "part1/intuition.md"
DEMO = "part1/intuition/lookup.py"


@pytest.fixture
def copy(tmp_path) -> Path:
    dst = tmp_path / "project"
    dst.mkdir()
    for name in ("docs", "snippets", "hooks"):
        shutil.copytree(ROOT / name, dst / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("mkdocs.yml", "package.json"):
        shutil.copy2(ROOT / name, dst / name)
    (dst / "node_modules").symlink_to(ROOT / "node_modules")
    return dst


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"fault target {old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def fails(copy: Path, tmp_path: Path, *needles: str, strict: bool = True) -> str:
    result = build(tmp_path / "site", root=copy, pages=[PAGE], strict=strict)
    log = result.stdout + result.stderr
    assert result.returncode != 0, f"the build passed despite the fault:\n{log[-2000:]}"
    for needle in needles:
        assert needle in log, f"{needle!r} not in the build log:\n{log[-3000:]}"
    return log


def test_the_unfaulted_copy_builds(copy, tmp_path):
    result = build(tmp_path / "site", root=copy, pages=[PAGE])
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


def test_an_invalid_formula_fails_the_build(copy, tmp_path):
    page = copy / "docs" / PAGE
    page.write_text(page.read_text() + "\nA broken formula: $\\frac{a}{$ here.\n")
    fails(copy, tmp_path, f"Invalid math in {PAGE}", "\\frac{a}{", "KaTeX parse error")


def test_a_missing_include_fails_the_build(copy, tmp_path):
    edit(copy / "docs" / PAGE, f'--8<-- "{DEMO}"', '--8<-- "part1/intuition/no_such_demo.py"')
    fails(copy, tmp_path, PAGE, "no_such_demo.py")


def test_a_formula_without_a_check_fails_the_build(copy, tmp_path):
    page = copy / "docs" / PAGE
    page.write_text(page.read_text() + "\n$$\n\\label{orphan}\na=b\n$$\n")
    fails(copy, tmp_path, PAGE, "\\label{orphan} has no check")


def test_a_display_formula_without_a_label_fails_the_build(copy, tmp_path):
    page = copy / "docs" / PAGE
    page.write_text(page.read_text() + "\n$$\na=b\n$$\n")
    fails(copy, tmp_path, PAGE, "has no \\label")


def test_a_check_naming_no_formula_fails_the_build(copy, tmp_path):
    edit(copy / "snippets" / DEMO, 'eq="lookup"', 'eq="lookup"))\nprint(check_equal("x", 1, 1, eq="ghost"')
    fails(copy, tmp_path, PAGE, 'eq="ghost"')
