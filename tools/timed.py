"""Run a command (`make test`, `make check`), then print how long it took and how fast the host is.

    python tools/timed.py "make test" -- .venv/bin/python -m pytest -n auto
    python tools/timed.py --index-only     # only the host's CPU index

The closing line gives the wall time, the CPU time of the command and of every process it
started and waited for (user + sys: pytest, its xdist workers, the builds, the demos, the browsers),
and the host's CPU index, so that two hosts, or two moments of one host, can be compared:

    make test: 301.2 s wall, 498.7 s CPU (user 471.0 + sys 27.7), CPU index 1187 (...); load 1.9 at start

The CPU index is Lighthouse's BenchmarkIndex (what `make lighthouse` prints in its "CPU index"
column, from each report's environment.benchmarkIndex): Lighthouse's own function
``computeBenchmarkIndex`` (node_modules/lighthouse/core/lib/page-functions.js; older releases
called it ``ultradumbBenchmark``), taken from the pinned Lighthouse and run as Lighthouse runs it,
inside a page of Debian's Chromium (driven by Playwright, as the browser tests drive it: its
chromium-headless-shell where installed, the V8 of the same Chromium release as the chromium
Lighthouse drives, in a browser that starts in half the time), the median of three runs of
about one second each, after the command. Like Lighthouse's, the index counts iterations in a
fixed time: on a loaded host it falls with the share of a CPU the benchmark gets (the line
gives the load average for that reason). Where no Chromium is found
(`make check` does not need one) it runs in node instead, and says so: node's V8 scores the
same function about four times lower than Chromium's, so the two are not to be compared.

When the command is pytest, the suite's time per page is printed before that line: each test's
time (its call, as pytest reports it; TIMED_TEST_TIMES, written by tests/conftest.py) summed by the
page of the book it is about (a parameter naming a page or one of its demos, or the page's own
test file tests/<part>/test_<page>.py), then the book-wide tests and the fixtures' set-up (the
session build, the fixture copies). A new chapter's line shows what it adds to `make test`.
Beside each page's time, its cold execution time: the CPU seconds its blocks took to run in the
session build (recorded in that build's execution cache; TIMED_PAGE_TIMES, written by
tests/conftest.py), and the ratio of the two; a page whose tests take more than twice its cold
execution time is flagged (issue 46: a new chapter adds to `make test` at most twice that).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import measurements

ROOT = Path(__file__).resolve().parents[1]
LIGHTHOUSE = ROOT / "node_modules" / "lighthouse"
PAGE_FUNCTIONS = LIGHTHOUSE / "core" / "lib" / "page-functions.js"
RUNS = 3


def benchmark_source() -> str:
    """The source of Lighthouse's computeBenchmarkIndex, as Lighthouse sends it to the page."""
    code = (f"import {{pageFunctions}} from {json.dumps(PAGE_FUNCTIONS.as_uri())};"
            "process.stdout.write(pageFunctions.computeBenchmarkIndex.toString());")
    done = subprocess.run(["node", "--input-type=module", "-e", code], capture_output=True, text=True, timeout=60)
    if done.returncode != 0 or "function computeBenchmarkIndex" not in done.stdout:
        raise RuntimeError(f"cannot read Lighthouse's benchmark: {done.stderr.strip()[-300:]}")
    return done.stdout


def index_in_chromium(source: str, chromium: str) -> list[float]:
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(ROOT / "tests"))
    from screenshot import CHROMIUM_ARGS

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            return [float(page.evaluate(f"({source})()")) for _ in range(RUNS)]
        finally:
            browser.close()


def index_in_node(source: str) -> list[float]:
    code = f"const f = {source};\nfor (let k = 0; k < {RUNS}; k++) console.log(f());"
    done = subprocess.run(["node", "-e", code], capture_output=True, text=True, timeout=60, check=True)
    return [float(v) for v in done.stdout.split()]


def cpu_index() -> str:
    """``"1187 (Lighthouse 12.8.2's computeBenchmarkIndex in chromium, median of 3)"``, or why not."""
    try:
        version = json.loads((LIGHTHOUSE / "package.json").read_text())["version"]
        source = benchmark_source()
    except (OSError, RuntimeError, subprocess.SubprocessError, ValueError) as e:
        return f"unknown (Lighthouse not installed? `make deps`: {e})"
    sys.path.insert(0, str(ROOT / "tests"))
    from screenshot import find_chromium

    chromium = find_chromium(headless_shell=True)
    where = Path(chromium).name if chromium else "node (not comparable with Lighthouse's: no Chromium found)"
    try:
        values = index_in_chromium(source, chromium) if chromium else index_in_node(source)
    except Exception as e:                  # noqa: BLE001 - the timing line is printed all the same
        return f"unknown ({type(e).__name__}: {str(e)[:200]})"
    return (f"{statistics.median(values):.0f} (Lighthouse {version}'s computeBenchmarkIndex in {where}, "
            f"median of {len(values)}: {', '.join(f'{v:.0f}' for v in values)})")


def page_of(nodeid: str, pages: set[str]) -> str | None:
    """The page of the book a test is about: ``part1/intuition.md`` for
    ``tests/browser/test_pages.py::test_page_in_browser[part1/intuition.md]``,
    ``tests/test_snippets.py::test_snippet_runs_and_passes[part1/intuition/lookup.py]`` and
    ``tests/part1/test_intuition.py::test_x``; None for a book-wide test."""
    import re
    param = re.search(r"\[(.*)\]$", nodeid)
    if param:
        for word in re.findall(r"[\w./-]+", param[1]):
            stem = word.rsplit(".", 1)[0] if word.endswith((".md", ".py")) else word
            for cand in (f"{stem}.md", f"{stem.rsplit('/', 1)[0]}.md", f"{stem}/index.md"):
                if cand in pages:
                    return cand
    m = re.match(r"tests/(part\d|primer|notebook)/test_(\w+)\.py::", nodeid)
    if m:
        cand = f"{m[1]}/{m[2].replace('_', '-')}.md"
        if cand in pages:
            return cand
    return None


#: A page's tests may take at most this many times its cold execution time (issue 46), beyond
#: what every page pays whatever it holds (``fixed_cost``).
BUDGET = 2.0
BROWSER_VISIT = "tests/browser/test_pages.py::test_page_in_browser["


def fixed_cost(calls: dict[str, float], notebooks: list[dict]) -> tuple[float, str]:
    """What the suite spends on a page whatever its demos hold, measured in the same run: the
    median browser visit (one a page) and the median kernel start (a notebook's run less the
    time its demos' cells took). Returns the seconds and how they were made."""
    visits = [sec for nodeid, sec in calls.items() if nodeid.startswith(BROWSER_VISIT)]
    starts = [max(0.0, n["run_s"] - n["demos_s"]) for n in notebooks]
    visit = statistics.median(visits) if visits else 0.0
    start = statistics.median(starts) if starts else 0.0
    return visit + start, (f"a browser visit {visit:.1f} s (median of {len(visits)}) + a kernel's start "
                           f"{start:.1f} s (median of {len(starts)} notebooks, each run less its demos' cells)")


def times_per_page(path: Path, executed: dict[str, dict] | None = None, notebooks: list[dict] | None = None) -> str:
    """The table of the suite's time per page, from the test times in ``path`` (JSON lines),
    beside each page's cold execution time in the session build (``executed``: page ->
    {"seconds", "blocks", "timed"}) and the page's budget: BUDGET times that, plus the fixed
    cost of a page (``fixed_cost``, from ``notebooks``: the page notebooks' run and demo times);
    a page over its budget is flagged."""
    import collections
    docs = ROOT / "docs"
    pages = {p.relative_to(docs).as_posix() for p in docs.rglob("*.md") if "dev" not in p.relative_to(docs).parts}
    pages |= {"notebook/theory.md"} if (docs / "notebook" / "theory.py").exists() else set()
    calls: dict[str, float] = collections.Counter()
    counts: dict[str, int] = collections.Counter()
    by_test: dict[str, float] = {}
    setup = 0.0
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec["when"] != "call":
            setup += rec["duration"]
            continue
        by_test[rec["nodeid"]] = rec["duration"]
        page = page_of(rec["nodeid"].replace("notebook/theory.py", "notebook/theory.md"), pages) or "(book-wide tests)"
        calls[page] += rec["duration"]
        counts[page] += 1
    if not calls:
        return ""
    executed = executed or {}
    fixed, how = fixed_cost(by_test, notebooks or [])
    rows = [f"{'tests, s':>10}  {'tests':>5}  {'cold, s':>8}  {'budget':>7}  page (summed test time; under xdist, "
            f"time of the worker that ran each; cold: CPU of its blocks in the session build; "
            f"budget: {BUDGET:g}x cold + {fixed:.1f} s a page)"]
    over = []
    for page, sec in sorted(calls.items(), key=lambda kv: -kv[1]):
        run = executed.get(page)
        if run and run["timed"]:
            budget = BUDGET * run["seconds"] + fixed
            flag = "  OVER" if sec > budget else ""
            if flag:
                over.append(page)
            rows.append(f"{sec:10.1f}  {counts[page]:5d}  {run['seconds']:8.1f}  {budget:7.1f}  {page}{flag}")
        else:
            rows.append(f"{sec:10.1f}  {counts[page]:5d}  {'-':>8}  {'-':>7}  {page}")
    rows.append(f"{setup:10.1f}  {'':5}  {'':8}  {'':7}  (set-up and tear-down of fixtures: the session build, the fixture books, browsers)")
    if executed:
        rows.append(f"a page's fixed cost: {how}")
        rows.append(f"{len(over)} of {sum(1 for p in calls if executed.get(p, {}).get('timed'))} pages with demos "
                    f"take more than {BUDGET:g}x their cold execution time plus a page's fixed cost in the suite"
                    + (f": {', '.join(over)}" if over else ""))
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("label", nargs="?", default="command")
    parser.add_argument("--index-only", action="store_true")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.index_only:
        print(f"CPU index {cpu_index()}")
        return 0
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command to run")
    load = os.getloadavg()[0]
    import tempfile
    fd, times = tempfile.mkstemp(prefix="esm-test-times-", suffix=".jsonl")
    os.close(fd)
    fd, executed = tempfile.mkstemp(prefix="esm-page-times-", suffix=".json")
    os.close(fd)
    fd, notebooks = tempfile.mkstemp(prefix="esm-notebook-times-", suffix=".jsonl")
    os.close(fd)
    start = time.perf_counter()
    pytest = any("pytest" in word for word in command)          # `make mutate`'s runs are not the suite
    proc = subprocess.Popen(command, env=dict(os.environ, TIMED_TEST_TIMES=times, TIMED_PAGE_TIMES=executed,
                                                      TIMED_NOTEBOOK_TIMES=notebooks)
                            if pytest else None)
    try:
        code = proc.wait()
    except KeyboardInterrupt:
        proc.send_signal(signal.SIGINT)
        code = proc.wait()
    wall = time.perf_counter() - start
    # Every child this process waited for, and every descendant they waited for in turn.
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        text = Path(executed).read_text(encoding="utf-8")
        runs = [json.loads(line) for line in Path(notebooks).read_text(encoding="utf-8").splitlines() if line]
        table = times_per_page(Path(times), json.loads(text) if text else None, runs)
        if os.environ.get("TIMED_KEEP"):        # the raw records, to study a run
            keep = Path(os.environ["TIMED_KEEP"])
            keep.mkdir(parents=True, exist_ok=True)
            Path(times).replace(keep / "test-times.jsonl")
            if text:
                (keep / "page-times.json").write_text(text, encoding="utf-8")
            Path(notebooks).replace(keep / "notebook-times.jsonl")
    finally:
        for name in (times, executed, notebooks):
            Path(name).unlink(missing_ok=True)
    if table:
        print(f"\n{args.label}: the suite's time per page\n{table}", flush=True)
    index = cpu_index()
    print(f"\n{args.label}: {wall:.1f} s wall, {usage.ru_utime + usage.ru_stime:.1f} s CPU "
          f"(user {usage.ru_utime:.1f} + sys {usage.ru_stime:.1f}), CPU index {index}; "
          f"load average {load:.1f} at start, {os.cpu_count()} CPUs", flush=True)
    measurements.record("timed", args.label,
                        {"exit": code, "wall_s": round(wall, 1), "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
                         "user_s": round(usage.ru_utime, 1), "sys_s": round(usage.ru_stime, 1)},
                        cpu_index=index, load_start=round(load, 2))
    return code


if __name__ == "__main__":
    sys.exit(main())
