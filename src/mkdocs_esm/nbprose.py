"""A lesson page's Markdown read for its notebook (pagenotebook.py): its executed demos, its
headings, the first paragraph of each section, and that prose made to read in Jupyter
(computed values filled in, cross-references numbered, citations as (author, year), links to
other pages as their text). Everything is read from the one page model (page.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import glue
from . import page as pagemodel
from .cite import CITE, ITEM
from .xref import REF, eq_label

_LINK = re.compile(r"(?<!!)\[(?P<text>[^\[\]\n]+)\]\((?P<url>[^()\s]+)(?:\s+\"[^\"]*\")?\)")
_REFLINK = re.compile(r"\[(?P<text>[^\[\]\n]+)\]\[[^\[\]\n]*\]")
_ATTRS = re.compile(r"\s*\{:?\s*[#.][^{}\n]*\}")


@dataclass
class Demo:
    line: int                 # 0-based line of the fence in the page's Markdown
    code: str                 # what the build runs
    block_id: str             # the id execution.py gives it (tests find its output in the cache)



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


def headings(page) -> list[tuple[int, int, str]]:
    """(line, level, text) of the headings outside fenced code (``page``: its model, Markdown or lines)."""
    return [(h.line, h.level, h.text) for h in read(page).headings]


def first_paragraph(page, start: int, stop: int) -> str:
    """The first paragraph of prose in ``lines[start:stop]`` (not a formula, list, table, code,
    admonition or HTML), with the next one if it is short (a label such as "Difficulty: ..."),
    and the display formula that follows when it ends with a colon or comma."""
    page = read(page)
    lines = page.lines
    fences = {f.start for f in page.fences}
    includes = {inc.line for inc in page.includes}
    out: list[str] = []
    i = start
    while i < stop and len("".join(out)) < 80 and len(out) < 2:
        if not lines[i].strip():
            i += 1
            continue
        j = i
        while j < stop and lines[j].strip():
            j += 1
        para = lines[i:j]
        first = para[0].lstrip()
        if i in fences:
            i = page.fence_end(i) + 1
            continue
        if i in includes or re.match(r"(\$\$|!!!|\?\?\?|\||<|=== |[-*+] |\d+\. |#)", first):
            i = j
            continue
        text = "\n".join(x.strip() for x in para)
        if text.endswith((":", ",")):
            k = j
            while k < stop and not lines[k].strip():
                k += 1
            if k < stop and lines[k].strip().startswith("$$"):
                e = k + 1
                while e < stop and not lines[e].strip().startswith("$$") and not lines[e].rstrip().endswith("$$"):
                    e += 1
                text += "\n\n" + "\n".join(x.strip() for x in lines[k:e + 1])
                j = e + 1
        out.append(text)
        i = j
    return "\n\n".join(out)


def clean_prose(text: str, src: str, values: dict, numbers: dict, cites: dict) -> str:
    """Prose of the page made to read in Jupyter: computed values filled in, cross-references
    with their numbers, citations as (author, year), links to other pages as their text,
    ``\\label`` and attribute lists dropped."""
    text, _ = glue.substitute(text, values, src=src)

    def ref(m: re.Match) -> str:
        label = m["label"]
        if label.startswith("eq-") and label not in numbers:
            label = eq_label(src, label[3:])
        number = numbers.get(label, (None,))[0]
        return m["text"].replace("#", number) if number else m["text"].replace("#", "").strip()

    def cite(m: re.Match) -> str:
        parts = []
        for item in (i.strip() for i in m["body"].split(";")):
            c = ITEM.match(item)
            if not c or c["key"] not in cites:
                return m[0]
            who, year = cites[c["key"]]
            parts.append((year if c["bare"] else f"{who}, {year}") + (f", {c['loc']}" if c["loc"] else ""))
        return "(" + "; ".join(parts) + ")"

    text = REF.sub(ref, text)
    text = CITE.sub(cite, text)
    text = _LINK.sub(lambda m: m[0] if re.match(r"https?://", m["url"]) else m["text"], text)
    text = _REFLINK.sub(lambda m: m["text"], text)
    text = re.sub(r"[ \t]*\\label\{[^}]*\}[ \t]*(\n(?=[ \t]*\S))?", "", text)
    return _ATTRS.sub("", text)
