"""Shared checks of the exercises pages (docs/<part>/exercises.md), used by tests/<part>/test_exercises.py."""

from __future__ import annotations

import re

import pytest

import esm
from conftest import DOCS, demo_namespace

KINDS = ("Predict", "Derive", "Prove", "Debug", "Compute", "Explain")
#: a part opens with its kind, or two ("**Predict, then prove.**")
PART = re.compile(r"^- \*\*\((?P<letter>[a-e])\)\*\* \*\*(?P<kind>[A-Za-z]+)(?:, then (?P<then>[a-z]+))?\.\*\*", re.M)
PAGES = ["part1/exercises.md", "part2/exercises.md", "part3/exercises.md", "primer/exercises.md"]


def exercises(page: str) -> list[tuple[int, str, str]]:
    """(number, title, text) of each exercise of a page."""
    text = (DOCS / page).read_text(encoding="utf-8")
    return [(int(m[1]), m[2], m[3]) for m in re.finditer(r"^## (\d+) (.+?)\n(.*?)(?=^## |\Z)", text, re.M | re.S)]


def kinds(page: str) -> list[str]:
    return [k.capitalize() for _, _, text in exercises(page) for m in PART.finditer(text.split('??? tip "Hint"')[0])
            for k in (m["kind"], m["then"]) if k]


def check_page(page: str) -> None:
    found = exercises(page)
    assert len(found) >= 4, page
    for number, title, text in found:
        question = text.split('??? tip "Hint"')[0]
        assert re.search(r"\*Practises \[(section|chapter) #\]\[(sec|chapter)-", question), (number, "names its section")
        assert re.search(r"\*\*Difficulty:\*\* [★☆]{3}", question), number
        parts = list(PART.finditer(question))
        assert parts, (number, "every part opens with its kind")
        assert all(m["kind"] in KINDS and (m["then"] or "Prove").capitalize() in KINDS for m in parts), number
        assert [m["letter"] for m in parts] == list("abcde"[:len(parts)]), number
        assert not re.search(r"^- \*\*\([a-e]\)\*\*(?! \*\*[A-Z])", question, re.M), (number, "a part without its kind")
        assert '??? tip "Hint"' in text and text.index('??? tip "Hint"') < text.index('??? success "Solution"'), number
        solution = text.split('??? success "Solution"')[1]
        assert re.search(r'^    ```python exec="on"', solution, re.M), (number, "the solution's code sits inside the fold")
        if "Debug" in [m["kind"] for m in parts]:
            broken = re.findall(r'^```python exec="on".*\n--8<-- "([^"]+_broken\.py)"', question, re.M)
            fixed = re.findall(r'--8<-- "([^"]+_fix\.py)"', solution)
            assert len(broken) == 1 and len(fixed) == 1, (number, "a debug task shows its broken code and folds its fix")


def check_debug_demo(rel: str) -> None:
    """The broken code runs and fails its check; the fix passes the same check."""
    broken = demo_namespace(f"{rel}_broken")
    with pytest.raises(esm.CheckFailed):
        broken["run_broken"]()
    assert esm.expect_failure(broken["run_broken"]).startswith("EXPECTED FAILURE (this is the bug): ")
    fixed = demo_namespace(f"{rel}_fix")
    assert fixed["run_fixed"]().startswith("PASS ")


def check_built(site, page: str) -> None:
    html = site.html(page)
    blocks = re.findall(r"<details class=\"success\"( open)?>(.*?)</details>", html, re.S)
    assert len(blocks) == len(exercises(page))
    assert not any(opened for opened, _ in blocks), "a solution is open before the reader opens it"
    hints = re.findall(r"<details class=\"tip\"( open)?>\s*<summary>Hint</summary>", html)
    assert len(hints) == len(blocks) and not any(hints)
    assert ">FAIL<" not in html and "FAIL [" not in html
