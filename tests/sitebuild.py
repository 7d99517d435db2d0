"""Build the whole site, or a few of its pages, into a directory of your choice.

    python tests/sitebuild.py                       # whole site, strict, into a temp dir
    python tests/sitebuild.py part2/training-embeddings.md -o /tmp/p2
    python tests/sitebuild.py --root /tmp/copy part1/intuition.md

A subset build writes a small config next to mkdocs.yml that INHERITs it, with a temporary
docs_dir holding index.md, the chosen pages and every non-Markdown asset of docs/, and a nav
of just those pages: same hooks, same extensions, same strictness, a fraction of the time.
The tests use it for fault injection; authors use it to iterate on one page.
"""

from __future__ import annotations

import argparse
import os
import queue
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def mkdocs_bin(root: Path = ROOT) -> str:
    venv = ROOT / ".venv" / "bin" / "mkdocs"
    return str(venv) if venv.exists() else shutil.which("mkdocs") or "mkdocs"


def source_date_epoch(root: Path = ROOT) -> str:
    """The last commit's time: the sitemap's dates then depend on the sources, not the clock."""
    done = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=root, capture_output=True, text=True)
    return done.stdout.strip() or "0"


#: What ``mkdocs serve`` logs once a build is over: "Serving on" after the first build,
#: "Reloading browsers" after a rebuild (whichever route hooks/serve.py took, or none), "An error
#: happened" after a failed one. Not "Documentation built": mkdocs puts a DuplicateFilter on its
#: build logger, which drops a message logged before, so a build that lasts as long as an earlier
#: one (to the hundredth of a second) logs no such line.
SERVING, RELOADED, FAILED = "Serving on http", "Reloading browsers", "An error happened during the rebuild"


class ServeProcess:
    """``mkdocs serve --strict`` of ``project`` on a free loopback port (``args`` added, e.g.
    ``-f serve.yml``), and its log lines with the time each arrived (tests/test_serve.py, and
    the serve rows of tests/bench.py)."""

    def __init__(self, project: Path, env: dict, *args: str) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen([mkdocs_bin(), "serve", "--strict", *args, "-a", f"127.0.0.1:{self.port}"],
                                     cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stderr:
            self.lines.put((time.perf_counter(), line))

    def next_build(self, timeout: float) -> tuple[list[str], float]:
        """The log lines up to the end of the next build, and the time that end arrived."""
        out: list[str] = []
        end = time.perf_counter() + timeout
        while True:
            try:
                at, line = self.lines.get(timeout=max(0.01, end - time.perf_counter()))
            except queue.Empty:
                raise AssertionError("mkdocs serve finished no build in time:\n" + "".join(out[-40:])) from None
            out.append(line)
            if any(mark in line for mark in (SERVING, RELOADED, FAILED)):
                return out, at

    def drain(self) -> None:
        while not self.lines.empty():
            self.lines.get_nowait()

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def build(site_dir: Path, *, root: Path = ROOT, pages: list[str] | None = None,
          strict: bool = True, timeout: float = 1200) -> subprocess.CompletedProcess:
    """Run ``mkdocs build`` of ``root`` (or of ``pages`` of it) into ``site_dir``."""
    root = Path(root)
    config = root / "mkdocs.yml"
    tmp = None
    if pages:
        tmp = Path(tempfile.mkdtemp(prefix="esm-docs-"))
        docs = root / "docs"
        for path in docs.rglob("*"):
            rel = path.relative_to(docs).as_posix()
            if path.is_file() and (path.suffix not in (".md", ".ipynb") or rel == "index.md" or rel in pages):
                (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, tmp / rel)
        config = root / f".mkdocs-subset-{os.getpid()}.yml"
        nav = "\n".join(f"  - {p}" for p in ["index.md", *pages])
        config.write_text(f"INHERIT: mkdocs.yml\ndocs_dir: {tmp}\nvalidation:\n  omitted_files: info\n"
                          f"  not_found: info\n  unrecognized_links: info\n  anchors: info\nnav:\n{nav}\n")
    cmd = [mkdocs_bin(root), "build", "--clean", "-f", str(config), "-d", str(site_dir)]
    if strict:
        cmd.insert(2, "--strict")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    env.setdefault("SOURCE_DATE_EPOCH", source_date_epoch(root))
    try:
        return subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=timeout, env=env)
    finally:
        if tmp is not None:
            config.unlink(missing_ok=True)
            shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", help="pages relative to docs/ (none: the whole site)")
    parser.add_argument("-o", "--out", type=Path, help="site directory (default: a new temp dir)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the project to build")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="esm-site-"))
    result = build(out, root=args.root, pages=args.pages or None)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    print(f"site: {out}" if result.returncode == 0 else f"build failed ({result.returncode})", file=sys.stderr)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
