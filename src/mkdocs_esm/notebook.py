"""The theory notebook: made from text, executed at every build, shipped light.

Its source, docs/notebook/theory.py, is a jupytext percent file (reviewable as text). At every
build the plugin makes the notebook as it makes every page's (nbmake.py): the source's cells,
with stable ids (``cell-NN``, NN the cell's number in the source) and no outputs, and before the
helper cell (tagged ``esm-helpers``) the setup cells that write the site's helper package
``esm`` whole into a temporary folder (nbmake.setup_cells); the helper cell becomes the
``from esm import ...`` lines of the names its ``# esm:`` lines give (the helpers are written
once, in snippets/esm/). It ships as ``notebook/theory.ipynb``, with the outputs of the
build's run as a reader's kernel shows them (`Notebook.executed`). Then

1. nbrun.py runs its code cells in a fresh kernel as mkdocs-jupyter runs them (its
   ``kernel_name``, ``allow_errors: false``; ``execute: true``, no ``execute_ignore``, no
   ``remove_tag_config`` (mkdocs-jupyter would drop those cells before running the others) and
   ``cache: false`` are required), or takes their outputs from the execution cache, and a
   failing cell becomes a build error naming the notebook, the cell (its number and its line in
   the source), its demo and the exception, instead of mkdocs-jupyter's traceback; the run
   starts with a cell of the build's own (never shipped) that shows each check and published
   value of esm's helpers as an output of its own, its record;
2. nbpage.py converts it with mkdocs-jupyter's nb2html (the setup cells and the records left
   out: the page shows the helper cell under a one-line summary) and rewrites the page light and
   in the site's markup, its checks and values made from the records. It runs before
   execution.py and mathml.py (priority 50), which then treat the page like any other: every
   display formula labelled and checked, all math rendered at build time.

Unless the cache holds the page, the notebook is run (or its outputs taken from the cache) and
converted as soon as the nav is known, in a thread (the kernel is a process of its own), so
that it runs beside the blocks and pages instead of after them; the notebook page's render
waits for it. The converted page is cached too, reused while the whole made notebook (esm's
source in its setup cells included), mkdocs-jupyter's options and the ESM_* environment are
unchanged.

A notebook that is not in an explicit nav (a subset build of other pages) is not built. In
``mkdocs serve``, an edit of the source whose code cells' outputs the cache holds (Markdown
cells edited) takes serve.py's one-page route: ``serve_remake`` makes the notebook again
and names the page and the shipped notebook.
"""

from __future__ import annotations

import copy
import logging
import os
import re
import shutil
import tempfile
import threading
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urljoin

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File
from mkdocs.structure.toc import get_toc
from mkdocs.utils import get_relative_url

from . import execcache, nbmake, nbpage, nbrun
from .compat import mkdocs_jupyter
from .nbmake import HELPER_TAG
from .nbprose import tag_labels

log = logging.getLogger("mkdocs.plugins.esm.notebook")

#: the code that makes the page and the shipped outputs from a run (nbpage.py and what it renders
#: with, nbrun.reader_outputs and the reader's text of nbmake): an edit to it renders the page
#: again, as an edit to the notebook does
RENDERER = "".join(Path(m.__file__).read_text(encoding="utf-8")
                   for m in (nbpage, nbpage.output, nbpage.markup, nbpage.glue, mkdocs_jupyter, nbrun, nbmake,
                             nbmake.nbreader))

NOTEBOOK = "notebook/theory.py"          # docs-relative source, a jupytext percent file
DOWNLOAD = "notebook/theory.ipynb"       # the notebook the site ships

__all__ = ["DOWNLOAD", "HELPER_TAG", "NOTEBOOK", "Notebook", "build_notebook", "cell_lines"]


# ---------------------------------------------------------------------------------------------
# Making the notebook
# ---------------------------------------------------------------------------------------------

def helper_imports(helpers: nbmake.Helpers, lines: list[list[str]]) -> str:
    """The helper cell: one ``from esm import ...`` line per ``# esm:`` line of the source."""
    unknown = [n for names in lines for n in names if n.startswith("_") or not helpers.exports(n)]
    if unknown:
        raise PluginError(f"{NOTEBOOK}: the helper cell names {unknown}, which the package esm does not export")
    intro = ("# The site's helpers, imported from its package esm, which the setup cells above write\n"
             "# (copied from the site's sources when it was built): checks that print a ✓ line each,\n"
             "# figures, and the math the lessons share.")
    return intro + "\n" + "\n".join("from esm import " + ", ".join(names) for names in lines) + "\n"


def build_notebook(source: Path, esm_dir: Path):
    """The notebook from its percent-format source, esm embedded and the helper cell filled,
    ready to ship (an nbformat node, validated)."""
    import jupytext
    import nbformat

    read = jupytext.read(source, fmt="py:percent")
    helpers = nbmake.Helpers(esm_dir)
    helper_cells = [k for k, c in enumerate(read.cells) if HELPER_TAG in c.metadata.get("tags", [])]
    if len(helper_cells) != 1:
        raise PluginError(f"{NOTEBOOK}: expected one cell tagged {HELPER_TAG}, found {len(helper_cells)}")
    at = helper_cells[0]
    lines = [line.split() for line in re.findall(r"^#\s*esm:(.*)$", read.cells[at].source, re.M) if line.split()]
    if not lines:
        raise PluginError(f"{NOTEBOOK}: the {HELPER_TAG} cell names no helper on a '# esm:' line")
    sources = [c.source for c in read.cells]
    sources[at] = helper_imports(helpers, lines)
    cells = []
    for k, (c, text) in enumerate(zip(read.cells, sources)):
        if k == at:
            cells += nbmake.setup_cells(helpers, [s for s, x in zip(sources, read.cells) if x.cell_type == "code"])
        cells.append(nbmake.cell(c.cell_type, text, f"cell-{k + 1:02d}", tags=c.metadata.get("tags", [])))
    nb = nbmake.node(nbmake.notebook(cells))
    nbformat.validate(nb)
    return nb


def cell_lines(source: Path) -> list[int]:
    """The source line (1-based) where each cell of a percent file starts."""
    text = source.read_text(encoding="utf-8").splitlines()
    return [i + 1 for i, line in enumerate(text) if re.match(r"#\s*%%", line)]


def _nav_paths(nav) -> set[str]:
    out: set[str] = set()
    for item in nav if isinstance(nav, list) else [nav]:
        if isinstance(item, dict):
            for value in item.values():
                out |= _nav_paths(value)
        elif isinstance(item, list):
            out |= _nav_paths(item)
        elif isinstance(item, str):
            out.add(item)
    return out


# ---------------------------------------------------------------------------------------------
# Build events
# ---------------------------------------------------------------------------------------------

class Notebook:
    """The theory notebook of this build: made, run (ahead, in a thread), rendered, shipped."""

    def __init__(self) -> None:
        self.root: Path | None = None
        self.esm_dir: Path | None = None        # the helper package, in the python_path option's folders
        self.cache: execcache.ExecCache | None = None
        self.options = ""           # mkdocs-jupyter's options that change what it renders
        self.tmp: Path | None = None    # the folder the made notebook lives in (removed after the build)
        self.nb = None              # the made notebook
        self.source: Path | None = None
        self.lines: list[int] = []  # where each cell starts in the source
        self.made: Path | None = None   # the made notebook's percent file, which mkdocs-jupyter reads
        self.ahead = None           # (thread, result) of a render started at on_nav
        self.areas: list[dict] = []     # the page's text outputs and their records (nbpage.render_notebook)
        self.pending = None         # (the download's File, the notebook it ships) until `ship`
        self.state = None
        self.shipped: list[list[dict]] = []   # each code cell's outputs as the download holds them

    def _take_ahead(self):
        ahead, self.ahead = self.ahead, None
        return ahead

    def on_config(self, config, state) -> None:
        plugin = config.plugins.get("mkdocs-jupyter")
        if plugin is not None:
            c = plugin.config
            wrong = [f"{k}: {c[k]!r} (needs {v!r})" for k, v in
                     (("execute", True), ("execute_ignore", []), ("remove_tag_config", {}), ("allow_errors", False),
                      ("cache", False)) if c[k] != v]
            if wrong:
                raise PluginError("mkdocs-jupyter must execute the notebook at every build and fail on "
                                  "an error: " + "; ".join(wrong))
        self._cleanup()                   # the folder of a serve rebuild that fell back to this full build
        self.__init__()
        self.root = state.root
        self.state = state
        self.esm_dir = state.esm_dir
        self.cache = execcache.ExecCache(state.cache_dir)
        self.options = repr([(k, plugin.config.get(k)) for k in nbpage.RENDER_OPTIONS]) if plugin is not None else ""

    def on_files(self, files, config):
        src = files.get_file_from_path(NOTEBOOK)
        if src is None:
            return files
        files.remove(src)
        if config.nav is not None and NOTEBOOK not in _nav_paths(config.nav):
            log.info("%s is not in the nav: not built", NOTEBOOK)
            return files
        source = Path(src.abs_src_path)
        nb = build_notebook(source, self.esm_dir)
        tmp = Path(tempfile.mkdtemp(prefix="esm-notebook-"))
        self._make(source, nb, tmp)
        # a plain File rooted in the temporary dir: mkdocs-jupyter's wrapper cannot read a File.generated
        files.append(File(NOTEBOOK, src_dir=str(tmp), dest_dir=config.site_dir,
                          use_directory_urls=config.use_directory_urls))
        files.append(File.generated(config, DOWNLOAD, content=nbmake.writes(nb)))
        return files

    def _make(self, source: Path, nb, tmp: Path) -> None:
        """Write the notebook ``nb`` made from ``source`` to ``tmp``/NOTEBOOK, which mkdocs-jupyter
        reads as the page's source (its table of contents: the setup cells, which the page does not
        show, left out), and keep what this build's later events read of it."""
        import jupytext

        self.tmp = tmp                 # removed by _cleanup, even if what follows fails
        made = tmp / NOTEBOOK
        made.parent.mkdir(parents=True, exist_ok=True)
        shown = nbmake.node(nbmake.notebook([c for c in nb.cells if not nbmake.is_setup(c)]))
        made.write_text(jupytext.writes(shown, fmt="py:percent"), encoding="utf-8")
        self.nb, self.source, self.lines, self.made = nb, source, cell_lines(source), made

    def serve_remake(self, path: str, config, files):
        """serve's one-page route, when ``path`` changed: if it is the notebook's source and the
        execution cache holds the outputs of its code cells as they now are (Markdown cells edited,
        or code put back as it was), make the notebook again as on_files does and return the page
        to render again, ``[NOTEBOOK]``, with the shipped notebook to write beside it. The page then
        renders as in any build, its cells' outputs from the cache: no kernel starts. The notebook
        is made in the folder the page's file names (mkdocs-jupyter's wrapper keeps its path), which
        the last build's clean-up removed: it is ours again only if this creates it. None otherwise,
        for serve's full rebuild: another file, a notebook the last build did not make, code whose
        outputs the cache does not hold (a code edit, or ``ESM_CACHE=0``: that build runs the cells
        beside the other pages and reports a failing cell once)."""
        page_file, shipped = files.get_file_from_path(NOTEBOOK), files.get_file_from_path(DOWNLOAD)
        source = Path(config.docs_dir) / NOTEBOOK
        if page_file is None or shipped is None or self.nb is None or \
                os.path.realpath(path) != os.path.realpath(source):
            return None
        nb = build_notebook(source, self.esm_dir)
        job = SimpleNamespace(nb=nb, options=self.options, env=nbrun.env())
        if not self.cache.peek("notebook-run", nbrun.run_parts(job)):
            log.info("%s: the cache holds no outputs of its code cells as they now are: full rebuild", NOTEBOOK)
            return None
        tmp = Path(page_file.src_dir)
        try:
            tmp.mkdir(mode=0o700)
        except OSError:
            return None
        self._make(source, nb, tmp)
        shipped.content_string = nbmake.writes(nb)
        return [NOTEBOOK], [shipped]

    def _parts(self) -> list[str]:
        """The rendered page's cache key: the made notebook (its setup cells, esm's source,
        included), the recorder the run starts with (the page's records come from it), the
        code that renders it (``RENDERER``), mkdocs-jupyter's options, the environment."""
        return [nbmake.writes(self.nb), nbmake.RECORDER, RENDERER, self.options, nbrun.env()]

    def _job(self) -> SimpleNamespace:
        """What this build's notebook run reads, taken once: a run left over from a build that
        failed (its thread is not waited for) reads its own build's notebook and folders, never
        the next build's."""
        return SimpleNamespace(name=NOTEBOOK, nb=self.nb, tmp=self.tmp, made=self.made, cache=self.cache,
                               options=self.options, env=nbrun.env())

    def on_nav(self, config, files) -> None:
        """Start rendering the notebook now, unless the cache holds the page: a thread runs it (its
        kernel is a process of its own) while the other pages are converted, and the notebook page's
        render waits for it. mkdocs renders the notebook last, after every block has run: executed
        then, it kept one CPU idle for as long as the kernel ran."""
        plugin = config.plugins.get("mkdocs-jupyter")
        if plugin is None or files.get_file_from_path(NOTEBOOK) is None or self.made is None:
            return
        if self.cache.peek("notebook", self._parts()):
            return
        ahead, job = SimpleNamespace(done=None, error=None), self._job()

        def run() -> None:
            try:
                ahead.done = nbpage.render_notebook(job, plugin)
            except BaseException as error:                # noqa: BLE001 - re-raised by the page's render
                ahead.error = error

        thread = threading.Thread(target=run, name="esm-notebook", daemon=True)
        thread.start()
        self.ahead = (thread, ahead)

    def on_pre_page(self, page, config) -> None:
        if page.file.src_uri != NOTEBOOK:
            return
        plugin = config.plugins.get("mkdocs-jupyter")
        cache: execcache.ExecCache = self.cache
        parts = self._parts()

        def render_or_fail(config, files):
            cached = cache.get("notebook", parts)
            if cached is not None:
                page.content, page.toc, page.title = cached["content"], get_toc(cached["toc"]), cached["title"]
                self.areas, self.shipped = cached["areas"], cached["shipped"]
                log.info("%s: rendered notebook reused from the execution cache", NOTEBOOK)
                return
            ahead = self._take_ahead()
            try:
                if ahead is None:
                    done = nbpage.render_notebook(self._job(), plugin)
                else:
                    thread, result = ahead
                    thread.join()
                    if result.error is not None:
                        raise result.error
                    done = result.done
            except Exception as error:              # noqa: BLE001 - reported, never published
                raise PluginError(nbrun.describe_failure(error, name=NOTEBOOK, nb=self.nb, lines=self.lines)) from None
            page.content, page.toc, self.areas, self.shipped = done.content, done.toc, done.areas, done.shipped
            if done.title is not None:
                page.title = done.title
            value = {"content": page.content, "toc": nbpage.toc_tokens(page.toc), "title": page.title,
                     "areas": self.areas, "shipped": self.shipped}
            cache.put("notebook", parts, value, nbrun.dependencies(cache, self.nb))

        mkdocs_jupyter.replace_render(page, render_or_fail)

    def on_page_content(self, html: str, page, files) -> str:
        if page.file.src_uri != NOTEBOOK:
            return html
        html = nbpage.outputs(html, self.areas, NOTEBOOK)      # checks and values from the run's records
        html, quoted = nbpage.quote_values(html, self.nb, self.source.read_text(encoding="utf-8"), NOTEBOOK)
        download = files.get_file_from_path(DOWNLOAD)
        if download is not None:
            shipped = self.executed(quoted or self.nb)
            if page.canonical_url:          # a link relative to the page leads nowhere in a download
                for c in shipped.cells:
                    if c.cell_type == "markdown":
                        c.source = re.sub(r"\]\((\.\./[^)\s]*)\)",
                                          lambda m: f"]({urljoin(page.canonical_url, m[1])})", c.source)
            self.pending = (download, shipped)      # written once the formulas are numbered (`ship`)
        setup = [c for c in self.nb.cells if nbmake.is_setup(c)]
        modules = [c for c in setup if re.match(r"%%esm_module \S+\.py\b", c.source)]
        helper = next(c for c in self.nb.cells if HELPER_TAG in c.metadata.get("tags", []))
        names = sum(len(line.split("import", 1)[1].split(",")) for line in helper.source.splitlines()
                    if line.startswith("from esm import"))
        lines = sum(len(c.source.splitlines()) - 1 for c in modules)
        summary = (f"Helper cell: {names} helpers imported from the package esm, which the downloaded "
                   f"notebook's {len(setup)} setup cells write ({len(modules)} modules of snippets/esm/, "
                   f"{lines:,} lines, copied at build time)")
        href = get_relative_url(DOWNLOAD, page.url)
        return nbpage.rewrite(html, href, summary)

    def ship(self, page) -> None:
        """Write the download, each formula's ``\\label`` as its number on the page (mathml.py has
        numbered them: ``state``), as the page notebooks do (nbprose.tag_labels)."""
        if page.file.src_uri != NOTEBOOK or self.pending is None:
            return
        (download, shipped), self.pending = self.pending, None
        equations = self.state.page(NOTEBOOK).equations
        for c in shipped.cells:
            if c.cell_type == "markdown":
                c.source = tag_labels(c.source, equations)
        download.content_string = nbmake.writes(shipped)

    def executed(self, nb):
        """The notebook to ship: ``nb`` (the made notebook, its text quoting this run's values)
        with the outputs of the build's run, as a reader's kernel shows them (nbrun.reader_outputs),
        each code cell numbered as a run from the top numbers it. A reader sees every output
        without running anything."""
        import nbformat

        shipped = copy.deepcopy(nb)
        code = nbrun.code_cells(shipped)
        if len(code) != len(self.shipped):
            raise PluginError(f"{NOTEBOOK}: {len(code)} code cells, but the run gave outputs for {len(self.shipped)}")
        for k, (cell, outputs) in enumerate(zip(code, self.shipped), start=1):
            cell.outputs = [nbformat.from_dict(o) for o in outputs]
            cell.execution_count = k
        return shipped

    def _cleanup(self) -> None:
        tmp, self.tmp = self.tmp, None
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)

    def on_post_build(self) -> None:
        self._cleanup()

    def on_build_error(self) -> None:
        self._cleanup()

