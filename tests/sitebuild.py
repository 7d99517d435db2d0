"""Build the whole site, or a few of its pages, into a directory of your choice.

    python tests/sitebuild.py                       # whole site, strict, into a temp dir
    python tests/sitebuild.py part2/training-embeddings.md -o /tmp/p2
    python tests/sitebuild.py --root /tmp/copy part1/intuition.md
    python tests/sitebuild.py --session DIR         # the test session's build (CI's artifact)

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


def load_hook(stem: str, root: Path = ROOT):
    """The plugin's module ``stem`` (src/mkdocs_esm/<stem>.py), as installed with the project."""
    import importlib

    return importlib.import_module(f"mkdocs_esm.{stem}")


def mkdocs_bin(root: Path = ROOT) -> str:
    venv = ROOT / ".venv" / "bin" / "mkdocs"
    return str(venv) if venv.exists() else shutil.which("mkdocs") or "mkdocs"


def source_date_epoch(root: Path = ROOT) -> str:
    """The last commit's time: the sitemap's dates then depend on the sources, not the clock."""
    done = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=root, capture_output=True, text=True)
    return done.stdout.strip() or "0"


#: What ``mkdocs serve`` logs once a build is over: "Serving on" after the first build,
#: "Reloading browsers" after a rebuild (whichever route mkdocs_esm/serve.py took, or none), "An error
#: happened" after a failed one. Not "Documentation built": mkdocs puts a DuplicateFilter on its
#: build logger, which drops a message logged before, so a build that lasts as long as an earlier
#: one (to the hundredth of a second) logs no such line.
SERVING, RELOADED, FAILED = "Serving on http", "Reloading browsers", "An error happened during the rebuild"


class ServeProcess:
    """``mkdocs serve --strict`` of ``project`` on a free loopback port (``args`` added, e.g.
    ``-f serve.yml``), and its log lines with the time each arrived (tests/test_serve.py, and
    the serve rows of tools/bench.py)."""

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
        self.lines.put((time.perf_counter(), None))        # the server exited

    def next_build(self, timeout: float) -> tuple[list[str], float]:
        """The log lines up to the end of the next build, and the time that end arrived."""
        out: list[str] = []
        end = time.perf_counter() + timeout
        while True:
            try:
                at, line = self.lines.get(timeout=max(0.01, end - time.perf_counter()))
            except queue.Empty:
                raise AssertionError("mkdocs serve finished no build in time:\n" + "".join(out[-40:])) from None
            if line is None:
                self.lines.put((at, None))         # and so will every later build
                raise AssertionError(f"mkdocs serve exited ({self.proc.poll()}):\n" + "".join(out[-40:]))
            out.append(line)
            if any(mark in line for mark in (SERVING, RELOADED, FAILED)):
                return out, at

    def drain(self) -> None:
        while not self.lines.empty():
            item = self.lines.get_nowait()
            if item[1] is None:            # the server exited: the next build must say so
                self.lines.put(item)
                return

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def build(site_dir: Path, *, root: Path = ROOT, pages: list[str] | None = None,
          strict: bool = True, timeout: float = 1200, fork: bool = False) -> subprocess.CompletedProcess:
    """Run ``mkdocs build`` of ``root`` (or of ``pages`` of it) into ``site_dir``. With ``fork``,
    the build runs in a child forked from a process that imported mkdocs and its plugins once
    (see Forker): for a single build whose log is the point, not for comparing builds.
    SITEBUILD_FORK=0 makes every build a process of its own."""
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
        if "index.md" not in pages:
            # a home page that runs nothing: the real one's demos read the whole project (its
            # navigation, every page) and would run, fail or be counted in a build of other pages
            (tmp / "index.md").write_text("# Embedding Space Math\n", encoding="utf-8")
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
        if fork and os.environ.get("SITEBUILD_FORK") != "0" and Forker.fits(env):
            return Forker.get().run(cmd, cwd=root, env=env, timeout=timeout)
        return subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=timeout, env=env)
    finally:
        if tmp is not None:
            config.unlink(missing_ok=True)
            shutil.rmtree(tmp, ignore_errors=True)


#: What a build imports before it reads the project: mkdocs, the theme, the plugins of
#: mkdocs.yml and mkdocs-pdf.yml and the Markdown extensions: about 1.4 s of CPU a build saved
#: (tests/test_faults.py, notebook/test_notebook_faults.py and test_apparatus.py: 156 -> 128 s).
#: Nothing of the project (snippets/): a copy's own helpers are imported by
#: each build, from the copy.
_PRELOAD = ("mkdocs.__main__", "mkdocs.commands.build", "mkdocs.structure.pages", "mkdocs.contrib.search",
            "material.plugins.search.plugin", "mkdocs_autorefs", "markdown_exec", "mkdocs_jupyter.plugin",
            "mkdocs_print_site_plugin.plugin", "markdown", "markdown.extensions.toc", "markdown.extensions.tables",
            "markdown.extensions.fenced_code", "markdown.extensions.abbr", "markdown.extensions.admonition",
            "markdown.extensions.attr_list", "markdown.extensions.def_list", "markdown.extensions.footnotes",
            "markdown.extensions.md_in_html", "pymdownx.arithmatex", "pymdownx.details", "pymdownx.highlight",
            "pymdownx.inlinehilite", "pymdownx.superfences", "pymdownx.tabbed", "pymdownx.snippets",
            "pygments.lexers.python", "pygments.formatters.html", "jinja2")


class Forker:
    """A process (``python sitebuild.py --forker``) that imports what every build imports
    (_PRELOAD) once, then forks a child per build that runs mkdocs' command line as
    ``mkdocs build`` would: its own working directory, environment, stdout and stderr (files the
    caller reads), exit status; the child imports the project's hooks and helpers itself.

    What a fork shares with its siblings that separate processes would not: the hash seed and
    the memory layout. Builds compared with each other (a cache key that must not hold an
    address, byte identity) run as processes of their own; so does a build whose environment
    changes how Python starts (PYTHON* variables)."""

    _one: "Forker | None" = None

    def __init__(self) -> None:
        env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
        self.env = {k: v for k, v in env.items() if k.startswith("PYTHON")}
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--forker"], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.lock = threading.Lock()
        import atexit
        atexit.register(self.close)

    def close(self) -> None:
        """End the forker (end of input) and reap it: its builds' CPU time counts as ours."""
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    @classmethod
    def get(cls) -> "Forker":
        if cls._one is None or cls._one.proc.poll() is not None:
            cls._one = cls()
        return cls._one

    @classmethod
    def fits(cls, env: dict) -> bool:
        ours = {k: v for k, v in dict(os.environ).items() if k.startswith("PYTHON")}
        if cls._one is not None:
            ours = cls._one.env
        return {k: v for k, v in env.items() if k.startswith("PYTHON")} == ours

    def run(self, cmd: list[str], *, cwd: Path, env: dict, timeout: float) -> subprocess.CompletedProcess:
        import json
        with self.lock, tempfile.TemporaryDirectory(prefix="esm-fork-") as tmp:
            out, err = Path(tmp) / "stdout", Path(tmp) / "stderr"
            request = {"argv": cmd[1:], "cwd": str(cwd), "env": env, "stdout": str(out), "stderr": str(err),
                       "timeout": int(timeout)}
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
            reply = self.proc.stdout.readline()
            if not reply:
                raise RuntimeError("the build forker exited")
            code = json.loads(reply)["returncode"]
            return subprocess.CompletedProcess(cmd, code, out.read_text(encoding="utf-8", errors="replace"),
                                               err.read_text(encoding="utf-8", errors="replace"))


def _forker() -> int:
    """The forker's loop (Forker): one JSON request a line on stdin, one reply a line on stdout."""
    import atexit
    import importlib
    import json
    import signal

    sys.path[0] = str(Path(mkdocs_bin()).parent)     # as the `mkdocs` script starts: not tests/
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    for name in _PRELOAD:
        importlib.import_module(name)
    mine = [m for m, mod in sys.modules.items() if m not in ("__main__", "__mp_main__")
            and str(getattr(mod, "__file__", None) or "").startswith(str(ROOT) + os.sep)
            and ".venv" not in Path(mod.__file__).parts]
    assert not mine, f"the forker imported modules of the project: {mine}"
    replies = os.fdopen(os.dup(1), "w")
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:                                  # the build
            code = 1
            try:
                os.close(replies.fileno())              # the forker's channel is not the build's
                null = os.open(os.devnull, os.O_RDONLY)
                os.dup2(null, 0)
                for fd, path in ((1, request["stdout"]), (2, request["stderr"])):
                    f = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                    os.dup2(f, fd)
                    os.close(f)
                signal.alarm(request["timeout"])
                os.chdir(request["cwd"])
                os.environ.clear()
                os.environ.update(request["env"])
                sys.argv = ["mkdocs", *request["argv"]]
                from mkdocs.__main__ import cli
                try:
                    cli.main(args=request["argv"], prog_name="mkdocs")
                    code = 0
                except SystemExit as done:
                    code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
            except BaseException:                     # noqa: BLE001 - reported as a crash would be
                import traceback
                traceback.print_exc()
                code = 1
            finally:
                try:
                    atexit._run_exitfuncs()
                    sys.stdout.flush()
                    sys.stderr.flush()
                finally:
                    os._exit(code)
        _, status = os.waitpid(pid, 0)
        replies.write(json.dumps({"returncode": os.waitstatus_to_exitcode(status)}) + "\n")
        replies.flush()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", help="pages relative to docs/ (none: the whole site)")
    parser.add_argument("-o", "--out", type=Path, help="site directory (default: a new temp dir)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the project to build")
    parser.add_argument("--session", type=Path, metavar="DIR",
                        help="make the test session's build in DIR (site/, site-exec-cache/, site.json), "
                             "which `PREBUILT_SESSION=DIR pytest` then uses instead of building")
    args = parser.parse_args()
    if args.session:
        from conftest import session_build
        done = session_build(args.session.resolve())
        sys.stderr.write(done["log"][-3000:])
        print(f"session build: {args.session} ({done['seconds']:.1f} s)" if done["returncode"] == 0
              else f"build failed ({done['returncode']})", file=sys.stderr)
        return done["returncode"]
    out = args.out or Path(tempfile.mkdtemp(prefix="esm-site-"))
    result = build(out, root=args.root, pages=args.pages or None)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    print(f"site: {out}" if result.returncode == 0 else f"build failed ({result.returncode})", file=sys.stderr)
    return result.returncode


if __name__ == "__main__":
    sys.exit(_forker() if sys.argv[1:] == ["--forker"] else main())
