"""`make bench`: how long authors wait, as medians over several rounds, on a copy of the project.

    python tools/bench.py                  # 3 rounds, this project
    python tools/bench.py --rounds 5 --out /tmp/bench.md
    python tools/bench.py --bare           # only run the lesson code, once (what "bare" times)
    python tools/bench.py --runs --rounds 1   # only the training runs' CPU, cold and kept
    python tools/bench.py --root /path/to/other/checkout   # the same table for another tree

Rows (each a whole process or a whole rebuild, wall-clock seconds):

- bare execution: every executed block of every page (its snippets pasted in, as the build
  does) and every code cell of the theory notebook, in one plain Python process;
- clean strict build: ``mkdocs build --strict`` with an empty execution cache, as in a fresh
  clone (blocks run ahead in worker processes, one per CPU);
- uncached strict build: the same with the execution cache off (``ESM_CACHE=0``, as CI builds
  once): every block runs in the build's own process, one after the other;
- warm build: the same with a full execution cache and nothing changed;
- ``mkdocs serve``: the time from saving an edit until the served page shows it (a sentence
  added to a page's prose, a line printed by one snippet, words added to a Markdown cell of the
  theory notebook) or until the rebuild is done (an edit to ``snippets/esm/checks.py``, which every
  block imports).

Each round times bare, clean and warm one after the other, so that the ratios to bare are taken
pair by pair on a machine whose speed drifts; the table gives the median time and the median
ratio. The table is printed and written to ``.cache/bench.md`` (or ``--out``).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import measurements

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from sitebuild import FAILED, ServeProcess, load_hook, mkdocs_bin  # noqa: E402  (the tests' builds and serve)

PAGE = "part1/intuition.md"
SNIPPET = "part1/intuition/lookup.py"
NOTEBOOK = load_hook("notebook").NOTEBOOK     # the theory notebook's source
NOTEBOOK_PROSE = "# each id is only an address"      # in a Markdown cell
_FENCE = re.compile(r'^(?P<indent>[ \t]*)(?P<mark>`{3,}|~{3,})[ \t]*python\b(?P<attrs>[^\n]*)$')
_INCLUDE = re.compile(r'^[ \t]*--8<--\s+"([^"]+)"\s*$')


# -- bare execution ----------------------------------------------------------------------------

def executed_blocks(root: Path) -> list[tuple[str, str]]:
    """(page, code) of every ``exec="on"`` Python fence, snippets pasted in."""
    out = []
    for page in sorted((root / "docs").rglob("*.md")):
        lines = page.read_text(encoding="utf-8").split("\n")
        i = 0
        while i < len(lines):
            m = _FENCE.match(lines[i])
            if not m:
                i += 1
                continue
            end = next((j for j in range(i + 1, len(lines))
                        if lines[j].strip().startswith(m["mark"]) and not lines[j].strip().strip(m["mark"][0])),
                       len(lines))
            if re.search(r'\bexec="(?:on|1|true|yes)"', m["attrs"]):
                body = []
                for line in lines[i + 1:end]:
                    inc = _INCLUDE.match(line)
                    body.append((root / "snippets" / inc[1]).read_text(encoding="utf-8") if inc
                                else line[len(m["indent"]):])
                out.append((page.relative_to(root / "docs").as_posix(), "\n".join(body)))
            i = end + 1
    return out


def notebook_code(root: Path) -> list[str]:
    """The code cells of the theory notebook as the build makes it (helper cell filled), without
    the setup cells that write esm (here esm is imported from snippets/)."""
    source = root / "docs" / "notebook" / "theory.py"
    if not source.exists():
        return []
    nb = load_hook("notebook", root).build_notebook(source, root / "snippets" / "esm")
    is_setup = load_hook("nbmake", root).is_setup
    return [c.source for c in nb.cells if c.cell_type == "code" and not is_setup(c)]


def run_bare(root: Path) -> int:
    """Run the lesson code of ``root`` in this process; exit status 1 if any block fails."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    sys.path.insert(0, str(root / "snippets"))
    blocks = executed_blocks(root)
    cells = notebook_code(root)
    failed = 0
    for page, code in blocks:
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf):
                exec(compile(code, f"<{page}>", "exec"), {"__name__": "__main__"})
        except Exception as error:      # noqa: BLE001 - counted and reported
            failed += 1
            print(f"{page}: {type(error).__name__}: {error}", file=sys.stderr)
    namespace: dict = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()):
        for code in cells:
            exec(compile(code, "<notebook>", "exec"), namespace)
    import matplotlib.pyplot as plt
    plt.close("all")
    print(f"bare: {len(blocks)} blocks and {len(cells)} notebook cells", file=sys.stderr)
    return 1 if failed else 0


# -- the project copy and its builds -----------------------------------------------------------

def project_copy(root: Path, dst: Path) -> Path:
    for name in ("docs", "snippets", "overrides", "tests"):
        shutil.copytree(root / name, dst / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("mkdocs.yml", "package.json"):
        shutil.copy2(root / name, dst / name)
    (dst / "node_modules").symlink_to((root / "node_modules").resolve())
    return dst


def env_for(cache: Path | None) -> dict:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", SOURCE_DATE_EPOCH=os.environ.get("SOURCE_DATE_EPOCH", "0"))
    env.pop("ESM_CACHE", None)
    env.pop("ESM_CACHE_DIR", None)
    if cache is None:
        env["ESM_CACHE"] = "0"
    else:
        env["ESM_CACHE_DIR"] = str(cache)
    return env


def timed(cmd: list[str], *, cwd: Path, env: dict) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    return seconds


# -- the training runs of the primer (P11's, its ablation, P16's modern block) -----------------------

#: The runs the book trains, each as its pages ask for it (the same inputs, so the same run): the
#: settings' expression in esm.train and the snapshot steps.
TRAIN_RUNS = {"P11's run (GPT-2's block)": "et.TRAIN, snapshots=et.SNAPSHOTS",
              "P11's ablation (no attention)": "et.ABLATION",
              "P16's modern block": "et.MODERN"}

TRAIN_RUN = ("import os, sys; sys.path.insert(0, 'snippets'); from pathlib import Path; "
             "import esm.tokenizer as tk, esm.train as et; from mkdocs_esm.runs import Runs; "
             "et.store = Runs(Path(os.environ['RUNS']), Path('snippets/esm')); D = tk.data(); "
             "et.trained(D.train, D.val, tk.VOCAB_SIZE, {run})")


def training_cpu(project: Path, python: str, cache: Path, run: str) -> float:
    """CPU seconds (user + system) of one training run (an expression of TRAIN_RUNS) in a fresh
    process, its runs kept in ``cache``: an empty folder times the run itself, a filled one its reuse."""
    import resource
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    timed([python, "-c", TRAIN_RUN.format(run=run)], cwd=project, env=dict(env_for(None), RUNS=str(cache)))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def training_rows(project: Path, python: str, work: Path, rounds: int) -> tuple[str, dict]:
    """Each run of TRAIN_RUNS timed cold (no run kept, as in a clean build) and kept, medians of
    ``rounds``: the text for the table and the figures for measurements.jsonl."""
    runs, lines, figures = work / "train-runs", [], {}
    for name, run in TRAIN_RUNS.items():
        cold_cpu, warm_cpu = [], []
        for k in range(rounds):
            print(f"round {k + 1}/{rounds}: {name}, clean then reused ...", file=sys.stderr)
            shutil.rmtree(runs, ignore_errors=True)
            cold_cpu.append(training_cpu(project, python, runs, run))
            warm_cpu.append(training_cpu(project, python, runs, run))
        cold, kept = statistics.median(cold_cpu), statistics.median(warm_cpu)
        lines.append(f"| {name} | {cold:.1f} | {kept:.1f} |")
        figures[name] = {"cold": round(cold, 1), "kept": round(kept, 1)}
    text = ("\nThe training runs (snippets/esm/train.py, one BLAS thread), CPU seconds (user + system) of a fresh "
            f"process, medians of {rounds}: cold, with no run kept (a clean build), and kept (corpus and BPE included; "
            "a warm build reuses the blocks' output and runs neither).\n\n| run | cold | kept |\n|---|---:|---:|\n"
            + "\n".join(lines) + "\n")
    return text, figures


# -- mkdocs serve --------------------------------------------------------------------------------

class Server(ServeProcess):
    """``mkdocs serve`` of a copy of the project; when each build ends; what it serves."""

    def __init__(self, project: Path, cache: Path) -> None:
        super().__init__(project, env_for(cache))
        self.wait_built(600)

    def wait_built(self, timeout: float) -> float:
        """Time at which the server logged the end of its next build (sitebuild.ServeProcess)."""
        lines, at = self.next_build(timeout)
        if FAILED in lines[-1]:
            raise SystemExit("mkdocs serve failed:\n" + "".join(lines[-40:]))
        return at

    def page(self, rel: str) -> str:
        url = f"http://127.0.0.1:{self.port}/{rel[:-3]}/"
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.read().decode("utf-8")

    def until_shown(self, rel: str, text: str, start: float, timeout: float = 300) -> float:
        while time.perf_counter() - start < timeout:
            try:
                if text in self.page(rel):
                    return time.perf_counter() - start
            except OSError:
                pass
            time.sleep(0.02)
        raise SystemExit(f"{text!r} never showed in {rel}")


def serve_edits(project: Path, cache: Path, rounds: int) -> dict[str, list[float]]:
    server = Server(project, cache)
    times: dict[str, list[float]] = {"prose": [], "snippet": [], "notebook": [], "esm": []}
    page, snippet, esm = project / "docs" / PAGE, project / "snippets" / SNIPPET, project / "snippets" / "esm" / "checks.py"
    notebook = project / "docs" / NOTEBOOK
    originals = {p: p.read_text(encoding="utf-8") for p in (page, snippet, notebook, esm)}
    try:
        for k in range(rounds):
            time.sleep(0.5)
            server.drain()
            marker = f"Bench prose marker {k}."
            start = time.perf_counter()
            page.write_text(originals[page] + f"\n{marker}\n", encoding="utf-8")
            times["prose"].append(server.until_shown(PAGE, marker, start))
            server.wait_built(300)
            time.sleep(0.5)
            server.drain()
            marker = f"Bench snippet marker {k}."
            start = time.perf_counter()
            snippet.write_text(originals[snippet] + f"\nprint({marker!r})\n", encoding="utf-8")
            times["snippet"].append(server.until_shown(PAGE, marker, start))
            server.wait_built(300)
            time.sleep(0.5)
            server.drain()
            marker = f"bench notebook marker {k}"
            start = time.perf_counter()
            notebook.write_text(originals[notebook].replace(NOTEBOOK_PROSE, f"{NOTEBOOK_PROSE}, {marker},", 1),
                                encoding="utf-8")
            times["notebook"].append(server.until_shown(NOTEBOOK, marker, start))
            server.wait_built(300)
            time.sleep(0.5)
            server.drain()
            start = time.perf_counter()
            esm.write_text(originals[esm] + f"\n# bench edit {k}\n", encoding="utf-8")
            times["esm"].append(server.wait_built(600) - start)
    finally:
        for path, text in originals.items():
            path.write_text(text, encoding="utf-8")
        server.close()
    return times


# -- the table ---------------------------------------------------------------------------------

def table(rows: list[tuple[str, list[float], list[float] | None]], rounds: int, note: str) -> str:
    out = [f"| step ({rounds} rounds, wall seconds) | median | min | max | median ratio to bare |",
           "| --- | ---: | ---: | ---: | ---: |"]
    for name, values, ratios in rows:
        ratio = f"{statistics.median(ratios):.2f}x" if ratios else ""
        out.append(f"| {name} | {statistics.median(values):.2f} | {min(values):.2f} | {max(values):.2f} | {ratio} |")
    return "\n".join(out) + f"\n\n{note}\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--root", type=Path, default=ROOT, help="the project tree to measure")
    parser.add_argument("--out", type=Path, default=ROOT / ".cache" / "bench.md")
    parser.add_argument("--bare", action="store_true", help="run the lesson code once and exit")
    parser.add_argument("--no-serve", action="store_true", help="skip the mkdocs serve rows")
    parser.add_argument("--runs", action="store_true", help="only time the training runs, cold and kept")
    args = parser.parse_args()
    root = args.root.resolve()
    if args.bare:
        return run_bare(root)
    if args.runs:
        work = Path(tempfile.mkdtemp(prefix="esm-bench-"))
        try:
            python = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable
            text, figures = training_rows(project_copy(root, work / "project"), python, work, args.rounds)
            print(text)
            measurements.record("bench", "make bench (runs only)", {"rounds": args.rounds, "tree": str(root),
                                                                   "training_cpu_s": figures})
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return 0

    work = Path(tempfile.mkdtemp(prefix="esm-bench-"))
    try:
        project = project_copy(root, work / "project")
        warm_cache, serve_cache = work / "warm-cache", work / "serve-cache"
        python = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable
        bare_cmd = [python, str(Path(__file__).resolve()), "--bare", "--root", str(project)]
        build_cmd = [mkdocs_bin(), "build", "--strict", "--clean", "-d", str(work / "site")]
        print("filling the warm cache (one build) ...", file=sys.stderr)
        timed(build_cmd, cwd=project, env=env_for(warm_cache))
        if warm_cache.exists():          # a tree without the execution cache leaves none
            shutil.copytree(warm_cache, serve_cache)
        bare, clean, uncached, warm = [], [], [], []
        for k in range(args.rounds):
            print(f"round {k + 1}/{args.rounds}: bare, clean, uncached and warm builds ...", file=sys.stderr)
            bare.append(timed(bare_cmd, cwd=project, env=env_for(None)))
            empty = work / f"empty-cache-{k}"
            clean.append(timed(build_cmd, cwd=project, env=env_for(empty)))
            shutil.rmtree(empty, ignore_errors=True)
            uncached.append(timed(build_cmd, cwd=project, env=env_for(None)))
            warm.append(timed(build_cmd, cwd=project, env=env_for(warm_cache)))
        rows = [("bare execution (lesson code, one process)", bare, [1.0] * len(bare)),
                ("clean strict build (empty cache, a fresh clone)", clean, [c / b for c, b in zip(clean, bare)]),
                ("uncached strict build (ESM_CACHE=0)", uncached, [u / b for u, b in zip(uncached, bare)]),
                ("warm build (nothing changed)", warm, [w / b for w, b in zip(warm, bare)])]
        if not args.no_serve:
            print("mkdocs serve: prose, snippet and esm edits ...", file=sys.stderr)
            edits = serve_edits(project, serve_cache, args.rounds)
            rows += [("serve: a prose edit shows", edits["prose"], None),
                     ("serve: a snippet edit shows", edits["snippet"], None),
                     ("serve: a notebook prose edit shows", edits["notebook"], None),
                     ("serve: an esm edit is rebuilt", edits["esm"], None)]
        run_text, run_figures = training_rows(project, python, work, args.rounds)
        load = os.getloadavg()
        note = (f"Measured on {os.cpu_count()} CPUs, load average {load[0]:.1f} at the end, "
                f"tree {root}. Ratios are taken round by round (bare and the three builds timed one after the other).")
        text = table(rows, args.rounds, note) + run_text
        print(text)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
        measurements.record("bench", "make bench", {
            "rounds": args.rounds, "tree": str(root),
            "rows": {name: {"median_s": round(statistics.median(values), 3), "min_s": round(min(values), 3),
                            "max_s": round(max(values), 3),
                            "ratio_to_bare": round(statistics.median(ratios), 3) if ratios else None}
                     for name, values, ratios in rows},
            "training_cpu_s": run_figures})
        print(f"written to {args.out}", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
