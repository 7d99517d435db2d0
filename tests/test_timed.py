"""tools/timed.py's time per page: each page's suite time beside its cold execution time, flagged
over twice it (issue 46: a new chapter adds to `make test` at most twice its cold execution time)."""

from __future__ import annotations

import importlib.util
import json

from sitebuild import ROOT

_spec = importlib.util.spec_from_file_location("timed", ROOT / "tools" / "timed.py")
timed = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(timed)


def test_a_page_over_twice_its_cold_execution_time_is_flagged(tmp_path):
    times = tmp_path / "times.jsonl"
    records = [("tests/part1/test_intuition.py::test_a", "call", 3.0),
               ("tests/test_snippets.py::test_snippet[part1/intuition/lookup.py]", "call", 1.0),
               ("tests/browser/test_pages.py::test_page_in_browser[part2/geometry-of-meaning.md]", "call", 5.0),
               ("tests/test_text.py::test_b", "call", 0.5),
               ("tests/test_text.py::test_b", "setup", 2.0)]
    times.write_text("".join(json.dumps({"nodeid": n, "when": w, "duration": d}) + "\n" for n, w, d in records))
    executed = {"part1/intuition.md": {"seconds": 1.0, "blocks": 7, "timed": 7},
                "part2/geometry-of-meaning.md": {"seconds": 4.0, "blocks": 9, "timed": 9}}
    table = timed.times_per_page(times, executed).splitlines()
    intuition = next(r for r in table if r.endswith(("part1/intuition.md", "OVER 2x")) and "intuition" in r)
    assert intuition.split()[:4] == ["4.0", "2", "1.0", "4.0"] and intuition.endswith("OVER 2x")
    geometry = next(r for r in table if "geometry-of-meaning" in r)
    assert geometry.split()[:4] == ["5.0", "1", "4.0", "1.2"] and "OVER" not in geometry
    book = next(r for r in table if "(book-wide tests)" in r)
    assert book.split()[:4] == ["0.5", "1", "-", "-"]
    assert table[-1] == ("1 of 2 pages with demos take more than 2x their cold execution time in the suite: "
                         "part1/intuition.md")
    assert timed.BUDGET == 2.0
