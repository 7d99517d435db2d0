"""Citations from one BibTeX file, docs/references.bib, parsed and formatted by pybtex.

Prose cites by key, in Pandoc's syntax::

    [@vaswani2017attention]                      -> (Vaswani et al., 2017)
    [@mikolov2013efficient; @pennington2014glove] -> (Mikolov et al., 2013; Pennington et al., 2014)
    [@levy2014neural, sec. 3]                    -> (Levy and Goldberg, 2014, sec. 3)
    Levy and Goldberg [-@levy2014neural]         -> Levy and Goldberg (2014)

Each author-year is a link to the entry on the one bibliography page, ``references/``, which
the plugin writes from the BibTeX file (sorted by author, year, title; pybtex's plain style).
A key missing from the file fails the build naming page and line; entries cited nowhere are
reported at the end of the build. The .bib file itself is not published.
"""

from __future__ import annotations

import functools
import logging
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File
from pybtex.database import parse_file
from pybtex.plugin import find_plugin
from pybtex.richtext import Text

from . import page as pagemodel

log = logging.getLogger("mkdocs.plugins.esm.cite")

BIB = "references.bib"
PAGE = "references.md"
CITE = re.compile(r"\[(?P<body>-?@[^\[\]\n]*)\]")
ITEM = re.compile(r"^(?P<bare>-?)@(?P<key>[\w:.-]+)(?:,\s*(?P<loc>\S.*))?$")
_CODE_SPAN = re.compile(r"(`+).+?\1")



@functools.cache
def _text_backend():
    """pybtex's plain-text backend, looked up once: ``render_as("text")`` looks it up for every
    name, and each look-up scans every installed distribution's entry points (~2 s a build)."""
    return find_plugin("pybtex.backends", "text")()


def author_year(entry) -> tuple[str, str]:
    people = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [Text.from_latex(" ".join(p.last_names)).render(_text_backend()) for p in people]
    if len(names) > 2 or "others" in names:
        who = f"{names[0]} et al."
    else:
        who = " and ".join(names) or entry.fields.get("title", "?")
    return who, entry.fields.get("year", "n.d.")


def labels_of(entries) -> dict[str, tuple[str, str]]:
    """key -> (authors, year) of each entry; the same authors in the same year: 2017a, 2017b."""
    labels: dict[str, tuple[str, str]] = {}
    seen: dict[tuple[str, str], list[str]] = {}
    for key, entry in entries.items():
        labels[key] = author_year(entry)
        seen.setdefault(labels[key], []).append(key)
    for (who, year), keys in seen.items():
        if len(keys) > 1:
            for k, key in enumerate(sorted(keys, key=lambda k: entries[k].fields.get("title", ""))):
                labels[key] = (who, f"{year}{'abcdefghij'[k]}")
    return labels


def bibliography(entries, labels) -> str:
    """The references page's Markdown."""
    style = find_plugin("pybtex.style.formatting", "plain")(sorting_style="author_year_title")
    backend = find_plugin("pybtex.backends", "html")()
    from pybtex.database import BibliographyData
    formatted = style.format_bibliography(BibliographyData(entries=entries))
    items = []
    for entry in formatted:
        who, year = labels[entry.key]
        items.append(f'<li id="ref-{entry.key}"><strong>{who} ({year}).</strong> '
                     f"{entry.text.render(backend)}</li>")
    return ("# References\n\nEvery source the site cites, from `docs/references.bib`. A citation "
            "such as (Vaswani et al., 2017) in the text links here.\n\n"
            '<ul class="esm-bibliography">\n' + "\n".join(items) + "\n</ul>\n")


class Cite:
    """[@key] citations: the bibliography of docs/references.bib and the keys this build cited."""

    def __init__(self) -> None:
        self.entries: dict = {}
        self.labels: dict[str, tuple[str, str]] = {}
        self.cited: set[str] = set()

    def on_config(self, config) -> None:
        path = Path(config.docs_dir) / BIB
        if not path.is_file():
            raise PluginError(f"citations: {path} is missing")
        self.entries = dict(parse_file(str(path), "bibtex").entries)
        self.labels = labels_of(self.entries)

    def on_files(self, files, config) -> None:
        bib = files.get_file_from_path(BIB)
        if bib is not None:
            files.remove(bib)   # the source is not published
        files.append(File.generated(config, PAGE, content=bibliography(self.entries, self.labels)))

    def on_pre_build(self) -> None:
        self.cited.clear()

    def _render(self, body: str, where: str) -> str:
        parts = []
        for item in (i.strip() for i in body.split(";")):
            m = ITEM.match(item)
            if not m:
                raise PluginError(f"{where}: malformed citation [{body}] (write [@key] or [@a; @b])")
            key = m["key"]
            if key not in self.labels:
                raise PluginError(f"{where}: citation key '{key}' is not in docs/{BIB}")
            self.cited.add(key)
            who, year = self.labels[key]
            text = year if m["bare"] else f"{who}, {year}"
            parts.append(f"[{text}][ref-{key}]" + (f", {m['loc']}" if m["loc"] else ""))
        return "(" + "; ".join(parts) + ")"

    def on_page_markdown(self, markdown: str, page) -> str:
        src = page.file.src_uri
        source = page.file.content_string if src.endswith(".md") else ""
        head = markdown.lstrip("\n")[:200]
        offset = source[:source.find(head)].count("\n") if head and head in source else 0
        parsed = pagemodel.parse(markdown)
        lines = list(parsed.lines)
        for n, line in parsed.outside_fences():
            if "@" not in line:
                continue
            spans = [(c.start(), c.end()) for c in _CODE_SPAN.finditer(line)]
            where = f"{src}:{n + 1 + offset}"
            lines[n] = CITE.sub(lambda c: c[0] if any(a <= c.start() < b for a, b in spans)
                                 else self._render(c["body"], where), line)
        return "\n".join(lines)

    def on_page_content(self, page, config) -> None:
        if page.file.src_uri == PAGE:
            plugin = config.plugins["autorefs"]
            for key in self.entries:
                plugin.register_anchor(page, f"ref-{key}", f"ref-{key}", primary=True)

    def on_post_build(self) -> None:
        unused = sorted(set(self.entries) - self.cited)
        if unused:
            log.info(f"docs/{BIB}: {len(unused)} entries cited on no page built: {', '.join(unused)}")
