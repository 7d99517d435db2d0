"""A lesson page's Markdown read for its notebook (pagenotebook.py): the whole page in order, its
prose and its executed demos (`lesson`), and that prose made to read in Jupyter (`clean_prose`:
computed values filled in, cross-references numbered and linked to the site's pages, citations as
(author, year) linked to the references page, formulas numbered as the page numbers them,
admonitions as block quotes with their title). Everything is read from the one page model (page.py)."""

from __future__ import annotations

import re
import posixpath
from dataclasses import dataclass
from typing import Callable

from . import glue
from . import page as pagemodel
from .cite import CITE, ITEM
from .xref import REF, eq_label

_LINK = re.compile(r"(?<!!)\[(?P<text>[^\[\]]+)\]\((?P<url>[^()\s]+)(?:\s+\"[^\"]*\")?\)")
_REFLINK = re.compile(r"\[(?P<text>[^\[\]\n]+)\]\[[^\[\]\n]*\]")
_ATTRS = re.compile(r"\s*\{:?\s*[#.][^{}\n]*\}")
_ADMONITION = re.compile(r'^(?P<ind>[ \t]*)(?:!!!|\?\?\?\+?)[ \t]+(?P<kind>[\w-]+)(?:[ \t]+"(?P<title>[^"]*)")?[ \t]*$')
_TAB = re.compile(r'^(?P<ind>[ \t]*)===\+?[ \t]+"(?P<title>[^"]*)"[ \t]*$')


@dataclass
class Demo:
    line: int                 # 0-based line of the fence in the page's Markdown
    code: str                 # what the build runs
    block_id: str             # the id execution.py gives it (tests find its output in the cache)



@dataclass
class Piece:
    """A piece of the lesson in page order: Markdown (``text``) or a demo; ``solution``: on an
    exercise page, the exercise whose solution it belongs to (the notebook puts those last)."""
    text: str
    demo: Demo | None = None
    solution: str | None = None


def lesson(page, demos: list[Demo], *, solutions_last: bool = False) -> list[Piece]:
    """The page in order, as a notebook holds it: Markdown pieces (split at each heading and at each
    demo) and the demos. The page title (its level-1 heading) is left out: the notebook's first cell
    gives it. An admonition becomes a block quote opening with its title in bold, except that a folded
    one (``???``) with no demo inside stays folded, as a ``<details>`` with its title; a
    tab (``=== "Tab"``), its title in bold and its content; with ``solutions_last`` (an exercise
    page), a ``success`` admonition (a solution), with the demos inside it, is marked with the
    exercise it solves (the last level-2 heading) instead."""
    page = read(page)
    lines = page.lines
    at = {d.line: d for d in demos}
    fences = {f.start: f for f in page.fences}
    heads = {h.line: h for h in page.headings}          # the page model's headings (outside fences)
    pieces: list[Piece] = []
    buf: list[str] = []
    stack: list[tuple[int, str, str | None, str]] = []  # open containers: (indent, prefix, solution, closing line)
    exercise = None

    def solution() -> str | None:
        return next((sol for _, _, sol, _ in reversed(stack) if sol is not None), None)

    def flush() -> None:
        while buf and buf[-1].strip() in (">", ""):     # a piece cut inside a block quote
            buf.pop()
        text = "\n".join(buf).strip("\n")
        if text.strip():
            pieces.append(Piece(text, None, solution()))
        buf.clear()

    def emit(line: str) -> None:
        indent, prefix = (stack[-1][0], stack[-1][1]) if stack else (0, "")
        body = line[indent:] if line[:indent].strip() == "" else line.lstrip()
        buf.append((prefix + body) if body.strip() else prefix.rstrip())

    def close() -> None:
        indent, prefix, sol, closing = stack[-1]
        if sol is not None and solution() == sol and all(c[2] is None for c in stack[:-1]):
            flush()                                     # a solution's pieces end with it
        stack.pop()
        outer = stack[-1][1] if stack else ""
        if closing:                                     # a fold: its closing tag after an empty line
            while buf and not buf[-1].strip():
                buf.pop()
            buf.extend(["", outer + closing, outer.rstrip()])
        elif sol is None and prefix:                    # a block quote ends at an empty line
            while buf and buf[-1].strip() in (">", ""):
                buf.pop()
            buf.append(outer.rstrip())

    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip():
            ind = len(line) - len(line.lstrip())
            while stack and ind < stack[-1][0]:
                close()
        if i in fences:
            end = page.fence_end(i)
            if i in at:
                flush()
                pieces.append(Piece("", at[i], solution()))
            else:
                for k in range(i, end + 1):
                    emit(lines[k])
            i = end + 1
            continue
        ind_of = len(line) - len(line.lstrip())
        if m := _ADMONITION.match(line):
            title = m["title"] if m["title"] is not None else m["kind"].capitalize()
            j = i + 1                                   # the admonition's lines: does a demo run inside?
            while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) >= ind_of + 4):
                j += 1
            runs = any(i < k < j for k in at)
            outer = stack[-1][1] if stack else ""
            if solutions_last and m["kind"] == "success" and solution() is None:
                flush()
                stack.append((ind_of + 4, "", exercise or title, ""))
            elif line.lstrip().startswith("???") and not runs:
                # folded on the page (an answer, a hint): folded in Jupyter too, a <details> whose
                # Markdown body Jupyter renders (empty lines around it)
                emit(f"{line[:ind_of]}<details><summary>{title}</summary>")
                if i + 1 < len(lines) and lines[i + 1].strip():     # Markdown inside: after an empty line
                    buf.append(outer.rstrip())
                stack.append((ind_of + 4, outer, None, "</details>"))
            else:
                emit(f"{line[:ind_of]}> **{title}**" if title else f"{line[:ind_of]}>")
                if i + 1 < len(lines) and lines[i + 1].strip():     # the title a paragraph of its own
                    emit(f"{line[:ind_of]}>")
                stack.append((ind_of + 4, outer + "> ", None, ""))
        elif m := _TAB.match(line):
            emit(f"{line[:ind_of]}**{m['title']}**")
            emit("")
            stack.append((ind_of + 4, stack[-1][1] if stack else "", None, ""))
        elif not stack and i in heads:
            if heads[i].level > 1:
                flush()
                buf.append(line)
                if heads[i].level == 2:
                    exercise = heads[i].text
        else:
            emit(line)
        i += 1
    while stack:
        close()
    flush()
    return pieces


def page_demos(markdown, src: str, snippets) -> list[Demo]:
    """The page's executed Python blocks in order, code as markdown-exec receives it (the
    build's own reading, page.exec_blocks); a missing include raises FileNotFoundError."""
    demos = []
    for block in pagemodel.exec_blocks(markdown, src, snippets):
        if block.missing is not None:
            raise FileNotFoundError(block.missing)
        demos.append(Demo(block.line, block.code, block.block_id))
    return demos


def read(page) -> pagemodel.PageSource:
    """The page model of ``page``: itself, or its Markdown as text or lines."""
    if isinstance(page, pagemodel.PageSource):
        return page
    return pagemodel.parse(page if isinstance(page, str) else "\n".join(page))


def clean_prose(text: str, src: str, values: dict, numbers: dict, cites: dict, *,
                url_of: Callable[[str], str | None] | None = None, refs: str | None = None,
                equations: dict | None = None) -> str:
    """Prose of the page made to read in Jupyter: computed values filled in, cross-references
    with their numbers, citations as (author, year), links to other pages as their text,
    attribute lists dropped, a formula's ``\\label`` as its number (``\\tag``, from ``equations``:
    the page's name -> number) or dropped. With ``url_of`` (a page's source path -> its address on
    the published site, or None), cross-references and links to other pages link there, and with
    ``refs`` (the references page's address) citations link to their entry."""
    text, _ = glue.substitute(text, values, src=src)
    # a value quoted inside a code span (the page's markup fills those too): its plain text
    text = re.sub(r"`[^`\n]*`", lambda m: re.sub(
        r"\{\{\s*(\w+)\s*\}\}", lambda v: glue.render(values[v[1]]["value"], values[v[1]]["fmt"])
        if v[1] in values else v[0], m[0]), text)
    url_of = url_of or (lambda _src: None)

    def ref(m: re.Match) -> str:
        label = m["label"]
        if label.startswith("eq-") and label not in numbers:
            label = eq_label(src, label[3:])
        number, where, anchor = numbers.get(label, (None, None, None))
        shown = m["text"].replace("#", number) if number else m["text"].replace("#", "").strip()
        url = url_of(where) if where else None
        return f"[{shown}]({url}#{anchor})" if url and number else shown

    def cite(m: re.Match) -> str:
        parts = []
        for item in (i.strip() for i in m["body"].split(";")):
            c = ITEM.match(item)
            if not c or c["key"] not in cites:
                return m[0]
            who, year = cites[c["key"]]
            shown = (year if c["bare"] else f"{who}, {year}") + (f", {c['loc']}" if c["loc"] else "")
            parts.append(f"[{shown}]({refs}#ref-{c['key']})" if refs else shown)
        return "(" + "; ".join(parts) + ")"

    def link(m: re.Match) -> str:
        url = m["url"]
        if re.match(r"[a-z]+:", url):
            return m[0]
        path, _, frag = url.partition("#")
        target = posixpath.normpath(posixpath.join(posixpath.dirname(src), path)) if path else src
        where = url_of(target) if target.endswith(".md") else None
        return f"[{m['text']}]({where}{'#' + frag if frag else ''})" if where else m["text"]

    text = REF.sub(ref, text)
    text = CITE.sub(cite, text)
    text = _LINK.sub(link, text)
    text = _REFLINK.sub(lambda m: m["text"], text)
    return _ATTRS.sub("", tag_labels(text, equations))


def tag_labels(text: str, equations: dict | None) -> str:
    """Each formula's ``\\label{name}`` as its number on the page (``\\tag{number}``, ``equations``:
    name -> number), or dropped: Jupyter's renderers number no formula, and KaTeX rejects ``\\label``."""
    def label(m: re.Match, group: int = 1) -> str:
        number = (equations or {}).get(m[group])
        return f"\\tag{{{number}}}" if number else ""

    # a label on a line of its own goes with its line when the formula has no number to show
    text = re.sub(r"^([ \t>]*)\\label\{([^}]*)\}[ \t]*\n",
                  lambda m: f"{m[1]}{label(m, 2)}\n" if label(m, 2) else "", text, flags=re.M)
    return re.sub(r"[ \t]*\\label\{([^}]*)\}", label, text)
