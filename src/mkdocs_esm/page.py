"""One reading of a page's Markdown source: front matter, code fences, includes and headings.

Every feature that reads a page's source reads it here, once per text: execution (its
executed blocks, their ids and look-ahead), the page notebooks (demos and the headings they sit
under), cross-references and citations (the lines outside fenced code) and fast serve (which
pages include a snippet). Nothing else in the package parses fences, includes, headings or
front matter (tests/test_page_model.py scans for it).

- Front matter: MkDocs' own reader (``mkdocs.utils.meta.get_data``), so the Markdown here is
  the Markdown that ``on_page_markdown`` receives.
- Fences: an opening of three or more backticks or tildes (indented or not, inside tabs and
  admonitions), closed by the first later line of the same character, at least as long, and
  nothing else; an unclosed fence runs to the end of the page.
- Includes: pymdownx.snippets' own pattern (``SnippetPreprocessor.RE_ALL_SNIPPETS``), matched on
  every line as pymdownx.snippets does (inside fences or not). Supported: the one-line form
  ``--8<-- "path"`` of a file under the snippets' base path. Refused with an error saying so:
  the block form, line ranges and sections (``"path:1:5"``, ``"path:name"``) and URLs.
  An escaped include (``;--8<--``) is text, as for pymdownx.snippets.
- Headings: ATX headings (``## 3.1 Title {#id}``) outside fences.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

from mkdocs.utils.meta import get_data
from pymdownx.snippets import SnippetPreprocessor

#: an opening (or closing) fence: its indentation, its mark and the rest of the line (language, options)
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<mark>`{3,}|~{3,})[ \t]*(?P<info>[^\n]*)$")
_HEADING = re.compile(r"^(?P<hashes>#{1,6})\s+(?P<text>.+?)\s*(?:\{[^}]*\})?\s*#*\s*$")
_EXEC_ON = re.compile(r'\bexec="(?:on|1|true|yes)"')
_PYTHON = re.compile(r"python\b")
_CODE_SPAN = re.compile(r"(`+).+?\1")


class IncludeError(ValueError):
    """An include this reading does not follow (pymdownx.snippets would)."""


@dataclass(frozen=True)
class Fence:
    start: int          # 0-based line of the opening
    end: int            # 0-based line of the closing (the last line when unclosed)
    indent: str
    mark: str
    info: str           # the opening's text after the mark: language and options

    @property
    def python(self) -> bool:
        return bool(_PYTHON.match(self.info))

    @property
    def attrs(self) -> str:
        """The options after the language."""
        return self.info[len(self.info.split(None, 1)[0]):] if self.info.strip() else ""

    @property
    def executed(self) -> bool:
        """A Python block markdown-exec runs (``exec="on"``)."""
        return self.python and bool(_EXEC_ON.search(self.attrs))

    def option(self, name: str) -> str | None:
        m = re.search(rf'\b{name}="([^"]*)"', self.attrs)
        return m[1] if m else None


@dataclass(frozen=True)
class Include:
    line: int           # 0-based
    space: str          # its indentation, which pymdownx.snippets gives each pasted line
    path: str           # relative to the snippets' base path


@dataclass(frozen=True)
class Heading:
    line: int           # 0-based
    level: int
    text: str           # without the attribute list and closing hashes


def snippet_dirs(config) -> list[str]:
    """The folders pymdownx.snippets pastes includes from (its ``base_path``), absolute."""
    base = (config.mdx_configs.get("pymdownx.snippets") or {}).get("base_path") or []
    return [os.path.abspath(os.fspath(b)) for b in ([base] if isinstance(base, (str, os.PathLike)) else base)]


def include(line: str, where: str = "") -> Include | None:
    """The include a line makes (line number 0), None if it makes none; raises `IncludeError`
    for the forms pymdownx.snippets supports and this reading does not."""
    if "8<-" not in line:
        return None
    m = SnippetPreprocessor.RE_ALL_SNIPPETS.match(line)
    if m is None or m["escape"]:
        return None
    at = f"{where}: " if where else ""
    if not m["inline_marker"]:
        raise IncludeError(f"{at}the block form of pymdownx.snippets (--8<-- on a line of its own) is not "
                           f"followed by the esm plugin: write one line per file, --8<-- \"path\"")
    path = m["snippet"][1:-1].strip()
    if re.match(r"[a-z][a-z0-9+.-]*://", path, re.I):
        raise IncludeError(f"{at}--8<-- {m['snippet']}: URL includes are not followed by the esm plugin")
    split = SnippetPreprocessor.RE_SNIPPET_FILE.match(path)
    if split is not None and (split[2] or split[3]):
        raise IncludeError(f"{at}--8<-- {m['snippet']}: line ranges and sections are not followed by the esm "
                           "plugin: include the whole file")
    return Include(0, m["space"], path)


@dataclass(frozen=True)
class PageSource:
    """A page's Markdown (front matter taken off), its front matter and what its lines hold."""

    markdown: str
    meta: dict
    offset: int                 # the lines of the file before the Markdown (its front matter)
    lines: tuple[str, ...]
    fences: tuple[Fence, ...]
    includes: tuple[Include, ...]
    headings: tuple[Heading, ...]

    def outside_fences(self):
        """(0-based line, line) of the lines outside fenced code."""
        inside = set()
        for f in self.fences:
            inside.update(range(f.start, f.end + 1))
        return ((i, line) for i, line in enumerate(self.lines) if i not in inside)

    def prose_lines(self):
        """(0-based line, line) outside fenced code, code spans blanked."""
        for i, line in self.outside_fences():
            yield i, _CODE_SPAN.sub(lambda c: " " * len(c[0]), line) if "`" in line else line

    def includes_in(self, fence: Fence) -> list[Include]:
        return [inc for inc in self.includes if fence.start < inc.line < fence.end]

    def fence_end(self, line: int) -> int:
        """The closing line of the fence that opens at (or holds) ``line``; ``line`` if none does."""
        return next((f.end for f in self.fences if f.start <= line <= f.end), line)


def read(text: str) -> PageSource:
    """A page's file as MkDocs reads it: front matter by MkDocs' reader, then `parse`."""
    markdown, meta = get_data(text)
    return _parse(markdown, meta, text[:len(text) - len(markdown)].count("\n"))


def read_file(path: Path) -> PageSource:
    return read(Path(path).read_text(encoding="utf-8-sig"))


def parse(markdown: str, meta: dict | None = None) -> PageSource:
    """The Markdown of a page (front matter already off, as ``on_page_markdown`` receives it)."""
    return _parse(markdown, meta or {})


@functools.lru_cache(maxsize=256)
def _parse_lines(markdown: str) -> tuple:
    lines = tuple(markdown.split("\n"))
    fences, includes, headings = [], [], []
    i = 0
    while i < len(lines):
        line = lines[i]
        if (inc := include(line, f"line {i + 1}")) is not None:
            includes.append(Include(i, inc.space, inc.path))
        m = _FENCE.match(line)
        if m:
            end = _closing(lines, i, m["mark"])
            for j in range(i + 1, end + 1):
                if (inc := include(lines[j], f"line {j + 1}")) is not None:
                    includes.append(Include(j, inc.space, inc.path))
            fences.append(Fence(i, end, m["indent"], m["mark"], m["info"]))
            i = end + 1
            continue
        h = _HEADING.match(line)
        if h:
            headings.append(Heading(i, len(h["hashes"]), h["text"].strip()))
        i += 1
    return lines, tuple(fences), tuple(includes), tuple(headings)


def _parse(markdown: str, meta: dict, offset: int = 0) -> PageSource:
    lines, fences, includes, headings = _parse_lines(markdown)      # once per text
    return PageSource(markdown, meta, offset, lines, fences, includes, headings)


def _closing(lines, start: int, mark: str) -> int:
    for j in range(start + 1, len(lines)):
        s = lines[j].strip()
        if s.startswith(mark) and s.strip(mark[0]) == "":
            return j
    return len(lines) - 1


# ---------------------------------------------------------------------------------------------
# The executed blocks, as markdown-exec receives them
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ExecBlock:
    """One ``exec="on"`` block of a page's Markdown, as markdown-exec will receive it."""
    line: int                   # the line of its opening fence
    code: str                   # includes pasted, indentation removed (cut short at a missing include)
    block_id: str               # its id: given, or the one on_page_markdown gives it
    session: bool               # it runs in a markdown-exec session (in-process, never ahead)
    missing: Path | None = None  # the include that is not there
    include: str | None = None  # the first file it includes


def block_slug(src: str) -> str:
    """A block id prefix safe in HTML ids: part1/intuition.md -> part1-intuition."""
    return re.sub(r"[^A-Za-z0-9]+", "-", src.rsplit(".", 1)[0]).strip("-")


def exec_blocks(page: PageSource | str, src: str, snippet_dirs: list[Path] | Path) -> list[ExecBlock]:
    """A page's executed blocks in order: ids as on_page_markdown gives them, snippets pasted in
    as pymdownx.snippets does (from the first base path holding the file). ``page``: the page's
    reading, or its Markdown without front matter."""
    page = parse(page) if isinstance(page, str) else page
    snippet_dirs = [Path(snippet_dirs)] if isinstance(snippet_dirs, (str, Path)) else [Path(d) for d in snippet_dirs]
    out: list[ExecBlock] = []
    for fence in page.fences:
        if not fence.executed:
            continue
        n = len(out) + 1
        block_id = fence.option("id")
        block_id = block_id if block_id is not None else f"{block_slug(src)}-b{n}"
        body: list[str] = []
        missing = None
        first = None
        includes = {inc.line: inc for inc in page.includes_in(fence)}
        blank = False           # pymdownx.snippets ends a pasted file that ends in a newline with an
        for k in range(fence.start + 1, fence.end):     # empty line (dropped at the fence's end)
            inc = includes.get(k)
            if blank:
                body.append(inc.space if inc is not None else "")
                blank = False
            if inc is None:
                body.append(page.lines[k])
                continue
            first = first or inc.path
            path = next((d / inc.path for d in snippet_dirs if (d / inc.path).is_file()), None)
            if path is None:
                missing = (snippet_dirs[0] if snippet_dirs else Path(".")) / inc.path
                break
            text = path.read_text(encoding="utf-8")
            body += [inc.space + x for x in text.splitlines()]
            blank = text.endswith(("\n", "\r"))
        indent = len(fence.indent)
        code = "\n".join(x[indent:] if x[:indent].strip() == "" else x.lstrip() for x in body) + "\n"
        out.append(ExecBlock(fence.start, code, block_id, fence.option("session") not in (None, ""), missing,
                             first))
    return out
