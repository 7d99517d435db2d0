"""tools/timed.py's time per page: each page's suite time beside its budget, twice its cold
execution time plus what every page pays whatever it holds (a browser visit, a kernel's start),
both measured in the same run; a page over it is flagged (issue 46: a new chapter adds to
`make test` at most twice its cold execution time; docs/dev/testing.md says how it is counted)."""

from __future__ import annotations

import importlib.util
import json

from sitebuild import ROOT

_spec = importlib.util.spec_from_file_location("timed", ROOT / "tools" / "timed.py")
timed = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(timed)


def test_a_page_over_twice_its_cold_execution_time_and_a_pages_fixed_cost_is_flagged(tmp_path):
    times = tmp_path / "times.jsonl"
    records = [("tests/part1/test_intuition.py::test_a", "call", 4.0),
               ("tests/test_snippets.py::test_snippet[part1/intuition/lookup.py]", "call", 1.0),
               ("tests/browser/test_pages.py::test_page_in_browser[part1/intuition.md]", "call", 1.0),
               ("tests/browser/test_pages.py::test_page_in_browser[part2/geometry-of-meaning.md]", "call", 3.0),
               ("tests/test_text.py::test_b", "call", 0.5),
               ("tests/test_text.py::test_b", "setup", 2.0)]
    times.write_text("".join(json.dumps({"nodeid": n, "when": w, "duration": d}) + "\n" for n, w, d in records))
    executed = {"part1/intuition.md": {"seconds": 1.0, "blocks": 7, "timed": 7},
                "part2/geometry-of-meaning.md": {"seconds": 4.0, "blocks": 9, "timed": 9}}
    notebooks = [{"page": "part1/intuition.md", "run_s": 2.5, "demos_s": 1.0},
                 {"page": "part2/geometry-of-meaning.md", "run_s": 4.0, "demos_s": 3.0}]
    # fixed cost: the median visit (1.0, 3.0) = 2.0 and the median kernel start (1.5, 1.0) = 1.25
    table = timed.times_per_page(times, executed, notebooks).splitlines()
    intuition = next(r for r in table if "part1/intuition.md" in r and not r.startswith(("a page", "1 of")))
    assert intuition.split()[:4] == ["6.0", "3", "1.0", "5.2"] and intuition.endswith("OVER")   # 2 x 1.0 + 3.25
    geometry = next(r for r in table if "geometry-of-meaning" in r and not r.startswith("1 of"))
    assert geometry.split()[:4] == ["3.0", "1", "4.0", "11.2"] and "OVER" not in geometry      # 2 x 4.0 + 3.25
    book = next(r for r in table if "(book-wide tests)" in r)
    assert book.split()[:4] == ["0.5", "1", "-", "-"]
    assert table[-2] == ("a page's fixed cost: a browser visit 2.0 s (median of 2) + a kernel's start 1.2 s "
                         "(median of 2 notebooks, each run less its demos' cells)")
    assert table[-1] == ("1 of 2 pages with demos take more than 2x their cold execution time plus a page's "
                         "fixed cost in the suite: part1/intuition.md")
    assert timed.BUDGET == 2.0


def test_a_notebook_cells_time_is_read_from_the_kernels_timing():
    """The demos' share of a notebook's run comes from nbclient's timing of each cell."""
    import sys
    sys.path.insert(0, str(ROOT / "tests" / "notebook"))
    from test_page_notebooks import _cell_seconds
    cell = {"metadata": {"execution": {"iopub.execute_input": "2026-11-29T12:00:00.250000Z",
                                       "shell.execute_reply": "2026-11-29T12:00:02.000000Z"}}}
    assert _cell_seconds(cell) == 1.75 and _cell_seconds({"metadata": {}}) == 0.0
