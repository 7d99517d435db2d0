"""Executed code blocks fail the build loudly, and every formula has its check.

markdown-exec, left alone, turns a failing block into a published traceback and a warning
that names neither the page nor the block; the build passes unless it is --strict. Here any
failed block is an error (strict or not) that names the page, the block's number and its
included snippet, and the exception's last line, so nothing is published.

It also keeps formulas and checks in step, page by page: every display formula carries a
``\\label{name}``, and the page's executed output holds a check naming ``eq="name"``
(snippets/esm/). A formula without a check, a check naming no formula on its page, or a
display formula without a label each fail the build.

Python blocks are formatted by a formatter of our own, registered in markdown-exec's public
``formatters`` table: it runs a block (``run_block``, as markdown-exec's runner does, hearing its records) behind
the execution cache (execcache.py) and hands markdown-exec's public ``base_format`` the output.
A block whose code, included snippets, imported local modules, read files and package versions
are unchanged gets its previous output (and HTML) back without running; ``cache: false`` turns
that off. Blocks the cache lacks start ahead, in worker processes, as soon as the files are known.

Material's shortcodes.py is the model: small, and it raises instead of warning.
"""

from __future__ import annotations

import functools
import html as htmllib
import json
import logging
import os
import re
import sys
import time
import traceback
from io import StringIO
from pathlib import Path
from types import ModuleType

from mkdocs.exceptions import PluginError

from . import execcache, output as printed, page as pagemodel, runs
from .compat import markdown_exec as mx

_LABEL = re.compile(r"\\label\{([^}]*)\}")
_DISPLAY = re.compile(r'<div class="arithmatex">(.*?)</div>', re.S)
_CHECK_EQ = re.compile(r'<div class="esm-check" data-eq="([^"]+)"')

log = logging.getLogger("mkdocs.plugins.esm.execution")

#: the environment a block's output may depend on besides its code and files
_ENV_KEYS = ("MPLBACKEND", "PYTHONHASHSEED")
_ENV_SKIP = execcache.NOT_INPUTS
#: fewer blocks to run than this: a worker's start-up would not pay
_MIN_AHEAD = 6


class _Capture(logging.Handler):
    """Collects markdown-exec's warnings while a page is rendered."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


# ---------------------------------------------------------------------------------------------
# Running one block
# ---------------------------------------------------------------------------------------------

_hearing: list[list[dict]] = []     # the records of the block running in this process (innermost last)


def _hear(event: str, args: tuple) -> None:
    if _hearing and event in printed.RECORD_EVENTS:
        _hearing[-1].append(printed.record(event, args))


@functools.cache
def _listen() -> None:
    """Listen to esm's records (output.RECORD_EVENTS), once per process (an audit hook stays for
    the process's life)."""
    sys.addaudithook(_hear)


class _Printer:
    """A block's ``print``: writes to a buffer, as markdown-exec's runner does (the texts joined
    by one space), and notes where each record's own line object was printed."""

    def __init__(self, records: list[dict]) -> None:
        self.buffer = StringIO()
        self.length = 0
        self.records = records
        self.at: dict[int, int] = {}    # record index -> character offset in the output

    def __call__(self, *texts, end: str = "\n", **kwargs) -> None:   # noqa: ARG002
        parts = [str(text) for text in texts]
        pos = self.length
        for text, part in zip(texts, parts):
            for k, record in enumerate(self.records):
                if k in self.at:
                    continue
                if record["line"] is text:              # print(check_close(...))
                    self.at[k] = pos
                elif (i := printed.find_line(part, record["line"], 0, set(self.at.values()), pos)) is not None:
                    self.at[k] = i                      # print("".join(lines))
            pos += len(part) + 1
        out = " ".join(parts) + end
        self.buffer.write(out)
        self.length += len(out)

    def placed(self, output: str) -> list[dict]:
        """The records with the line of the output each stands on (None: not printed whole)."""
        return printed.place(output, self.records, self.at)


def before_block(runs_folder: Path | None) -> None:
    """What the build hands the book's helpers before a block runs, outside its recording: BLAS
    on one thread whatever ran before in this process (``esm.one_blas_thread``: a sum split over
    threads is added in another order, so a printed difference could depend on which blocks ran
    first), and where the training chapter's runs are kept (runs.py). Nothing without ``esm`` on the
    python_path."""
    try:
        from esm import one_blas_thread
    except ImportError:                      # a book without the helpers
        return
    one_blas_thread()
    runs.hand_over(runs_folder)


def run_python(code: str, returncode=None, session=None, id: str | None = None, **extra) -> str:  # noqa: A002
    """What a block prints (`run_block`'s output)."""
    return run_block(code, returncode, session, id, **extra)[0]


def run_block(code: str, returncode=None, session=None, id: str | None = None, **extra) -> tuple[str, list[dict]]:  # noqa: A002, ARG001
    """Run a block as markdown-exec's own runner does, and return what it printed and the records
    of the checks and values esm's helpers made while it ran (each with the output line it was
    printed on, or None): a fresh namespace named after the block (a module of that name in
    ``sys.modules``, which dataclasses and pickling expect), ``print`` writing to a buffer, the
    code compiled under the name ``<code block: id ...>``. A failure raises markdown-exec's
    ExecutionError with the traceback (each frame of the block with its line) as a code block."""
    _listen()
    block = f"<code block: id {id}>" if id else "<code block>"
    name = re.sub(r"[^a-zA-Z\d]+", "_", block)
    records: list[dict] = []
    printer = _Printer(records)
    namespace = {"__name__": name, "print": printer}
    sys.modules[name] = ModuleType(name)
    lines = code.split("\n")
    _hearing.append(records)
    try:
        exec(compile(code, filename=block, mode="exec"), namespace)   # noqa: S102
    except Exception as error:
        trace = traceback.TracebackException.from_exception(error)
        trace.stack = traceback.StackSummary.from_list([    # the traceback quotes the block's lines
            traceback.FrameSummary(f.filename, f.lineno, f.name, line=lines[f.lineno - 1], end_lineno=f.end_lineno,
                                   colno=f.colno, end_colno=f.end_colno) if f.filename == block else f
            for f in trace.stack])
        raise mx.ExecutionError(mx.code_block("python", "".join(trace.format()), **extra)) from error
    finally:
        _hearing.pop()
    output = printer.buffer.getvalue()
    return output, printer.placed(output)


def _parts(code: str, block_id, returncode, extra: dict) -> list[str]:
    """What a block's output depends on besides the files and packages it uses."""
    env = sorted((k, v) for k, v in os.environ.items()
                 if (k.startswith("ESM_") and k not in _ENV_SKIP) or k in _ENV_KEYS)
    return [code, str(block_id), repr(returncode), repr(sorted(extra.items())), repr(env)]


def _markdown_salt(config) -> str:
    """The Markdown set-up of the build: extensions (by name or class), their configuration,
    and the versions of the packages that turn Markdown into HTML."""
    import importlib.metadata as md
    names = [e if isinstance(e, str) else f"{type(e).__module__}.{type(e).__qualname__}"
             for e in config.markdown_extensions]
    versions = []
    for dist in ("markdown", "pymdown-extensions", "pygments", "markdown-exec", "mkdocs"):
        try:
            versions.append(f"{dist} {md.version(dist)}")
        except md.PackageNotFoundError:
            versions.append(f"{dist} absent")
    configs = json.dumps(config.mdx_configs, sort_keys=True, default=_by_name)
    if re.search(r" at 0x[0-9a-fA-F]+", configs):   # an address differs in every process: no entry would ever be found
        raise RuntimeError(f"execution: a Markdown extension option has no stable name: {configs}")
    return repr((names, configs, versions))


def _by_name(value) -> str:
    """A configuration value that JSON cannot hold, by a name that is the same in every process
    (markdown-exec puts its formatter functions in superfences' options: their repr holds an
    address)."""
    if callable(value) and hasattr(value, "__qualname__"):
        return f"{getattr(value, '__module__', '?')}.{value.__qualname__}"
    return str(value)


def planned_blocks(page: pagemodel.PageSource | str, src: str, snippet_dirs: list[Path] | Path) -> list[tuple[str, str]]:
    """(code, id) of the blocks a worker may run ahead: not those of a session, nor one whose
    include is missing. A block that comes out differently is no error: it is simply not found
    ahead and runs in-process."""
    return [(b.code, b.block_id) for b in pagemodel.exec_blocks(page, src, snippet_dirs)
            if b.missing is None and not b.session]


class Progress:
    """The build's progress through its executed blocks: on a terminal one line rewritten in
    place, in a log (CI) a line every ``every`` seconds at most; nothing under ``mkdocs build -q``."""

    def __init__(self, every: float = 5.0) -> None:
        self.every = every
        self.total = self.done = self.cached = 0
        self.last = 0.0
        self.shown = False

    def start(self, total: int) -> None:
        self.total, self.done, self.cached, self.last, self.shown = total, 0, 0, time.monotonic(), False

    def line(self) -> str:
        return f"executed blocks: {self.done} of {self.total} done ({self.cached} from the cache)"

    def step(self, cached: bool) -> None:
        self.done += 1
        self.cached += cached
        if self.done > self.total or not log.isEnabledFor(logging.INFO):   # serve's one-page route: no plan
            return
        now = time.monotonic()
        tty = sys.stderr.isatty()
        if self.done < self.total and now - self.last < (0.2 if tty else self.every):
            return
        self.last = now
        if tty:
            sys.stderr.write("\r" + self.line() + "\x1b[K" + ("\n" if self.done >= self.total else ""))
            sys.stderr.flush()
            self.shown = self.done < self.total
        elif self.done < self.total:
            log.info(self.line())

    def end(self) -> None:
        """Close a line left open on a terminal (a build that ran fewer blocks than it planned)."""
        if self.shown:
            sys.stderr.write("\n")
            self.shown = False


class Execution:
    """The executed blocks of a build: their cache, the ones running ahead, the failures."""

    def __init__(self) -> None:
        self.state = None
        self.capture = _Capture()
        self.cache: execcache.ExecCache | None = None       # block outputs
        self.html_cache: execcache.ExecCache | None = None  # the HTML made from them
        self.md_salt = ""           # what the HTML of an output depends on besides it: extensions and versions
        self.jobs = 0
        self.ahead: dict[str, object] = {}      # cache key -> Future of the worker running that block
        self.ran_ahead = 0
        self.pool = None
        self.runs = None            # where training runs are kept between processes (runs.py)
        self.progress = Progress()
        self._ahead_used = False    # the block being formatted was run ahead by a worker
        self.page = None            # the page whose blocks markdown-exec is running

    # -- the formatter markdown-exec calls for python blocks -----------------------------------

    def run(self, code: str, returncode=None, session=None, id=None, **extra) -> tuple[str, list[dict]]:  # noqa: A002
        """``run_block`` behind the cache: the output and its records."""
        parts = _parts(code, id, returncode, extra)
        ahead = self.ahead.pop(self.cache.primary("block", parts), None)
        if ahead is not None:               # run ahead in a worker: wait for it, then read the cache
            if ahead.result():
                self.ran_ahead += 1
                self._ahead_used = True
        result = self.cache.run("block", parts, lambda: run_block(code, returncode, session, id, **extra), code=code,
                                records=True, prepare=lambda: before_block(self.runs))
        if self.page is not None:           # the page notebook's outputs: what the block printed, its records
            self.state.page(self.page).printed[str(id)] = result
        return result

    def format(self, original, **kw):
        """markdown-exec's formatting of a python block (run it, then turn its output and source
        into HTML with its public ``base_format``), with the output and the HTML made from it
        cached: turning an output into HTML builds a Markdown instance with every extension for
        each block and highlights its source, a large part of a build whose blocks all come from
        the cache. The HTML is a function of the output, the block's options and the Markdown
        set-up (in the key). An output whose conversion reports headings to the page's table of
        contents is not cached. A block with a session, a working directory or a width goes to
        markdown-exec's own formatter (``original``), uncached."""
        hits = self.cache.stats["hit"]
        try:
            return self._format(original, **kw)
        finally:
            self.progress.step(self.cache.stats["hit"] > hits and not self._ahead_used)

    def _format(self, original, **kw):
        self._ahead_used = False
        if kw.get("session") or kw.get("workdir") or kw.get("width") or kw.get("transform_source"):
            return original(**kw)
        extra = dict(kw.get("extra") or {})
        if extra.pop("show", None) == "notebook":
            # A block for the page's notebook only (a "Try this" of a page at its weight budget): run
            # and checked like any block, its output kept for the notebook, nothing on the page.
            kw = {**kw, "extra": extra}
            try:
                self.run(kw["code"], returncode=kw.get("returncode", 0), session=None, id=kw.get("id", ""), **extra)
            except mx.ExecutionError as error:
                def fail(*args, **kwargs):
                    raise error
                return mx.base_format(language="python", run=fail, **kw)
            return mx.Markup("")
        if not self.html_cache.enabled:
            return mx.base_format(language="python", run=lambda *a, **k: printed.for_page(*self.run(*a, **k)), **kw)
        try:
            output = printed.for_page(*self.run(kw["code"], returncode=kw.get("returncode", 0), session=None,
                                                id=kw.get("id", ""), **kw.get("extra", {})))
        except mx.ExecutionError as error:
            def fail(*args, **kwargs):
                raise error
            return mx.base_format(language="python", run=fail, **kw)     # markdown-exec reports it as it always does
        options = sorted((k, repr(v)) for k, v in kw.items() if k not in ("md", "run"))
        parts = [self.md_salt, output, repr(options)]
        html = self.html_cache.get("html", parts)
        if html is not None:
            return mx.Markup(html)
        markup = mx.base_format(language="python", run=lambda *args, **kwargs: output, **kw)
        if not mx.reported_headings(kw["md"], markup):
            self.html_cache.put("html", parts, str(markup), {})
        return markup

    # -- build events --------------------------------------------------------------------------

    def on_config(self, config, state, jobs: int) -> None:
        self.state = state
        self.jobs = jobs or (os.cpu_count() or 1)
        os.environ.setdefault("MPLBACKEND", "Agg")
        mx.capture_warnings(self.capture)
        mx.use_python_formatter(self.format)
        self.cache = execcache.ExecCache(state.cache_dir)
        self.html_cache = execcache.ExecCache(state.cache_dir)
        self.runs = state.cache_dir / "train" if state.cache_dir else None    # the training chapter's runs
        self.md_salt = _markdown_salt(config)

    def on_pre_build(self) -> None:
        # `mkdocs serve` rebuilds in one process: forget helper modules so edits to them count.
        for name in [m for m in sys.modules if m == "esm" or m.startswith("esm.")]:
            del sys.modules[name]
        self.cache.new_build()
        self.html_cache.new_build()

    def on_files(self, files, config) -> None:
        """Start running, in worker processes, the executed blocks whose output the cache lacks,
        so that they run side by side while mkdocs renders pages one at a time."""
        self.ahead.clear()
        self.ran_ahead = 0
        pages = {file.src_uri: pagemodel.read_file(file.abs_src_path)
                 for file in files.documentation_pages() if file.src_uri.endswith(".md")}
        self.progress.start(sum(f.executed for page in pages.values() for f in page.fences))
        if not self.cache.enabled or self.jobs < 2:
            return
        todo = []
        for src, page in pages.items():
            for code, block_id in planned_blocks(page, src, self.state.snippet_dirs):
                parts = _parts(code, block_id, 0, {})
                key = self.cache.primary("block", parts)
                if key not in self.ahead and not self.cache.peek("block", parts):
                    todo.append((key, parts, code, block_id))
                    self.ahead[key] = None
        if len(todo) < _MIN_AHEAD:
            self.ahead.clear()
            return
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.pool = ProcessPoolExecutor(max_workers=self.jobs, mp_context=multiprocessing.get_context("spawn"))
        for key, parts, code, block_id in todo:
            self.ahead[key] = self.pool.submit(execcache.run_block_in_worker, str(self.cache.dir), parts, code,
                                               block_id, 0, {})
        log.info("execution cache: %d blocks started ahead in %d worker processes", len(todo), self.jobs)

    def _stop_pool(self, wait: bool = True) -> None:
        """Stop the workers; after a build every future is done, so waiting reaps them at once."""
        if self.pool is not None:
            self.pool.shutdown(wait=wait, cancel_futures=True)
            self.pool = None
        self.ahead.clear()

    def on_build_error(self) -> None:
        self._stop_pool(wait=False)
        self.progress.end()

    def on_post_build(self) -> None:
        self._stop_pool()
        self.progress.end()
        if self.cache.enabled:
            s = self.cache.stats
            h = self.html_cache.stats
            log.info("execution cache: %d reused, %d ran (%d ahead in worker processes), %d stale, %d discarded; "
                     "HTML of %d outputs reused, %d made",
                     s["hit"] - self.ran_ahead, s["ran"] + self.ran_ahead, self.ran_ahead, s["stale"],
                     s["discarded"], h["hit"], h["miss"] + h["stale"] + h["discarded"])

    def on_page_markdown(self, markdown: str, page) -> str:
        """Number the page's executed blocks and give each an id that names page and block."""
        lines = markdown.split("\n")
        parsed = pagemodel.parse(markdown)
        described: list[str] = []
        for fence in parsed.fences:
            if not fence.executed:
                continue
            n = len(described) + 1
            body = parsed.lines[fence.start + 1:fence.end]
            include = next((inc.path for inc in parsed.includes_in(fence)), None)
            first = next((line.strip() for line in body if line.strip()), "(empty)")
            described.append(f"block {n} ({include or first[:60]})")
            if 'id="' not in fence.attrs:
                lines[fence.start] = f'{lines[fence.start]} id="{pagemodel.block_slug(page.file.src_uri)}-b{n}"'
        self.state.page(page.file.src_uri).blocks = described
        self.page = page.file.src_uri
        self.capture.records.clear()
        return "\n".join(lines)

    def block_failed(self) -> bool:
        """Whether markdown-exec reported a failed block on the page being converted."""
        return bool(self.capture.records)

    def on_page_content(self, html: str, page) -> None:
        src = page.file.src_uri
        if self.capture.records:
            described = self.state.page(src).blocks
            errors = [_describe(src, r.getMessage(), described) for r in self.capture.records]
            self.capture.records.clear()
            raise PluginError("\n".join(errors))
        _check_formulas(src, html)


def _describe(src: str, message: str, described: list[str]) -> str:
    """One readable error from markdown-exec's warning text."""
    block = re.search(r"code block '([^']*)'", message)
    m = block and re.fullmatch(re.escape(pagemodel.block_slug(src)) + r"-b(\d+)", block[1])
    n = int(m[1]) if m else None
    where = described[n - 1] if n and n <= len(described) else (f"block {block[1]}" if block else "a block")
    output = message.split("Output is:", 1)[-1].strip().splitlines()
    last = next((line.strip() for line in reversed(output) if line.strip() and not line.strip().startswith("```")), "?")
    return f"{src}: executed {where} failed: {last}"


def _check_formulas(src: str, html: str) -> None:
    labels: list[str] = []
    problems: list[str] = []
    for k, tex in enumerate(_DISPLAY.findall(html), 1):
        found = _LABEL.findall(htmllib.unescape(tex))
        if not found:
            snippet = " ".join(htmllib.unescape(tex).split())[:70]
            problems.append(f"display formula {k} has no \\label{{...}}: {snippet}")
        labels += found
    dupes = {x for x in labels if labels.count(x) > 1}
    if dupes:
        problems.append(f"labels used twice: {sorted(dupes)}")
    checked = set(_CHECK_EQ.findall(html))
    for label in labels:
        if label not in checked:
            problems.append(f"formula \\label{{{label}}} has no check naming eq=\"{label}\"")
    for name in sorted(checked - set(labels)):
        problems.append(f"a check names eq=\"{name}\" but the page has no formula \\label{{{name}}}")
    if problems:
        raise PluginError(f"{src}: formulas and checks out of step:\n  " + "\n  ".join(problems))
