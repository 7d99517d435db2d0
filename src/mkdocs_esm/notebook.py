"""The theory notebook: made from text, executed at every build, shipped light.

Its source, docs/notebook/theory.py, is a jupytext percent file (reviewable as text). At every
build the plugin

1. makes the notebook: the source's cells, with the helper cell (tagged ``esm-helpers``)
   filled with the snippets/esm/ code it names on its ``# esm:`` lines and whatever that code
   uses, copied from esm's source (the helpers are written once, in snippets/esm/); stable cell ids,
   no outputs. It ships as ``notebook/theory.ipynb``. Its code cells run in a fresh kernel as
   mkdocs-jupyter runs them (nbconvert's ExecutePreprocessor with the configuration
   mkdocs-jupyter makes: its ``kernel_name``, ``allow_errors: false``; ``execute: true``, no
   ``execute_ignore``, no ``remove_tag_config`` (mkdocs-jupyter would drop those cells before
   running the others) and ``cache: false`` are required), and mkdocs-jupyter's nb2html
   converts the notebook with those outputs;
2. turns a failing cell into a build error naming the notebook, the cell (its number and its
   line in the source), its demo and the exception, instead of mkdocs-jupyter's traceback;
3. rewrites the rendered notebook so that it is light and looks like the other pages: drops
   mkdocs-jupyter's ~570 KB of inline CSS and its scripts (an empty ``<script src="">``, a
   cdnjs mermaid loader, MathJax, a clipboard element); gives code cells Material's code-block
   markup (its highlighting and copy button); turns printed ``PASS`` lines into the site's
   check lines; marks the ``$...$``/``$$...$$`` math of Markdown cells for mathml.py; adds
   a download link. It runs before execution.py and mathml.py (priority 50), which
   then treat the page like any other: every display formula labelled and checked, all math
   rendered at build time.

Unless the cache holds the page, the notebook is run (or its outputs taken from the cache) and
converted as soon as the nav is known, in a thread (the kernel is a process of its own), so
that it runs beside the blocks and pages instead of after them; the notebook page's render
waits for it.

Both steps are cached (execcache.py), with the same inputs besides: the mkdocs-jupyter
options, the ESM_* environment, the Python version and the versions of the packages the cells
import and of the toolchain (mkdocs-jupyter, nbconvert, nbclient, ipykernel, jupytext,
pygments). The cells' outputs are reused while the code cells (in order, with their tags; the
esm code copied into the helper cell included) and the kernel spec are unchanged: an edit to a
Markdown cell converts the notebook again without starting a kernel. The converted page is
reused while the whole made notebook is unchanged. A failing notebook is never cached.
``ESM_CACHE=0`` turns the cache off.

A notebook that is not in an explicit nav (a subset build of other pages) is not built. In
``mkdocs serve``, an edit of the source whose code cells' outputs the cache holds (Markdown
cells edited) takes serve.py's one-page route: ``serve_remake`` makes the notebook again
and names the page and the shipped notebook.
"""

from __future__ import annotations

import ast
import copy
import html as htmllib
import logging
import os
import re
import shutil
import tempfile
import threading
from pathlib import Path
from types import SimpleNamespace

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File
from mkdocs.structure.toc import get_toc
from mkdocs.utils import get_relative_url

from . import execcache, glue, output, page as pagemodel
from .compat import mkdocs_jupyter

log = logging.getLogger("mkdocs.plugins.esm.notebook")

NOTEBOOK = "notebook/theory.py"          # docs-relative source, a jupytext percent file
DOWNLOAD = "notebook/theory.ipynb"       # the notebook the site ships
HELPER_TAG = "esm-helpers"
KERNEL = {"name": "python3", "display_name": "Python 3", "language": "python"}

#: what renders the notebook besides its own code: part of its cache key (as versions)
TOOLCHAIN = "import mkdocs_jupyter, nbconvert, nbclient, ipykernel, jupyter_client, jupytext, nbformat, pygments"
#: mkdocs-jupyter options that change what it renders
RENDER_OPTIONS = ("execute", "kernel_name", "theme", "allow_errors", "show_input", "no_input", "no_prompt",
                  "remove_tag_config", "highlight_extra_classes", "include_requirejs", "toc_depth",
                  "custom_mathjax_url", "ignore_h1_titles")



# ---------------------------------------------------------------------------------------------
# Making the notebook
# ---------------------------------------------------------------------------------------------

def _package_modules(esm_dir: Path) -> list[Path]:
    """The package's modules in the order its ``__init__.py`` imports them (``from . import x``)."""
    init = (esm_dir / "__init__.py").read_text(encoding="utf-8")
    names = re.findall(r"^from \. import (\w+)", init, re.M)
    return [esm_dir / f"{name}.py" for name in names]


def helper_source(esm_dir: Path, names: list[str]) -> str:
    """The code of esm's top-level ``names`` and of every esm name they use, module by module in
    the package's order, each in its module's order, preceded by the imports that code needs
    (imports between the package's modules left out: everything is in the cell): a cell that
    runs without esm installed."""
    defs: dict[str, tuple[ast.stmt, list[str]]] = {}
    imports: list[tuple[str, str]] = []          # (bound name, import statement)
    for path in _package_modules(esm_dir):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.parse(text).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                defs[node.name] = (node, lines)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name) and target.id != "__all__":
                        defs[target.id] = (node, lines)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    bound = alias.asname or alias.name.split(".")[0]
                    stmt = f"import {alias.name}" + (f" as {alias.asname}" if alias.asname else "")
                    imports.append((bound, stmt))
            elif isinstance(node, ast.ImportFrom) and node.module != "__future__" and not node.level:
                for alias in node.names:
                    stmt = f"from {node.module} import {alias.name}" + (f" as {alias.asname}" if alias.asname else "")
                    imports.append((alias.asname or alias.name, stmt))

    def code(name: str) -> str:
        node, lines = defs[name]
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1
        while start > 0 and lines[start - 1].startswith("#:"):   # keep a "#:" doc comment
            start -= 1
        return "\n".join(lines[start:node.end_lineno])

    def used(source: str) -> set[str]:
        return {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)}

    unknown = [n for n in names if n not in defs]
    if unknown:
        raise PluginError(f"{NOTEBOOK}: the helper cell names {unknown}, which snippets/esm/ does not define")
    needed: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name not in needed:
            needed.add(name)
            todo += [n for n in used(code(name)) if n in defs and n not in needed]
    chosen = [name for name in dict.fromkeys(defs) if name in needed]
    blocks: list[str] = []
    for name in chosen:           # an Assign binding several names is written once
        block = code(name)
        if block not in blocks:
            blocks.append(block)
    refs = set().union(*(used(b) for b in blocks))
    head = sorted(dict.fromkeys(stmt for bound, stmt in imports if bound in refs),
                  key=lambda stmt: (stmt.startswith("from "), stmt))
    intro = ("# Helpers copied from snippets/esm/ when the site was built (the site's one helper\n"
             "# package): checks that print PASS lines, figures, and the math the lessons share.")
    return intro + "\n" + "\n".join(head) + "\n\n\n" + "\n\n\n".join(blocks) + "\n"


def build_notebook(source: Path, esm_dir: Path):
    """The notebook from its percent-format source, helper cell filled, ready to ship."""
    import jupytext
    import nbformat

    nb = jupytext.read(source, fmt="py:percent")
    helper_cells = 0
    for k, cell in enumerate(nb.cells):
        tags = list(cell.metadata.get("tags", []))
        cell.metadata = {"tags": tags} if tags else {}
        cell.id = f"cell-{k + 1:02d}"
        if HELPER_TAG in tags:
            names = " ".join(re.findall(r"^#\s*esm:(.*)$", cell.source, re.M)).split()
            if not names:
                raise PluginError(f"{NOTEBOOK}: the {HELPER_TAG} cell names no helper on a '# esm:' line")
            cell.source = helper_source(esm_dir, names)
            helper_cells += 1
    if helper_cells != 1:
        raise PluginError(f"{NOTEBOOK}: expected one cell tagged {HELPER_TAG}, found {helper_cells}")
    nb.metadata = {"kernelspec": dict(KERNEL), "language_info": {"name": "python"}}
    nb.nbformat, nb.nbformat_minor = 4, 5
    nbformat.validate(nb)
    return nb


def cell_lines(source: Path) -> list[int]:
    """The source line (1-based) where each cell of a percent file starts."""
    text = source.read_text(encoding="utf-8").splitlines()
    return [i + 1 for i, line in enumerate(text) if re.match(r"#\s*%%", line)]


# ---------------------------------------------------------------------------------------------
# Build events
# ---------------------------------------------------------------------------------------------

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


def _env() -> str:
    """The ESM_* environment, which the kernel inherits (execcache's NOT_INPUTS left out)."""
    return repr(sorted((k, v) for k, v in os.environ.items()
                       if k.startswith("ESM_") and k not in execcache.NOT_INPUTS))


def code_cells(nb) -> list:
    return [c for c in nb.cells if c.cell_type == "code"]


def _dependencies(cache: execcache.ExecCache, nb) -> dict:
    """What the cells import (local modules, package versions) and the toolchain: the inputs
    of both cache entries besides their keys."""
    return cache.dependencies([*(c.source for c in code_cells(nb)), TOOLCHAIN])


def run_parts(job) -> list[str]:
    """The executed cells' cache key: the code cells alone (a Markdown cell does not run), in
    order, each with its tags (nbclient skips a ``skip-execution`` cell and lets a
    ``raises-exception`` cell fail), the kernel spec, mkdocs-jupyter's options and the
    environment."""
    code = [(c.source, c.metadata.get("tags", [])) for c in code_cells(job.nb)]
    return [repr(code), repr(job.nb.metadata.get("kernelspec")), job.options, job.env]


def execute(job, plugin) -> list[dict]:
    """Run the notebook's code cells in a fresh kernel as mkdocs-jupyter runs them (nbconvert's
    ExecutePreprocessor, with the configuration mkdocs-jupyter gives it: its kernel_name and
    allow_errors options and the user's nbconvert configuration, which is not part of the
    key: `ESM_CACHE=0` after changing it); return each code cell's outputs and execution
    count. Reused from the cache while the key (``run_parts``), the modules the cells import
    and the package versions are unchanged: a Markdown cell's edit does not start the kernel."""
    from nbconvert.preprocessors import ExecutePreprocessor

    parts = run_parts(job)
    runs = job.cache.get("notebook-run", parts)
    if runs is not None:
        log.info("%s: cell outputs reused from the execution cache (the code cells are unchanged)", NOTEBOOK)
        return runs
    log.info("%s: running its %d code cells in a fresh kernel", NOTEBOOK,
             len(code_cells(job.nb)))
    executed = copy.deepcopy(job.nb)
    config = mkdocs_jupyter.execute_config(kernel_name=plugin.config["kernel_name"],
                                           allow_errors=plugin.config["allow_errors"])
    if os.name == "posix":
        # The kernel is a local process: it talks to the build over Unix sockets (in Jupyter's
        # runtime folder, removed with the kernel), not over TCP on localhost, for which ipykernel
        # warns that its traffic is unencrypted. (zmq has no such sockets on Windows: TCP there.)
        config.KernelManager.transport = "ipc"
    ExecutePreprocessor(config=config).preprocess(executed, {})
    runs = [{"outputs": c.outputs, "execution_count": c.execution_count} for c in code_cells(executed)]
    job.cache.put("notebook-run", parts, runs, _dependencies(job.cache, job.nb))
    return runs


def render_notebook(job, plugin) -> SimpleNamespace:
    """The notebook page as mkdocs-jupyter renders it (its nb2html and table of contents, with its
    options), from the made notebook with its cells' outputs (``execute``) put in: nbconvert
    converts it without running it again."""
    import nbformat

    nb = copy.deepcopy(job.nb)
    runs = execute(job, plugin)
    for cell, run in zip(code_cells(nb), runs, strict=True):
        cell.outputs = [nbformat.from_dict(o) for o in run["outputs"]]
        cell.execution_count = run["execution_count"]
    # a folder of this run's own (the build's temporary folder is gone if the build failed)
    path = Path(tempfile.mkdtemp(dir=job.tmp)) / Path(NOTEBOOK).with_suffix(".ipynb").name
    nbformat.write(nb, str(path))
    c = plugin.config
    content = mkdocs_jupyter.nb2html(str(path), execute=False, kernel_name=c["kernel_name"], theme=c["theme"],
                                     allow_errors=c["allow_errors"], show_input=c["show_input"],
                                     no_input=c["no_input"], no_prompt=c["no_prompt"],
                                     remove_tag_config=c["remove_tag_config"],
                                     highlight_extra_classes=c["highlight_extra_classes"],
                                     include_requirejs=c["include_requirejs"],
                                     custom_mathjax_url=c["custom_mathjax_url"])
    # nb2html appends the stylesheet of an .ipynb it converts (not of a .py): rewrite() drops it,
    # and without this its indentation would stay behind.
    cut = content.rfind("\n        <style>\n")
    if cut != -1 and content.endswith("</style>\n        "):
        content = content[:cut]
    toc, title = mkdocs_jupyter.nb_toc(str(job.made), c["toc_depth"])
    return SimpleNamespace(content=content, toc=toc, title=None if c["ignore_h1_titles"] else title)


def _toc_tokens(items) -> list[dict]:
    """A table of contents back as the tokens mkdocs.structure.toc.get_toc reads."""
    return [{"level": i.level, "id": i.id, "name": i.title, "children": _toc_tokens(i.children)} for i in items]


# ---------------------------------------------------------------------------------------------
# Rewriting the rendered notebook
# ---------------------------------------------------------------------------------------------

_DROP = re.compile(
    r"<style\b[^>]*>.*?</style>|<script\b[^>]*>.*?</script>|<!--.*?-->"
    r'|<div class="zeroclipboard-container">.*?</clipboard-copy>\s*</div>'
    r'|<div class="clipboard-copy-txt" id="cell-\d+">.*?</div>'
    r'|\s*<div class="jp-Collapser [^"]*">\s*</div>'
    r'|<div class="celltoolbar">.*?</span>\s*</span>\s*</div>\s*</div>',
    re.S,
)
_CODE = re.compile(r'<div class="highlight-ipynb hl-(\w+)\s*"><pre><span></span>(.*?)</pre></div>', re.S)
_TEXT_OUT = re.compile(
    r'<div class="jp-RenderedText jp-OutputArea-output" data-mime-type="text/plain"[^>]*>\s*<pre>'
    r'((?:(?!</pre>).)*)</pre>\s*</div>', re.S)
_PRE_TEXT = r"((?:(?!</pre>).)*)"        # a <pre>'s content: never runs past its own end
_CHILD = (r'<div class="jp-OutputArea-child">\s*<div class="jp-RenderedText jp-OutputArea-output" '
          rf'data-mime-type="text/plain"[^>]*>\s*<pre>{_PRE_TEXT}</pre>\s*</div>\s*</div>')
_CHILD_RUN = re.compile(rf"(?:{_CHILD.replace(_PRE_TEXT, '(?:(?!</pre>).)*')}\s*){{2,}}", re.S)
_MARKDOWN = re.compile(r'(<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown jp-MarkdownOutput"[^>]*>)(.*?)(</div>)', re.S)
_DISPLAY_P = re.compile(r"<p>\s*\$\$(.+?)\$\$\s*</p>", re.S)
_DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.S)
_INLINE = re.compile(r"(?<![\\$])\$(?!\$)(.+?)(?<!\\)\$")
_PROTECT = re.compile(r"<(code|pre)\b.*?</\1>", re.S)
_PASS = re.compile(r"^PASS(?: \[([^\]]+)\])? (.*?): (.*)$")

def _math(segment: str) -> str:
    """Mark the math of rendered Markdown for mathml.py (code spans are left alone)."""
    out, last = [], 0
    for m in _PROTECT.finditer(segment):
        out.append(_math_text(segment[last:m.start()]))
        out.append(m[0])
        last = m.end()
    out.append(_math_text(segment[last:]))
    return "".join(out)


def _math_text(text: str) -> str:
    text = _DISPLAY_P.sub(lambda m: f'<div class="arithmatex">\\[{m[1]}\\]</div>', text)
    text = _DISPLAY.sub(lambda m: f'<div class="arithmatex">\\[{m[1]}\\]</div>', text)
    return _INLINE.sub(lambda m: f'<span class="arithmatex">\\({m[1]}\\)</span>', text)


def _merge_streams(m: re.Match) -> str:
    """Adjacent stdout outputs as one: the kernel splits printed text into chunks at whatever
    moments it flushes (a line may be cut in two), so the chunks differ from build to build."""
    text = "".join(re.findall(_CHILD, m[0], re.S))
    return ('<div class="jp-OutputArea-child">\n<div class="jp-RenderedText jp-OutputArea-output" '
            f'data-mime-type="text/plain">\n<pre>{text}</pre>\n</div>\n</div>\n')


def _output(m: re.Match) -> str:
    """A text output: its PASS lines folded into one closed list of check lines where the first
    stood (output.fold), the rest stays as text."""
    parts, plain, checks, first = [], [], [], None

    def flush():
        if plain:
            parts.append("<pre><code>" + "\n".join(plain) + "</code></pre>")
            plain.clear()

    for raw in m[1].rstrip("\n").split("\n"):
        line = htmllib.unescape(re.sub(r"<[^>]+>", "", raw))      # drop ANSI colour spans
        p = output.CHECK.match(line)
        if p:
            flush()
            checks.append((p["claim"], p["detail"], p["eq"]))
            if first is None:
                first = len(parts)
                parts.append("")
        else:
            plain.append(raw)
    flush()
    if checks:
        parts[first] = output.fold(checks).strip()
    return '<div class="esm-nb-output no-copy">' + "\n".join(parts) + "</div>"


def _value_lines(m: re.Match) -> str:
    """A text output's value lines as their readable text and the marker glue reads."""
    out = []
    for raw in m[1].split("\n"):
        if raw.startswith("value ") and (v := output.parse_value(htmllib.unescape(raw))):
            name, text = v[0], v[1]
            cut = next(k for k in range(len(raw), -1, -1) if htmllib.unescape(raw[:k]) == f"value {name} = {text}")
            out.append(raw[:cut] + "\n\n" + output.marker(name, v[2], v[3]))
        else:
            out.append(raw)
    return m[0].replace(m[1], "\n".join(out), 1)


def _quotes(code: str) -> str:
    """Quotes in code text as &quot;: code that writes HTML (esm's does) then never reads,
    to a search of the page, as markup."""
    return "".join(part if part.startswith("<") else part.replace('"', "&quot;")
                   for part in re.split(r"(<[^>]+>)", code))


def rewrite(html: str, download_href: str, helper_summary: str) -> str:
    """The rendered notebook, light and in the site's own markup (see the module docstring)."""
    html = _DROP.sub("", html)
    html = re.sub(r'\s(?:id="cell-id=[^"]*"|tabindex="0")', "", html)
    html = _CODE.sub(lambda m: f'<div class="language-{m[1]} highlight"><pre><span></span><code>'
                     f"{_quotes(m[2])}</code></pre></div>", html)
    html = re.sub(r'<span class="w">(\s*)</span>', r"\1", html)     # whitespace needs no span
    html = _CHILD_RUN.sub(_merge_streams, html)
    html = _TEXT_OUT.sub(_output, html)
    html = _MARKDOWN.sub(lambda m: m[1] + _math(m[2]) + m[3], html)
    html = html.replace('<a class="anchor-link" href=', '<a class="headerlink" title="Permanent link" href=')
    html = html.replace('<div class="jupyter-wrapper">', '<div class="jupyter-wrapper esm-notebook">', 1)
    # the helper cell: its code folded under a summary
    tag = f"celltag_{HELPER_TAG}"
    at = html.find(tag)
    if at >= 0:
        m = re.compile(r'<div class="language-python highlight">.*?</div>', re.S).search(html, at)
        if m:   # folded, and as plain text: highlighting would weigh five times as much
            plain = re.sub(r"<span[^>]*>|</span>", "", m[0])
            html = (html[:m.start()] + f'<details class="abstract esm-helpers"><summary>{helper_summary}</summary>'
                    + plain + "</details>" + html[m.end():])
    link = (f'<p class="esm-download"><a class="md-button" href="{download_href}" download>'
            f"Download the notebook (theory.ipynb)</a> It runs on its own with numpy and matplotlib.</p>")
    html = re.sub(r"(</h1>)", lambda m: m[1] + "\n" + link, html, count=1)
    if link not in html:
        html = link + html
    return html


#: Appended to the first Markdown cell of the shipped notebook when its text quotes values.
PUBLISHED_RUN_NOTE = (
    "\n\n*Numbers in the text are those of the published run. Each code cell prints the values "
    "the text quotes (`value name = ...`); when you change a parameter and re-run, read those "
    "lines: the text does not change.*"
)


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
        self.esm_dir = state.esm_dir
        self.cache = execcache.ExecCache(state.cache_dir)
        self.options = repr([(k, plugin.config.get(k)) for k in RENDER_OPTIONS]) if plugin is not None else ""

    def on_files(self, files, config):
        src = files.get_file_from_path(NOTEBOOK)
        if src is None:
            return files
        files.remove(src)
        if config.nav is not None and NOTEBOOK not in _nav_paths(config.nav):
            log.info("%s is not in the nav: not built", NOTEBOOK)
            return files
        import nbformat

        source = Path(src.abs_src_path)
        nb = build_notebook(source, self.esm_dir)
        tmp = Path(tempfile.mkdtemp(prefix="esm-notebook-"))
        self._make(source, nb, tmp)
        # a plain File rooted in the temporary dir: mkdocs-jupyter's wrapper cannot read a File.generated
        files.append(File(NOTEBOOK, src_dir=str(tmp), dest_dir=config.site_dir,
                          use_directory_urls=config.use_directory_urls))
        files.append(File.generated(config, DOWNLOAD, content=nbformat.writes(nb) + "\n"))
        return files

    def _make(self, source: Path, nb, tmp: Path) -> None:
        """Write the notebook ``nb`` made from ``source`` to ``tmp``/NOTEBOOK, which mkdocs-jupyter
        reads as the page's source, and keep what this build's later events read of it."""
        import jupytext

        self.tmp = tmp                 # removed by _cleanup, even if what follows fails
        made = tmp / NOTEBOOK
        made.parent.mkdir(parents=True, exist_ok=True)
        made.write_text(jupytext.writes(nb, fmt="py:percent"), encoding="utf-8")
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
        import nbformat

        page_file, shipped = files.get_file_from_path(NOTEBOOK), files.get_file_from_path(DOWNLOAD)
        source = Path(config.docs_dir) / NOTEBOOK
        if page_file is None or shipped is None or self.nb is None or \
                os.path.realpath(path) != os.path.realpath(source):
            return None
        nb = build_notebook(source, self.esm_dir)
        job = SimpleNamespace(nb=nb, options=self.options, env=_env())
        if not self.cache.peek("notebook-run", run_parts(job)):
            log.info("%s: the cache holds no outputs of its code cells as they now are: full rebuild", NOTEBOOK)
            return None
        tmp = Path(page_file.src_dir)
        try:
            tmp.mkdir(mode=0o700)
        except OSError:
            return None
        self._make(source, nb, tmp)
        shipped.content_string = nbformat.writes(nb) + "\n"
        return [NOTEBOOK], [shipped]

    def _parts(self) -> list[str]:
        """The rendered page's cache key: the made notebook, mkdocs-jupyter's options, the environment."""
        return [self.made.read_text(encoding="utf-8"), self.options, _env()]

    def _job(self) -> SimpleNamespace:
        """What this build's notebook run reads, taken once: a run left over from a build that
        failed (its thread is not waited for) reads its own build's notebook and folders, never
        the next build's."""
        return SimpleNamespace(nb=self.nb, tmp=self.tmp, made=self.made, cache=self.cache,
                               options=self.options, env=_env())

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
                ahead.done = render_notebook(job, plugin)
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
                log.info("%s: rendered notebook reused from the execution cache", NOTEBOOK)
                return
            ahead = self._take_ahead()
            try:
                if ahead is None:
                    done = render_notebook(self._job(), plugin)
                else:
                    thread, result = ahead
                    thread.join()
                    if result.error is not None:
                        raise result.error
                    done = result.done
            except Exception as error:              # noqa: BLE001 - reported, never published
                raise PluginError(self.describe_failure(error)) from None
            page.content, page.toc = done.content, done.toc
            if done.title is not None:
                page.title = done.title
            value = {"content": page.content, "toc": _toc_tokens(page.toc), "title": page.title}
            cache.put("notebook", parts, value, _dependencies(cache, self.nb))

        mkdocs_jupyter.replace_render(page, render_or_fail)

    def describe_failure(self, error: Exception) -> str:
        """One line naming the notebook, the cell, its source line, its heading and the error."""
        nb, lines = self.nb, self.lines
        message = str(error)
        m = re.search(r"the following cell:\n-{18}\n(.*?)\n-{18}\n", message, re.S)
        if nb is None or m is None or not hasattr(error, "ename"):
            last = message.strip().splitlines()[-1] if message.strip() else type(error).__name__
            return f"{NOTEBOOK}: the notebook could not be executed: {type(error).__name__}: {last}"
        cells = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.strip() == m[1].strip()]
        k = cells[0] if cells else None
        where = "a cell"
        if k is not None:
            line = f", line {lines[k]}" if k < len(lines) else ""
            heading = next((h for c in reversed(nb.cells[:k]) if c.cell_type == "markdown"
                            for h in [h.text for h in pagemodel.parse(c.source).headings][-1:]), None)
            where = f"cell {k + 1} (docs/{NOTEBOOK}{line}" + (f", under '{heading}'" if heading else "") + ")"
        evalue = " ".join(str(error.evalue).split())
        return f"{NOTEBOOK}: notebook {where} failed: {error.ename}: {evalue}"

    def quote_values(self, html: str, files) -> str:
        """Computed prose in the notebook: the cells print ``value name = ...`` and, under the
        build, a marker; the Markdown cells quote ``{{name}}``. The page gets the values of this
        run; so does the shipped notebook's text, with a note that they are the published run's."""
        import nbformat

        where = glue.line_of(self.source.read_text(encoding="utf-8"))
        html = _TEXT_OUT.sub(_value_lines, _CHILD_RUN.sub(_merge_streams, html))   # whole lines, then values
        held = [html]
        values, problems = glue.collect(held)
        if problems:
            raise PluginError(f"{NOTEBOOK}: " + "; ".join(problems))
        used: set[str] = set()

        def cell(m: re.Match) -> str:
            out, last = [], 0
            for p in _PROTECT.finditer(m[2]):              # code stays as written
                text, names = glue.substitute(m[2][last:p.start()], values, where, NOTEBOOK)
                out += [text, p[0]]
                used.update(names)
                last = p.end()
            text, names = glue.substitute(m[2][last:], values, where, NOTEBOOK)
            used.update(names)
            return m[1] + "".join(out) + text + m[3]

        html = _MARKDOWN.sub(cell, held[0])
        unused = sorted(set(values) - used)
        if unused:
            log.info("%s: computed values quoted nowhere: %s", NOTEBOOK, ", ".join(unused))
        if used:        # the downloaded notebook's text quotes this run, and says so
            nb = nbformat.from_dict(copy.deepcopy(self.nb))
            for c in nb.cells:
                if c.cell_type == "markdown":
                    c.source = glue.substitute(c.source, values, where, NOTEBOOK)[0]
            first = next(c for c in nb.cells if c.cell_type == "markdown")
            first.source += PUBLISHED_RUN_NOTE
            shipped = files.get_file_from_path(DOWNLOAD)
            if shipped is not None:
                shipped.content_string = nbformat.writes(nb) + "\n"
        return html

    def on_page_content(self, html: str, page, files) -> str:
        if page.file.src_uri != NOTEBOOK:
            return html
        html = self.quote_values(html, files)
        nb = self.nb
        helper = next(c for c in nb.cells if HELPER_TAG in c.metadata.get("tags", []))
        n_defs = sum(1 for line in helper.source.splitlines() if re.match(r"(def|class) ", line))
        summary = (f"Helper cell: {n_defs} functions and classes copied from snippets/esm/ "
                   f"at build time ({len(helper.source.splitlines())} lines)")
        href = get_relative_url(DOWNLOAD, page.url)
        return rewrite(html, href, summary)

    def _cleanup(self) -> None:
        tmp, self.tmp = self.tmp, None
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)

    def on_post_build(self) -> None:
        self._cleanup()

    def on_build_error(self) -> None:
        self._cleanup()

