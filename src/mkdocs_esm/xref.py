"""Cross-references by label, written with their current number; an unknown label fails.

Syntax (an mkdocs-autorefs reference whose text holds ``#``; the plugin writes the number
in place of ``#``, mkdocs-autorefs writes the link)::

    [section #][sec-static-versus-contextual-meaning]   -> section 1.4
    [(#)][sec-cosine-similarity]                        -> (3.2)
    [equation (#)][eq-lookup]                           -> equation (1.1)
    [exercise #][ex-a-synthetic-analogy-direction]      -> exercise 5
    [mistake #][mistake-anisotropy-forgotten]           -> mistake 9.7
    [chapter #][chapter-self-attention]                 -> chapter P3
    [Section #][sec-intuition]                          -> Section 1

Labels come from what is already on the pages, so none has to be written by hand:

- a numbered heading (``## 1.4 Static versus contextual meaning``, ``# 1 Intuition``) is
  ``<kind>-<its title slugified without the number>``, its number the heading's own; kind
  is ``sec``, or the page's front matter ``xref_kind`` (``ex`` on the exercises, ``mistake``
  on the common mistakes);
- a primer chapter (front matter ``eq_prefix: P3``) is ``chapter-<title slug>``, number P3;
- a display formula ``\\label{name}`` is ``eq-<page file name>-name`` (``eq-intuition-lookup``),
  numbered by mathml.py; on its own page, ``eq-name`` is enough (``[(#)][eq-lookup]``).

Numbered headings must count in step (``N``, then ``N.1``, ``N.2``, ...): a stale number fails
the build. A reference to a label that no page defines fails the build naming page and line
(in a one-page build of tests/sitebuild.py, a label defined on a page left out is only
logged and shown as ``?``). Registers every label with mkdocs-autorefs, which resolves
the links across pages in ``on_env``; xref.py fills in the numbers just before it.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from markdown.extensions.toc import slugify
from mkdocs.exceptions import PluginError

from . import markup, page as pagemodel

log = logging.getLogger("mkdocs.plugins.esm.xref")

#: A cross-reference in Markdown source: [text with #][label].
REF = re.compile(r"\[(?P<text>[^\[\]\n]*#[^\[\]\n]*)\]\[(?P<label>[a-z][a-z0-9._-]*)\]")
_AUTOREF = re.compile(r'<autoref (?P<attrs>[^>]*?)identifier="(?P<label>[^"]+)"(?P<rest>[^>]*)>'
                      r"(?P<text>[^<]*#[^<]*)</autoref>")
NUMBERED = re.compile(r"^(?P<num>\d+(?:\.\d+)*)\s+(?P<title>\S.*)$")
_EQ_LABEL = re.compile(r"\\label\{([^}]*)\}")
_CODE_SPAN = re.compile(r"(`+).+?\1")



def heading_label(kind: str, title: str) -> str:
    return f"{kind}-{slugify(title, '-')}"


def source_lines(text: str):
    """(line number in the file, line) of a page's Markdown outside fenced code, code spans blanked."""
    page = pagemodel.read(text)
    return ((page.offset + i + 1, line) for i, line in page.prose_lines())


def eq_label(src_uri: str, name: str) -> str:
    return f"eq-{Path(src_uri).stem}-{name}"


def source_labels(src_uri: str, text: str) -> set[str]:
    """The labels a page's Markdown source defines (what the rendered page will register)."""
    page = pagemodel.read(text)
    kind = page.meta.get("xref_kind", "sec")
    labels = {eq_label(src_uri, name) for name in _EQ_LABEL.findall(text)}
    for h in page.headings:
        title = _CODE_SPAN.sub(lambda c: " " * len(c[0]), h.text)
        if m := NUMBERED.match(title):
            labels.add(heading_label(kind, m["title"]))
        elif h.level == 1 and "eq_prefix" in page.meta:
            labels.add(heading_label("chapter", title))
    return labels


class Xref:
    """The labels of this build: defined by the sources, registered by the rendered pages."""

    def __init__(self) -> None:
        self.state = None
        self.labels: dict[str, tuple[str, str, str]] = {}    # label -> (number, page src_uri, anchor)
        self.known: set[str] = set()                          # labels defined by the project's sources

    def on_config(self, config, state) -> None:
        if "autorefs" not in config.plugins:
            raise PluginError("the esm plugin's cross-references need the autorefs plugin in mkdocs.yml")
        self.state = state

    def on_pre_build(self, config) -> None:
        self.labels.clear()
        self.known.clear()
        docs = self.state.root / "docs"   # the whole project, even in a subset build
        for path in sorted(docs.rglob("*.md")):
            rel = path.relative_to(docs).as_posix()
            if not config.exclude_docs or not config.exclude_docs.match_file(rel):
                self.known.update(source_labels(rel, path.read_text(encoding="utf-8")))

    def on_page_markdown(self, markdown: str, page) -> None:
        source = page.file.content_string if page.file.src_uri.endswith(".md") else ""
        src = page.file.src_uri
        own = {f"eq-{name}": eq_label(src, name) for name in _EQ_LABEL.findall(source)}
        found = [(n, m["text"], own.get(m["label"], m["label"]))
                 for n, line in source_lines(source) for m in REF.finditer(line)]
        self.state.page(src).refs = found
        unknown = [f"{src}:{n}: unknown cross-reference label '{label}' in [{text}][{label}]"
                   for n, text, label in found if label not in self.known]
        if unknown:
            raise PluginError("\n".join(unknown))

    def _register(self, page, label: str, number: str, anchor: str, plugin) -> None:
        if label in self.labels and self.labels[label][1] != page.file.src_uri:
            raise PluginError(f"{page.file.src_uri}: cross-reference label '{label}' is also defined "
                              f"on {self.labels[label][1]}")
        self.labels[label] = (number, page.file.src_uri, anchor)
        if label != anchor:   # an anchor that is already a heading id needs no alias
            plugin.register_anchor(page, label, anchor, primary=True)

    def register_headings(self, page, config) -> None:
        """Register the labels of the page's numbered headings, from their titles as the source
        writes them (before mathml renders the math of the table of contents, so that a heading
        with math has the label source_labels gives it)."""
        plugin = config.plugins["autorefs"]
        src = page.file.src_uri
        kind = str(page.meta.get("xref_kind", "sec"))
        top = None
        for item in _toc(page.toc.items):
            title = markup.text(item.title).strip()
            m = NUMBERED.match(title)
            if not m:
                if item.level == 1 and "eq_prefix" in page.meta:
                    self._register(page, heading_label("chapter", title), str(page.meta["eq_prefix"]), item.id, plugin)
                continue
            num = m["num"]
            if item.level == 1:
                top, count = num, 0
            elif top is not None and item.level == 2:
                count += 1
                if num != f"{top}.{count}":
                    raise PluginError(f"{src}: heading '{title}' should be numbered {top}.{count}")
            self._register(page, heading_label(kind, m["title"]), num, item.id, plugin)

    def register_equations(self, page, config) -> None:
        """Register the page's equation labels (after mathml numbered its formulas)."""
        plugin = config.plugins["autorefs"]
        src = page.file.src_uri
        for name, number in self.state.page(src).equations.items():
            self._register(page, eq_label(src, name), number, f"eq-{name}", plugin)

    def on_env(self, config, files) -> None:
        """Every reference gets its label's number (before mkdocs-autorefs turns it into a link)."""
        refs = {src: page.refs for src, page in self.state.pages.items() if page.refs}
        missing = [(src, n, text, label) for src, found in refs.items() for n, text, label in found
                   if label not in self.labels]
        if missing:
            lines = [f"{src}:{n}: cross-reference [{text}][{label}]: label is defined on no page of this build"
                     for src, n, text, label in missing]
            if config.validation.links.unrecognized_links >= logging.WARNING:
                raise PluginError("\n".join(lines))
            for line in lines:   # a one-page build: the label's page was left out
                log.info(line)

        def number(m: re.Match, src: str) -> str:
            label = m["label"]
            if label.startswith("eq-") and label not in self.labels:   # eq-name on its own page
                label = eq_label(src, label[3:])
            if label not in self.labels:
                return f'<span class="esm-xref-missing">{m["text"].replace("#", "?")}</span>'
            return (f'<autoref {m["attrs"]}identifier="{label}"{m["rest"]}>'
                    f'{m["text"].replace("#", self.labels[label][0])}</autoref>')

        for file in files:
            if file.page is not None and file.page.content:
                src = file.page.file.src_uri
                file.page.content = _AUTOREF.sub(lambda m: number(m, src), file.page.content)


def _toc(items):
    for item in items:
        yield item
        yield from _toc(item.children)
