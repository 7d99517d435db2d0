"""Executed code blocks fail the build loudly, and every formula has its check.

markdown-exec, left alone, turns a failing block into a published traceback and a warning
that names neither the page nor the block; the build passes unless it is --strict. This
hook makes any failed block an error (strict or not) that names the page, the block's
number and its included snippet, and the exception's last line, so nothing is published.

It also keeps formulas and checks in step, page by page: every display formula carries a
``\\label{name}``, and the page's executed output holds a check naming ``eq="name"``
(snippets/esm.py). A formula without a check, a check naming no formula on its page, or a
display formula without a label each fail the build.

Blocks go through the execution cache (hooks/execcache.py): a block whose code, included
snippets, imported local modules, read files and package versions are unchanged gets its
previous output back without running; ``ESM_CACHE=0`` turns that off.

Material's hooks/shortcodes.py is the model: small, and it raises instead of warning.
"""

from __future__ import annotations

import html as htmllib
import json
import logging
import os
import re
import sys
from pathlib import Path

from markdown_exec._internal.formatters import python as _mx_python
from mkdocs.exceptions import PluginError

from . import execcache

#: Fence openings of executed Python blocks (markdown-exec's exec option).
_FENCE = re.compile(r'^(?P<indent>[ \t]*)(?P<mark>`{3,}|~{3,})[ \t]*python\b(?P<attrs>[^\n]*)$')
_EXEC_ON = re.compile(r'\bexec="(?:on|1|true|yes)"')
_INCLUDE = re.compile(r'--8<--\s+"([^"]+)"')
_LABEL = re.compile(r"\\label\{([^}]*)\}")
_DISPLAY = re.compile(r'<div class="arithmatex">(.*?)</div>', re.S)
_CHECK_EQ = re.compile(r'<div class="esm-check" data-eq="([^"]+)"')


class _Capture(logging.Handler):
    """Collects markdown-exec's warnings while a page is rendered."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


_capture = _Capture()
_blocks: dict[str, list[str]] = {}   # page src_uri -> description of each executed block
_cache: execcache.ExecCache | None = None
log = logging.getLogger("mkdocs.hooks.execution")

#: markdown-exec's own runner, kept on its module so that a reloaded hook (serve) wraps it once.
_RUN = _mx_python.__dict__.setdefault("_esm_original_run", _mx_python._run_python)
#: the environment a block's output may depend on besides its code and files
_ENV_KEYS = ("MPLBACKEND", "PYTHONHASHSEED")
_ENV_SKIP = execcache.NOT_INPUTS


def _parts(code: str, block_id, returncode, extra: dict) -> list[str]:
    """What a block's output depends on besides the files and packages it uses."""
    env = sorted((k, v) for k, v in os.environ.items()
                 if (k.startswith("ESM_") and k not in _ENV_SKIP) or k in _ENV_KEYS)
    return [code, str(block_id), repr(returncode), repr(sorted(extra.items())), repr(env)]


def _run_cached(code: str, returncode=None, session=None, id=None, **extra) -> str:  # noqa: A002
    """markdown-exec's runner behind the cache. Blocks sharing a session share state: run."""
    def run() -> str:
        return _RUN(code, returncode, session, id, **extra)

    if _cache is None or session:
        return run()
    parts = _parts(code, id, returncode, extra)
    ahead = _ahead.pop(_cache.primary("block", parts), None)
    if ahead is not None:               # run ahead in a worker: wait for it, then read the cache
        if ahead.result():
            _counts["ahead"] += 1
    return _cache.run("block", parts, run, code=code)


_mx_python._run_python = _run_cached

#: markdown-exec's formatting of a block (run it, then turn its output and source into HTML)
_FORMAT = _mx_python.__dict__.setdefault("_esm_original_format", _mx_python.base_format)
_html_cache: execcache.ExecCache | None = None
_md_salt = ""           # what the HTML of an output depends on besides it: extensions and versions


def _format_cached(**kw):
    """markdown-exec's formatter, with the HTML made from a block's output cached too: turning
    an output into HTML builds a Markdown instance with every extension for each block and
    highlights its source, a quarter of a build whose blocks all come from the cache. The HTML
    is a function of the output, the block's options and the Markdown set-up (in the key). An
    output whose conversion reports headings to the page's table of contents is not cached."""
    if (_html_cache is None or not _html_cache.enabled or kw.get("session") or kw.get("workdir")
            or kw.get("width") or kw.get("transform_source")):
        return _FORMAT(**kw)
    from markdown_exec._internal.formatters.base import ExecutionError
    from markupsafe import Markup

    try:
        output = kw["run"](kw["code"], returncode=kw.get("returncode", 0), session=None, id=kw.get("id", ""),
                           **kw.get("extra", {}))
    except ExecutionError as error:
        def fail(*args, **kwargs):
            raise error
        return _FORMAT(**dict(kw, run=fail))     # markdown-exec reports it as it always does
    options = sorted((k, repr(v)) for k, v in kw.items() if k not in ("md", "run"))
    parts = [_md_salt, output, repr(options)]
    html = _html_cache.get("html", parts)
    if html is not None:
        return Markup(html)
    markup = _FORMAT(**dict(kw, run=lambda *args, **kwargs: output))
    md = getattr(kw["md"], "_original_md", kw["md"])
    inserted = md.treeprocessors["markdown_exec_insert_headings"] if "markdown_exec_insert_headings" in md.treeprocessors else None
    if inserted is None or not inserted.headings.get(markup):
        _html_cache.put("html", parts, str(markup), {})
    return markup


_mx_python.base_format = _format_cached


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
        raise RuntimeError(f"hooks/execution.py: a Markdown extension option has no stable name: {configs}")
    return repr((names, configs, versions))


def _by_name(value) -> str:
    """A configuration value that JSON cannot hold, by a name that is the same in every process
    (markdown-exec puts its formatter functions in superfences' options: their repr holds an
    address)."""
    if callable(value) and hasattr(value, "__qualname__"):
        return f"{getattr(value, '__module__', '?')}.{value.__qualname__}"
    return str(value)


# -- running the blocks that the cache lacks ahead, in worker processes ------------------------

_JOBS = "ESM_JOBS"          # worker processes (default: one per CPU); 0 or 1: none
_MIN_AHEAD = 6              # fewer blocks to run than this: a worker's start-up would not pay
_ahead: dict[str, object] = {}      # cache key -> Future of the worker running that block
_counts: dict[str, int] = {"ahead": 0}
_pool = None
_INCLUDE_LINE = re.compile(r'^(?P<space>[ \t]*)--8<--\s+"(?P<path>[^"]+)"\s*$')


def planned_blocks(markdown: str, src: str, snippets: Path) -> list[tuple[str, str]]:
    """(code, id) of a page's executed blocks as markdown-exec will receive them: ids as
    on_page_markdown gives them, snippets pasted in as pymdownx.snippets does. A block that
    comes out differently is no error: it is simply not found ahead and runs in-process."""
    lines = markdown.split("\n")
    out: list[tuple[str, str]] = []
    i, n = 0, 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        end = _fence_end(lines, i, m["mark"])
        if _EXEC_ON.search(m["attrs"]):
            n += 1
            given = re.search(r'\bid="([^"]*)"', m["attrs"])
            if re.search(r'\bsession="[^"]+"', m["attrs"]):
                i = end + 1
                continue
            body: list[str] = []
            for line in lines[i + 1:end]:
                inc = _INCLUDE_LINE.match(line)
                if inc:
                    path = snippets / inc["path"]
                    if not path.is_file():
                        body = []
                        break
                    body += [inc["space"] + x for x in path.read_text(encoding="utf-8").splitlines()]
                else:
                    body.append(line)
            indent = len(m["indent"])
            code = "\n".join(x[indent:] if x[:indent].strip() == "" else x.lstrip() for x in body) + "\n"
            if body:
                out.append((code, given[1] if given else f"{_slug(src)}-b{n}"))
        i = end + 1
    return out


def on_files(files, config, **kwargs):
    """Start running, in worker processes, the executed blocks whose output the cache lacks,
    so that they run side by side while mkdocs renders pages one at a time."""
    global _pool
    _ahead.clear()
    _counts["ahead"] = 0
    jobs = int(os.environ.get(_JOBS, "0") or 0) or (os.cpu_count() or 1)
    if _cache is None or not _cache.enabled or jobs < 2:
        return files
    root = Path(config.config_file_path).parent
    todo = []
    for file in files.documentation_pages():
        if not file.src_uri.endswith(".md"):
            continue
        text = Path(file.abs_src_path).read_text(encoding="utf-8-sig")
        text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)     # front matter
        for code, block_id in planned_blocks(text, file.src_uri, root / "snippets"):
            parts = _parts(code, block_id, 0, {})
            key = _cache.primary("block", parts)
            if key not in _ahead and not _cache.peek("block", parts):
                todo.append((key, parts, code, block_id))
                _ahead[key] = None
    if len(todo) < _MIN_AHEAD:
        _ahead.clear()
        return files
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    _pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"))
    for key, parts, code, block_id in todo:
        _ahead[key] = _pool.submit(execcache.run_block_in_worker, str(_cache.dir), parts, code,
                                   block_id, 0, {})
    log.info("execution cache: %d blocks started ahead in %d worker processes", len(todo), jobs)
    return files


def _stop_pool(wait: bool = True) -> None:
    """Stop the workers; after a build every future is done, so waiting reaps them at once."""
    global _pool
    if _pool is not None:
        _pool.shutdown(wait=wait, cancel_futures=True)
        _pool = None
    _ahead.clear()


def on_build_error(error, **kwargs):
    _stop_pool(wait=False)


def on_config(config, **kwargs):
    snippets = str(Path(config.config_file_path).parent / "snippets")
    if snippets not in sys.path:
        sys.path.insert(0, snippets)
    os.environ["ESM_OUTPUT"] = "html"        # snippets/esm.py renders checks as HTML lines
    os.environ.setdefault("MPLBACKEND", "Agg")
    logger = logging.getLogger("mkdocs.plugins.markdown_exec")
    if _capture not in logger.handlers:
        logger.addHandler(_capture)
    global _cache, _html_cache, _md_salt
    _cache = execcache.ExecCache.from_env(Path(config.config_file_path).parent)
    _html_cache = execcache.ExecCache.from_env(Path(config.config_file_path).parent)
    _md_salt = _markdown_salt(config)
    return config


def on_pre_build(config, **kwargs):
    # `mkdocs serve` rebuilds in one process: forget helper modules so edits to them count.
    for name in [m for m in sys.modules if m == "esm" or m.startswith("esm.")]:
        del sys.modules[name]
    _blocks.clear()
    if _cache is not None:
        _cache.new_build()
        _html_cache.new_build()


def on_post_build(config, **kwargs):
    _stop_pool()
    if _cache is not None and _cache.enabled:
        s = _cache.stats
        h = _html_cache.stats
        log.info("execution cache: %d reused, %d ran (%d ahead in worker processes), %d stale, %d discarded; "
                 "HTML of %d outputs reused, %d made",
                 s["hit"] - _counts["ahead"], s["ran"] + _counts["ahead"], _counts["ahead"], s["stale"],
                 s["discarded"], h["hit"], h["miss"] + h["stale"] + h["discarded"])


def on_page_markdown(markdown, page, config, files, **kwargs):
    """Number the page's executed blocks and give each an id that names page and block."""
    lines = markdown.split("\n")
    described: list[str] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m or not _EXEC_ON.search(m["attrs"]):
            if m:   # skip a non-executed python fence whole
                i = _fence_end(lines, i, m["mark"])
            i += 1
            continue
        n = len(described) + 1
        end = _fence_end(lines, i, m["mark"])
        body = lines[i + 1:end]
        include = next((inc[1] for line in body if (inc := _INCLUDE.search(line))), None)
        first = next((line.strip() for line in body if line.strip()), "(empty)")
        described.append(f"block {n} ({include or first[:60]})")
        if 'id="' not in m["attrs"]:
            lines[i] = f'{lines[i]} id="{_slug(page.file.src_uri)}-b{n}"'
        i = end + 1
    _blocks[page.file.src_uri] = described
    _capture.records.clear()
    return "\n".join(lines)


def _slug(src: str) -> str:
    """A block id prefix safe in HTML ids: part1/intuition.md -> part1-intuition."""
    return re.sub(r"[^A-Za-z0-9]+", "-", src.rsplit(".", 1)[0]).strip("-")


def _fence_end(lines: list[str], start: int, mark: str) -> int:
    for j in range(start + 1, len(lines)):
        if lines[j].strip().startswith(mark) and lines[j].strip().strip(mark[0]) == "":
            return j
    return len(lines) - 1


def on_page_content(html, page, config, files, **kwargs):
    src = page.file.src_uri
    if _capture.records:
        errors = [_describe(src, r.getMessage()) for r in _capture.records]
        _capture.records.clear()
        raise PluginError("\n".join(errors))
    _check_formulas(src, html)
    return html


def _describe(src: str, message: str) -> str:
    """One readable error from markdown-exec's warning text."""
    block = re.search(r"code block '([^']*)'", message)
    m = block and re.fullmatch(re.escape(_slug(src)) + r"-b(\d+)", block[1])
    n = int(m[1]) if m else None
    described = _blocks.get(src, [])
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
