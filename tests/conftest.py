"""Shared fixtures: one strict build of the whole site per test session, and each demo
snippet run once on its own (outside mkdocs) so the two can be compared."""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import re
import runpy
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis.errors import InvalidArgument

from sitebuild import ROOT, build

# Speed targets live in `make bench`, not in timed unit tests: no per-example deadline, which a
# loaded 2-core machine trips for no fault of the code (make mutate's plugin sets its own profile).
try:
    settings.get_profile("mutmut")
except InvalidArgument:
    settings.register_profile("esm", deadline=None)
    settings.load_profile("esm")

SNIPPETS = ROOT / "snippets"
DOCS = ROOT / "docs"
INCLUDE = re.compile(r'--8<--\s+"([^"]+\.py)"')


def demo_snippets() -> list[Path]:
    """Every demo under snippets/ (the helper package esm/ is not a demo)."""
    return sorted(p for p in SNIPPETS.rglob("*.py") if "esm" not in p.relative_to(SNIPPETS).parts[:1]
                  and "__pycache__" not in p.parts)


#: The maintainers' docs (docs/dev/): excluded from the book (mkdocs.yml exclude_docs), not lessons.
DEV_DOCS = DOCS / "dev"


def pages() -> list[Path]:
    """Every page of the book's Markdown source (docs/dev/ is not part of the book)."""
    return sorted(p for p in DOCS.rglob("*.md") if not p.is_relative_to(DEV_DOCS))


def page_includes(page: Path) -> list[Path]:
    """The demos a page includes, in order: not esm's page-code modules, which P10 and P11 paste
    into fences of their own (the reader's code, tested as esm is)."""
    text = page.read_text(encoding="utf-8")
    # a block marked show="notebook" runs in the build for the page's notebook and shows nothing on the page
    hidden = set(re.findall(r'^[ \t]*```python exec="on"[^\n]*show="notebook"[^\n]*\n[ \t]*--8<-- "([^"]+)"', text, re.M))
    return [SNIPPETS / inc for inc in INCLUDE.findall(text) if not inc.startswith("esm/") and inc not in hidden]


def run_snippet(path: Path) -> str:
    """Run a demo in this process as the build runs its block (mkdocs_esm.execution.before_block
    and run_python: the same BLAS threads, namespace and print); return what it printed."""
    from mkdocs_esm import execution

    page, code, block_id = demo_block(path)
    try:
        with environ(MPLBACKEND=os.environ.get("MPLBACKEND", "Agg")):
            execution.before_block(None)
            return execution.run_python(code, 0, None, block_id)
    finally:
        import matplotlib.pyplot as plt
        plt.close("all")


@functools.cache
def _demo_blocks() -> dict[Path, tuple[str, str, str]]:
    """Each demo's block: (page, code, id) as the build plans it (mkdocs_esm.page.exec_blocks)."""
    from mkdocs_esm import page as pagemodel

    found: dict[Path, tuple[str, str, str]] = {}
    for page in pages():
        src = page.relative_to(DOCS).as_posix()
        for block in pagemodel.exec_blocks(pagemodel.read_file(page), src, SNIPPETS):
            if block.missing is None and not block.session:
                found.setdefault(block.code, (src, block.code, block.block_id))
    return {path: found[code] for path in demo_snippets()
            if (code := "\n".join(path.read_text(encoding="utf-8").splitlines()) + "\n") in found}


def demo_block(path: Path) -> tuple[str, str, str]:
    """(page, code, block id) of the page block that is this demo; every demo is one (test_snippets)."""
    try:
        return _demo_blocks()[path]
    except KeyError:
        raise AssertionError(f"{path.relative_to(SNIPPETS)} is the block of no page: the build never runs it") from None


def cached_output(cache_dir: Path, path: Path) -> str | None:
    """What the demo's block printed in the build that filled ``cache_dir``, if that entry is
    still valid (execcache checks its code, modules, files and package versions), else None."""
    from mkdocs_esm import execcache, execution

    _, code, block_id = demo_block(path)
    # one reader a cache for the run, as a build has one: its package versions are read once,
    # not once a demo (a scan of every installed distribution, 0.1 s each time)
    reader = _readers.get(cache_dir)
    if reader is None:
        reader = _readers[cache_dir] = execcache.ExecCache(cache_dir)
    # the build's environment as the key sees it (its process sets MPLBACKEND; no training cache)
    with environ(MPLBACKEND=os.environ.get("MPLBACKEND", "Agg")):
        return reader.get("block", execution._parts(code, block_id, 0, {}))


_readers: dict[Path, object] = {}


_runs: dict[Path, str] = {}
_shared: dict[str, Path] = {}     # "dir": where pytest-xdist's workers share demo outputs
#: Whether this run builds the site (`make test`): then the demos' outputs are the session
#: build's (set after the -m selection, by pytest_collection_modifyitems below).
_RUN = {"site": False}


def project_cache() -> Path:
    """The author's execution cache (`make serve`, `make build`): ESM_CACHE_DIR or .cache/esm-exec."""
    return Path(os.environ.get("ESM_CACHE_DIR") or ROOT / ".cache" / "esm-exec")


@pytest.fixture(scope="session")
def demo_output(request):
    """``demo_output(path)``: what the demo printed as its page's block, never run a second time
    for it: in a run that builds the site (`make test`), the session build's output, from its
    execution cache; otherwise (`make check`) the author's execution cache where its entry is
    valid, read only, and else the block run here, in-process, as the build runs it (once per
    run: pytest-xdist's workers share it). Under `make mutate` every demo runs (a cache knows
    nothing of mutants)."""
    mutating = bool(os.environ.get("MUTANT_UNDER_TEST"))
    cache = None
    if not mutating:
        cache = request.getfixturevalue("site").cache if _RUN["site"] else project_cache()

    def output(path: Path) -> str:
        if path not in _runs:
            hit = cached_output(cache, path) if cache is not None else None
            if hit is None and _RUN["site"] and not mutating:
                raise AssertionError(f"{path.relative_to(SNIPPETS)}: not in the session build's execution cache")
            _runs[path] = hit if hit is not None else _shared_run(path)
        return _runs[path]
    return output


def _shared_run(path: Path) -> str:
    """The demo run in-process, once per test run: under pytest-xdist the worker that runs it
    first writes its output where the other workers read it."""
    shared = _shared.get("dir")
    saved = shared / (path.relative_to(SNIPPETS).as_posix().replace("/", "__") + ".out") if shared else None
    if saved is not None and saved.is_file():
        return saved.read_text(encoding="utf-8")
    out = run_snippet(path)
    if saved is not None:
        tmp = saved.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(out, encoding="utf-8")
        os.replace(tmp, saved)
    return out


@pytest.fixture(scope="session", autouse=True)
def _share_demo_outputs(tmp_path_factory):
    """Under pytest-xdist, a directory of this run that every worker sees (no sharing without
    xdist: `make mutate` runs each mutant in a fork and must run every demo itself)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        _shared["dir"] = tmp_path_factory.getbasetemp().parent / "demo-outputs"
        _shared["dir"].mkdir(exist_ok=True)
    yield
    _shared.clear()


@pytest.fixture(scope="session", autouse=True)
def _share_font_subsets(tmp_path_factory):
    """Every build of this run (the site's, the copies', the served one) keeps its math font
    subsets in one cache of this run (mkdocs_esm/fontcache.py, keyed on font, characters, code and
    versions): a one-page build of the same page subsets the fonts once per run, not per build.
    Builds with ESM_CACHE=0 (the uncached build) still subset afresh."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    with environ(ESM_FONT_CACHE_DIR=str(base / "font-subsets")):
        yield


@dataclass
class Site:
    dir: Path
    log: str
    seconds: float
    cache: Path | None = None      # the execution cache the build filled (fresh for the session)

    def html(self, page: str) -> str:
        """The built HTML of a docs-relative page such as 'part1/intuition.md'."""
        stem = page[:-3]
        path = self.dir / ("index.html" if stem == "index" else f"{stem.removesuffix('/index')}/index.html")
        return path.read_text(encoding="utf-8")


@contextlib.contextmanager
def environ(**values: str | None):
    """Set (or, with None, remove) environment variables for the builds started inside."""
    old = {k: os.environ.get(k) for k in values}
    try:
        for k, v in values.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


#: (Not an ESM_ variable: those are inputs of every block's cache key, mkdocs_esm/execution.py.)
#: The session build's folder made beforehand (`tests/sitebuild.py --session DIR`: CI's build job
#: makes it once, with the published SITE_URL, and the test jobs share it): its site/, its
#: execution cache and its record are used as they are, nothing is built.
PREBUILT = "PREBUILT_SESSION"


def session_jobs() -> str:
    """The session build's worker processes (ESM_JOBS): as set, else under pytest-xdist the CPUs
    the other workers leave it, counting none for the worker that waits for it: on two CPUs with
    two xdist workers, 1 (its blocks in its own process: the other worker keeps the other CPU);
    alone (`tests/sitebuild.py --session`, CI's build job), one per CPU. Measured on 2 CPUs, a cold
    build: 2 workers 186 s wall, 49.4 s CPU; none 201 s, 44.2 s (docs/dev/decisions/0010-session-build-without-workers-under-xdist.md)."""
    if os.environ.get("ESM_JOBS"):
        return os.environ["ESM_JOBS"]
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)
    free = (os.cpu_count() or 1) - (workers - 1)
    return str(free if free >= 2 else 1) if workers > 1 else "0"


def session_build(base: Path) -> dict:
    """The session's strict build of the whole site into ``base``/site, with an empty execution
    cache of its own (``base``/site-exec-cache), its outcome recorded in ``base``/site.json; once
    per ``base`` (a lock: pytest-xdist's workers wait for the first one's)."""
    from filelock import FileLock

    base.mkdir(parents=True, exist_ok=True)
    out, cache, record = base / "site", base / "site-exec-cache", base / "site.json"
    with FileLock(str(base / "site.lock")):
        (base / "site.building").touch()         # the lock is held (_start_session_build waits for it)
        if not record.exists():
            start = time.perf_counter()
            with environ(ESM_CACHE=None, ESM_CACHE_DIR=str(cache), ESM_JOBS=session_jobs()):
                result = build(out)
            seconds = time.perf_counter() - start
            record.write_text(json.dumps({"returncode": result.returncode, "seconds": seconds,
                                          "log": result.stdout + result.stderr[-20000:]}))
    return json.loads(record.read_text())


def _run_base(tmp_path_factory) -> Path:
    """This run's folder, shared by pytest-xdist's workers (each has a folder of its own below it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def background_jobs() -> str:
    """ESM_JOBS of the session build started in the background (beside every test process of the
    run): the CPUs they leave it, and its blocks in its own process where that is one or none."""
    if os.environ.get("ESM_JOBS"):
        return os.environ["ESM_JOBS"]
    free = (os.cpu_count() or 1) - int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)
    return str(free if free >= 2 else 1)


@pytest.fixture(scope="session", autouse=True)
def _start_session_build(tmp_path_factory, _share_font_subsets):
    """In a run that needs the session build (`make test`), start it at once, in a process of its
    own (`tests/sitebuild.py --session`, the build the `site` fixture would make), so that it runs
    while the workers run the tests that need no build, not after them: without it, the first
    worker to reach a test that needs the site built it while the other waited for it once its own
    tests were done (the build is the run's longest task). The first worker to get here starts it
    and waits until the build holds its lock; `site` then waits for it, and makes the build itself
    if that process ended without one."""
    if not _RUN["site"] or os.environ.get(PREBUILT) or os.environ.get("MUTANT_UNDER_TEST"):
        yield
        return
    import subprocess
    import sys
    base = _run_base(tmp_path_factory)
    base.mkdir(parents=True, exist_ok=True)
    try:
        os.close(os.open(base / "site.started", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        yield
        return
    log = open(base / "site-background.log", "wb")      # noqa: SIM115 - open while the build runs
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "sitebuild.py"), "--session", str(base)],
                            stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
                            env={**os.environ, "ESM_JOBS": background_jobs()})
    deadline = time.monotonic() + 120
    while not (base / "site.building").exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield
    finally:
        proc.wait()                  # the other workers may still need it
        log.close()


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Site:
    """One strict build of the whole site for the whole run, shared by pytest-xdist's workers
    (started in the background as the run begins, `_start_session_build`, or else made by the
    first worker to need it; the others wait and read it). It runs with an
    empty execution cache of its own: every block and the notebook execute (each block ahead,
    in a worker process), and every test that reads a demo's output reads it from the cache it
    filled (conftest.demo_output); tests/test_build.py checks that a cached build is
    byte-identical. With $PREBUILT_SESSION, the build that folder holds (made by
    `tests/sitebuild.py --session`)."""
    if os.environ.get(PREBUILT):
        base = Path(os.environ[PREBUILT]).resolve()
        assert (base / "site.json").is_file(), f"${PREBUILT}: no session build in {base}"
    else:
        base = _run_base(tmp_path_factory)
    done = session_build(base)
    assert done["returncode"] == 0, f"strict build failed:\n{done['log'][-6000:]}"
    if os.environ.get("TIMED_PAGE_TIMES"):
        _write_page_times(Path(os.environ["TIMED_PAGE_TIMES"]), base / "site-exec-cache")
    return Site(base / "site", done["log"], done["seconds"], base / "site-exec-cache")


def page_execution_seconds(cache_dir: Path) -> dict[str, dict]:
    """Each page's cold execution time in the build that filled ``cache_dir``: the CPU seconds
    its blocks took to run, as the execution cache recorded them (execcache.put's ``seconds``),
    summed over the blocks the build planned for the page (execution.planned_blocks)."""
    from mkdocs_esm import execcache, execution

    cache = execcache.ExecCache(cache_dir)
    times: dict[str, dict] = {}
    with environ(MPLBACKEND=os.environ.get("MPLBACKEND", "Agg")):
        for page in pages():
            src = page.relative_to(DOCS).as_posix()
            text = re.sub(r"\A---\n.*?\n---\n", "", page.read_text(encoding="utf-8"), flags=re.S)
            row = times.setdefault(src, {"seconds": 0.0, "blocks": 0, "timed": 0})
            for code, block_id in execution.planned_blocks(text, src, SNIPPETS):
                row["blocks"] += 1
                try:
                    entry = json.loads(cache._path(cache.primary("block", execution._parts(code, block_id, 0, {}))).read_text())
                except (OSError, ValueError):
                    continue
                if "seconds" in entry:
                    row["seconds"] += entry["seconds"]
                    row["timed"] += 1
    return times


def _write_page_times(path: Path, cache_dir: Path) -> None:
    """For tools/timed.py (TIMED_PAGE_TIMES): each page's cold execution time, once per run."""
    if path.exists() and path.stat().st_size:
        return
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(page_execution_seconds(cache_dir)), encoding="utf-8")
    os.replace(tmp, path)


#: Slow tests of the session build, started first among those that need it (a long test at
#: the end would leave the other worker idle): the PDF, the link check, the page-by-page browser run.
_SLOW_WITH_SITE = ("tests/test_pdf.py",
                   "tests/test_links.py", "tests/browser/test_pages.py::test_page_in_browser")


def pytest_collection_modifyitems(config, items):
    """Tests that need the session's build run last: until one of them starts it, every
    worker runs tests that need no build. Within each group the slow ones come first (those
    that build a site, marked ``build``; the PDF, links and browser pages), so that
    pytest-xdist's work stealing ends the run on short tests."""
    def slow(item) -> int:
        for rank, prefix in enumerate(_SLOW_WITH_SITE):
            if item.nodeid.startswith(prefix):
                return -len(_SLOW_WITH_SITE) + rank
        return 0 if item.get_closest_marker("build") is not None else 1

    def needs_site(item) -> bool:     # the browser tests get it through their `built` fixture
        return bool({"site", "built"} & set(getattr(item, "fixturenames", ())))

    for item in items:                # `make check` leaves them out: -m "not build and not site"
        names = set(getattr(item, "fixturenames", ()))
        if needs_site(item):
            item.add_marker(pytest.mark.site)
        if {"copy", "warm_copy", "fixture_project"} & names:
            item.add_marker(pytest.mark.build)
        if item.nodeid.startswith("tests/browser/"):
            item.add_marker(pytest.mark.browser)
    _record_all_marks(config, items)
    # tests that read the demos' outputs go with those that need the build, whose cache holds them
    items.sort(key=lambda item: (needs_site(item) or "demo_output" in getattr(item, "fixturenames", ()), slow(item)))


_ALL_MARKS = pytest.StashKey[list]()


def _record_all_marks(config, items) -> None:
    """Every test with its markers, kept when this process collected the whole suite (each test
    file; before -m, -k or --deselect took tests out)."""
    tests = Path(__file__).resolve().parent
    files = {Path(str(item.path)).resolve() for item in items}
    on_disk = {p.resolve() for p in tests.rglob("test_*.py") if "__pycache__" not in p.parts}
    if not config.getoption("deselect") and on_disk <= files:
        config.stash[_ALL_MARKS] = list(items)     # read after every plugin marked them (hypothesis)


@pytest.fixture(scope="session")
def suite_marks(pytestconfig) -> dict[str, set[str]] | None:
    """Every test of the suite with its markers (those this conftest sets included) if this run
    collected the whole suite (`make test`, `make check`, a CI part), else None:
    tests/test_workflows.py reads the tiers' and CI's selections from it instead of collecting
    the suite again in a subprocess (about 10 CPU-s)."""
    items = pytestconfig.stash.get(_ALL_MARKS, None)
    return None if items is None else {item.nodeid: {m.name for m in item.iter_markers()} for item in items}


def pytest_runtest_logreport(report):
    """Each test's time, for tools/timed.py's time per page (TIMED_TEST_TIMES: a file of JSON lines),
    written once: by pytest-xdist's controller, which receives every worker's reports."""
    path = os.environ.get("TIMED_TEST_TIMES")
    if path and not os.environ.get("PYTEST_XDIST_WORKER"):
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"nodeid": report.nodeid, "when": report.when, "duration": report.duration}) + "\n")


def pytest_collection_finish(session):
    """After the -m selection: whether this run builds the site (`make test`) or not (`make check`).
    With COLLECTED_MARKS=path, each test's markers are written there (tests/test_workflows.py
    reads the tiers' and CI's selections from one collection)."""
    _RUN["site"] = any(item.get_closest_marker("site") is not None for item in session.items)
    if os.environ.get("COLLECTED_MARKS"):
        Path(os.environ["COLLECTED_MARKS"]).write_text(json.dumps(
            {item.nodeid: sorted({m.name for m in item.iter_markers()}) for item in session.items}))


def demo_namespace(rel: str) -> dict:
    """The globals of a demo (``part2/training-embeddings/sgns``, no ``.py``) after it ran,
    its printed output discarded: tests recompute its claims from its own arrays. The demo runs
    once per process: each call gets its own copy of the dict and of its arrays."""
    import numpy as np
    return {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in _demo_globals(rel).items()}


@functools.cache
def _demo_globals(rel: str) -> dict:
    with contextlib.redirect_stdout(io.StringIO()):
        ns = runpy.run_path(str(SNIPPETS / f"{rel}.py"))
    import matplotlib.pyplot as plt
    plt.close("all")
    return ns


# -- fault injection: a temporary copy of the project, built one page at a time ----------------

def _empty_but_its_cache(dst: Path) -> None:
    """Make ``dst`` an empty folder but for its execution cache (``.cache``), kept between builds."""
    import shutil
    dst.mkdir(parents=True, exist_ok=True)
    for old in dst.iterdir():
        if old.name == ".cache":
            continue
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old)
        else:
            old.unlink()


def _copy_project(dst: Path) -> Path:
    """Copy the project's sources into ``dst``, emptied first except for its execution cache."""
    import shutil
    _empty_but_its_cache(dst)
    for name in ("docs", "snippets", "overrides"):
        shutil.copytree(ROOT / name, dst / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("mkdocs.yml", "package.json"):
        shutil.copy2(ROOT / name, dst / name)
    (dst / "node_modules").symlink_to(ROOT / "node_modules")
    return dst


#: The fault-injection fixture's own files (tests/fixture/README.md): a one-page book.
FIXTURE = Path(__file__).parent / "fixture"
FIXTURE_NAV = "nav:\n  - Home: index.md\n  - Lesson: part1/lesson.md\n  - Notebook: notebook/theory.py\n" \
              "  - References: references.md\n"


def make_fixture_project(dst: Path) -> Path:
    """The fixture book in ``dst`` (emptied first, but for its execution cache): the book's
    mkdocs.yml with the fixture's nav, its theme overrides, its assets (stylesheets, scripts,
    images) and its `esm` helpers, with the fixture's pages, demo, notebook and bibliography."""
    import shutil
    _empty_but_its_cache(dst)
    shutil.copytree(ROOT / "overrides", dst / "overrides", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(SNIPPETS / "esm", dst / "snippets" / "esm", ignore=shutil.ignore_patterns("__pycache__"))
    for path in DOCS.rglob("*"):
        rel = path.relative_to(DOCS)
        if path.is_file() and path.suffix not in (".md", ".ipynb", ".py", ".bib", ".yml") and rel.parts[0] != "dev":
            (dst / "docs" / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, dst / "docs" / rel)
    shutil.copytree(FIXTURE / "docs", dst / "docs", dirs_exist_ok=True)
    shutil.copytree(FIXTURE / "snippets", dst / "snippets", dirs_exist_ok=True)
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    head, sep, _ = config.partition("\nnav:\n")
    assert sep, "mkdocs.yml has no nav"
    (dst / "mkdocs.yml").write_text(head + "\n" + FIXTURE_NAV, encoding="utf-8")
    shutil.copy2(ROOT / "package.json", dst / "package.json")
    (dst / "node_modules").symlink_to(ROOT / "node_modules")
    return dst


@pytest.fixture
def fixture_project(tmp_path, monkeypatch) -> Path:
    """The fixture book (tests/fixture/) to inject a fault into, with an empty execution cache of
    its own; its one block runs in the build's own process (ESM_JOBS=1)."""
    monkeypatch.setenv("ESM_JOBS", "1")
    monkeypatch.setenv("ESM_CACHE_DIR", str(tmp_path / "exec-cache"))
    monkeypatch.delenv("ESM_CACHE", raising=False)
    return make_fixture_project(tmp_path / "fixture")


@pytest.fixture
def copy(tmp_path, monkeypatch) -> Path:
    """A copy of the project (docs, snippets, hooks, config) to inject a fault into; its
    execution cache (copy/.cache/esm-exec) starts empty: every block the build needs runs,
    in the build's own process (ESM_JOBS=1): two worker processes started for the seven blocks
    of a one-page build cost more CPU than they save on two shared cores. The workers' route
    is tested by the session build (every block ahead) and by test_cache_faults' in-workers
    failure, which sets ESM_JOBS=2."""
    monkeypatch.setenv("ESM_JOBS", "1")
    return _copy_project(tmp_path / "project")


@pytest.fixture
def warm_copy(tmp_path_factory, monkeypatch) -> Path:
    """A fresh copy of the project for a fault that is not about execution (a formula, a label,
    a citation, an include, a heading, a computed-prose name): always at the same path in this
    worker, restored from the project before each test, with its own execution cache kept
    across tests. A block whose code, modules or files are unchanged is reused (the cache
    validates each entry against this copy's files, as in `make serve`); a block the fault
    changes runs (in the build's own process, as with `copy`). Faults of execution itself use
    `copy` (a cold cache)."""
    monkeypatch.setenv("ESM_JOBS", "1")
    return _copy_project(tmp_path_factory.getbasetemp() / "warm-copy" / "project")


def edit(path: Path, old: str, new: str) -> None:
    """Replace the one occurrence of ``old`` in ``path`` (the fault target must be unique)."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"fault target {old!r} not found once in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def build_fails(root: Path, site: Path, page: str, *needles: str, strict: bool = True) -> str:
    """Build ``page`` of the project at ``root``; assert it fails and its log holds ``needles``.
    One build whose log is the point: it runs forked from sitebuild's Forker (mkdocs and its
    plugins imported once per test process, not once per build)."""
    result = build(site, root=root, pages=[page], strict=strict, fork=True)
    log = result.stdout + result.stderr
    assert result.returncode != 0, f"the build passed despite the fault:\n{log[-2000:]}"
    for needle in needles:
        assert needle in log, f"{needle!r} not in the build log:\n{log[-3000:]}"
    return log
