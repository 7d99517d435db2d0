"""Fault injection for the execution cache, on the fixture book (tests/fixture/) built with its
own cache directory: whatever input of a block changes, the block runs again and the page shows
the new output; nothing stale, corrupt or failed is ever served. One fault runs end to end on a
copy of the real book: a failing block run ahead in worker processes, as in a cold build."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import edit, make_fixture_project
from sitebuild import build

pytestmark = pytest.mark.build

PAGE = "part1/lesson.md"
DEMO = "part1/lesson/lookup.py"
REAL_PAGE, REAL_DEMO = "part1/intuition.md", "part1/intuition/lookup.py"
SUMMARY = re.compile(r"execution cache: (\d+) reused, (\d+) ran \((\d+) ahead[^)]*\), (\d+) stale, (\d+) discarded; "
                     r"HTML of (\d+) outputs reused, (\d+) made")


@pytest.fixture
def cache_dir(tmp_path, monkeypatch) -> Path:
    d = tmp_path / "exec-cache"
    monkeypatch.setenv("ESM_CACHE_DIR", str(d))
    monkeypatch.delenv("ESM_CACHE", raising=False)
    return d


def blocks(copy: Path) -> int:
    return (copy / "docs" / PAGE).read_text(encoding="utf-8").count('exec="on"')


def built(copy: Path, site: Path) -> tuple[dict, str]:
    """Build PAGE; return the cache's counts and the page's HTML."""
    result = build(site, root=copy, pages=[PAGE])
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-3000:]
    m = SUMMARY.search(log)
    assert m, f"no cache summary in the log:\n{log[-2000:]}"
    counts = dict(zip(("reused", "ran", "ahead", "stale", "discarded", "html_reused", "html_made"), map(int, m.groups())))
    return counts, (site / PAGE[:-3] / "index.html").read_text(encoding="utf-8")


@dataclass
class Cold:
    """The unedited copy's first build with an empty cache: its counts, its page, and the cache
    it filled (every block of the page, in the build's own process)."""
    counts: dict
    html: str
    cache: Path


@pytest.fixture(scope="module")
def _cold(tmp_path_factory) -> tuple[Path, Cold]:
    """The first build of the tests that start from the unedited fixture with an empty cache,
    made once for this module (per pytest-xdist worker), in a fixture at a path of this worker:
    the cache records the fixture's files by path, so each test gets the fixture back at that
    same path (``cold_copy``) and a copy of that cache of its own."""
    mp = pytest.MonkeyPatch()
    root = make_fixture_project(tmp_path_factory.getbasetemp() / "cold-copy" / "project")
    cache = tmp_path_factory.mktemp("cold-cache") / "exec-cache"
    mp.setenv("ESM_JOBS", "1")
    mp.setenv("ESM_CACHE_DIR", str(cache))
    mp.delenv("ESM_CACHE", raising=False)
    try:
        counts, html = built(root, tmp_path_factory.mktemp("cold-site"))
    finally:
        mp.undo()
    return root, Cold(counts, html, cache)


@pytest.fixture
def cold_copy(_cold, tmp_path, cache_dir, monkeypatch) -> tuple[Path, Cold]:
    """The fixture as the cold build found it (made again, at the same path), and ``cache_dir``
    holding what that build stored: the test goes on from the cold build."""
    root, cold = _cold
    monkeypatch.setenv("ESM_JOBS", "1")
    make_fixture_project(root)
    shutil.copytree(cold.cache, cache_dir)
    return root, cold


def test_a_second_build_reuses_every_block_and_is_identical(cold_copy, tmp_path):
    copy, first = cold_copy
    n = blocks(copy)
    first, html1 = first.counts, first.html
    assert first["ran"] == n and first["reused"] == 0
    assert first["html_made"] == n and first["html_reused"] == 0
    second, html2 = built(copy, tmp_path / "s2")     # another process: a key must not hold an address
    assert second["reused"] == n and second["ran"] == 0
    assert second["html_reused"] == n and second["html_made"] == 0
    assert html1 == html2


def test_a_snippet_edit_reruns_only_its_blocks(fixture_project, tmp_path, cache_dir):
    copy = fixture_project
    page = copy / "docs" / PAGE                  # a second block, which the edit leaves alone
    page.write_text(page.read_text(encoding="utf-8") + '\n```python exec="on"\nprint("Another block.")\n```\n',
                    encoding="utf-8")
    n = blocks(copy)
    assert n == 2
    first, _ = built(copy, tmp_path / "s1")
    assert first["ran"] == n
    path = copy / "snippets" / DEMO
    path.write_text(path.read_text(encoding="utf-8") + "\nprint('Edited snippet output.')\n", encoding="utf-8")
    counts, html = built(copy, tmp_path / "s2")
    assert counts["ran"] == 1 and counts["reused"] == n - 1
    assert "Edited snippet output." in html and "Another block." in html


def test_an_esm_edit_reruns_every_block_that_imports_it(cold_copy, tmp_path):
    copy, _ = cold_copy
    n = blocks(copy)
    checks = copy / "snippets" / "esm" / "checks.py"     # a module of the package, imported by its __init__
    edit(checks, '    line = f"PASS{tag} {claim}{SEPARATOR}{detail}"',
         '    detail += " (edited esm)"\n    line = f"PASS{tag} {claim}{SEPARATOR}{detail}"')
    counts, html = built(copy, tmp_path / "s2")
    assert counts["ran"] == n and counts["reused"] == 0
    assert html.count("(edited esm)") == html.count('<div class="esm-check"') > 0


def test_a_data_file_edit_reruns_its_readers(fixture_project, tmp_path, cache_dir):
    np = pytest.importorskip("numpy")
    copy = fixture_project
    n = blocks(copy)
    data = copy / "data" / "weights.npy"
    data.parent.mkdir()
    np.save(data, np.arange(4.0))
    path = copy / "snippets" / DEMO
    path.write_text(path.read_text(encoding="utf-8")
                    + f"\nimport numpy as _np\nprint('Data sum:', _np.load({str(data)!r}, mmap_mode='r').sum())\n",
                    encoding="utf-8")
    counts, html = built(copy, tmp_path / "s1")
    assert "Data sum: 6.0" in html
    np.save(data, np.arange(5.0))
    counts, html = built(copy, tmp_path / "s2")
    assert counts["ran"] == 1 and counts["reused"] == n - 1
    assert "Data sum: 10.0" in html and "Data sum: 6.0" not in html


def _fake_distribution(where: Path, version: str) -> None:
    for old in where.glob("esmfakepkg-*.dist-info"):
        for f in old.iterdir():
            f.unlink()
        old.rmdir()
    info = where / f"esmfakepkg-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: esmfakepkg\nVersion: {version}\n")
    (info / "top_level.txt").write_text("esmfakepkg\n")
    (info / "RECORD").write_text("esmfakepkg/__init__.py,,\n")
    pkg = where / "esmfakepkg"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("VALUE = 1\n")


def test_a_package_version_change_reruns_everything_that_imports_it(fixture_project, tmp_path, cache_dir, monkeypatch):
    """A package esm imports changes version (its code unchanged): every block re-runs."""
    copy = fixture_project
    n = blocks(copy)
    where = tmp_path / "site-packages"
    _fake_distribution(where, "1.0")
    monkeypatch.setenv("PYTHONPATH", str(where))
    edit(copy / "snippets" / "esm" / "checks.py", "import numpy as np\n", "import numpy as np\nimport esmfakepkg  # noqa: F401\n")
    first, html1 = built(copy, tmp_path / "s1")
    assert first["ran"] == n
    again, _ = built(copy, tmp_path / "s2")
    assert again["reused"] == n
    _fake_distribution(where, "2.0")
    counts, html3 = built(copy, tmp_path / "s3")
    assert counts["ran"] == n and counts["reused"] == 0
    assert html3 == html1


def test_a_corrupt_entry_is_rerun_never_served(cold_copy, tmp_path, cache_dir):
    copy, cold = cold_copy
    n = blocks(copy)
    html1 = cold.html
    entries = sorted(cache_dir.rglob("*.json"))
    assert len(entries) >= n
    for k, entry in enumerate(entries):      # damaged three ways: garbage, cut short, tampered with
        text = entry.read_text(encoding="utf-8")
        if k % 3 == 0:
            entry.write_bytes(b"\x00garbage")
        elif k % 3 == 1:
            entry.write_text(text[: len(text) // 3], encoding="utf-8")
        else:
            entry.write_text(text.replace("PASS", "PASS (tampered)"), encoding="utf-8")
    counts, html2 = built(copy, tmp_path / "s2")
    assert counts["reused"] == 0 and counts["ran"] == n and counts["discarded"] >= n
    assert html2 == html1 and "tampered" not in html2


def _failing_block(root: Path, site: Path, pages: list[str], page: str, demo: str, cache_dir: Path,
                   fork: bool) -> list[Path]:
    """Build ``pages`` of ``root`` twice with a demo that raises: both builds fail naming page,
    block and demo; return the block entries the cache holds afterwards (none may be the failure)."""
    path = root / "snippets" / demo
    path.write_text(path.read_text(encoding="utf-8") + "\nraise RuntimeError('injected fault')\n", encoding="utf-8")
    logs = []
    for k in range(2):
        result = build(site / f"s{k}", root=root, pages=pages, fork=fork)
        log = result.stdout + result.stderr
        assert result.returncode != 0, log[-2000:]
        for needle in (page, demo, "RuntimeError: injected fault"):
            assert needle in log, log[-3000:]
        logs.append(log)
    stored = [p for p in cache_dir.rglob("*.json") if '"kind": "block"' in p.read_text(encoding="utf-8")]
    for p in stored:
        assert "injected fault" not in p.read_text(encoding="utf-8")
    return stored, logs


def test_a_failing_block_is_not_cached_and_fails_again(fixture_project, tmp_path, cache_dir):
    stored, logs = _failing_block(fixture_project, tmp_path, [PAGE], PAGE, DEMO, cache_dir, fork=True)
    assert "started ahead" not in logs[0]
    assert stored == []               # the page's one block is the failing one


def test_a_failing_block_run_ahead_in_workers_fails_the_real_book(copy, tmp_path, cache_dir, monkeypatch):
    """End to end, on a copy of the real book: two pages built with two workers, so their blocks
    run ahead in worker processes; the failing one fails there too, and the error still names
    page, block and demo; the cache never holds it. (In-workers: each build a process of its own.)"""
    pages = [REAL_PAGE, "part1/formal-definitions.md"]
    monkeypatch.setenv("ESM_JOBS", "2")
    n = sum((copy / "docs" / p).read_text(encoding="utf-8").count('exec="on"') for p in pages)
    stored, logs = _failing_block(copy, tmp_path, pages, REAL_PAGE, REAL_DEMO, cache_dir, fork=False)
    assert "started ahead" in logs[0], logs[0][-3000:]
    assert f"{REAL_PAGE}: executed block" in logs[0]
    assert len(stored) <= n - 1      # the build stops at the failing page; never the failing block


def test_the_cache_can_be_switched_off(fixture_project, tmp_path, cache_dir, monkeypatch):
    copy = fixture_project
    monkeypatch.setenv("ESM_CACHE", "0")
    for k in range(2):
        result = build(tmp_path / f"s{k}", root=copy, pages=[PAGE], fork=True)     # nothing compared across builds
        assert result.returncode == 0, result.stderr[-3000:]
        assert not SUMMARY.search(result.stdout + result.stderr)
    assert not cache_dir.exists()
