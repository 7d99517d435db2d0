"""Making a notebook and embedding esm: the one way both notebooks of the site, the theory
notebook (notebook.py) and every lesson page's (pagenotebook.py), are written.

- Cells as nbformat 4.5 writes them, with the ids, tags and metadata their makers give
  (`cell`); the notebook's metadata and kernel spec (`notebook`); its text (`writes`).
- esm embedded whole (`setup_cells`): setup cells (tagged ``esm-setup``, their source collapsed
  in Jupyter). The first makes a temporary folder (removed when the kernel exits), puts it first
  on ``sys.path``, defines the cell magic ``%%esm_module`` that writes a cell into that folder's
  ``esm/`` package, and a ``print`` that shows what the demos print as a reader reads it
  (nbreader.py, which the next setup cell holds and the build applies to the outputs it ships:
  `outputs`). Then one ``%%esm_module`` cell per module of snippets/esm/ the code
  needs, copied verbatim: the modules ``esm/__init__.py`` imports, and ``esm.<sub>`` modules the
  code imports (``esm.train``), with their relative imports, and the seed-sweep records the code
  reads through ``esm.sweeps`` (``records/<name>.json``). Whole modules keep
  ``inspect.getsource``, relative imports and the seed records working; nothing is written
  outside the temporary folder.
- What the code needs besides numpy and matplotlib (`Helpers.requirements`): the packages the
  helpers import lazily and the pretrained-weight packages of data-requirements.txt, found by
  following, in esm's source, the helpers the code imports.
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import inspect
import json
import re
import sys
from pathlib import Path

from . import nbreader, output

SETUP_TAG = "esm-setup"
#: the theory notebook's cell that imports the helpers its demos use (``from esm import ...``)
HELPER_TAG = "esm-helpers"
KERNEL = {"name": "python3", "display_name": "Python 3", "language": "python"}
#: what every notebook needs; the rest is found in the code
BASE = ("numpy", "matplotlib")

_FROM_ESM = re.compile(r"^[ \t]*from[ \t]+(esm(?:\.\w+)?)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)
_ESM_ATTR = re.compile(r"\besm\.(\w+)")
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w., \t]+)", re.M)
_FROM = re.compile(r"^[ \t]*from[ \t]+(\w+)[\w.]*[ \t]+import\b", re.M)


# ---------------------------------------------------------------------------------------------
# esm's source, and what a notebook's code needs of it
# ---------------------------------------------------------------------------------------------

def _relative_imports(tree: ast.AST) -> list[str]:
    """The esm modules a module of esm imports: relatively, or by name (``from esm.backward
    import``, as the page's code writes it)."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names += [node.module] if node.module else [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("esm."):
            names.append(node.module.split(".")[1])
    return names


class Helpers:
    """esm's source read once per build: its definitions by module, for the requirements of a page."""

    def __init__(self, esm_dir: Path, data_requirements: Path | None = None) -> None:
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
        if data_requirements is not None and data_requirements.is_file():
            for line in data_requirements.read_text(encoding="utf-8").splitlines():
                if m := re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", line):
                    self.pins[m[1].replace("-", "_").lower()] = f"{m[1]}=={m[2]}"
        self.dists: dict | None = None          # import name -> distributions, read when first needed
        self.direct: dict = {}
        self.names: dict[str, str] = {}
        self._base: set[str] | None = None

    def modules(self, codes: list[str]) -> list[str]:
        """The esm modules (file names) the demos need, ``__init__.py`` last: the modules that define
        what the demos import from ``esm`` (``from esm import name``: the star-imported module that
        defines it), the ``esm.<sub>`` modules they import, and their relative imports, in the
        package's order. A demo that imports ``esm`` itself gets every module ``__init__`` imports."""
        wanted: set[str] = set()
        for code in codes:
            wanted |= set(re.findall(r"^\s*(?:from|import)\s+esm\.(\w+)", code, re.M))
            if re.search(r"^\s*import\s+esm\s*$", code, re.M):
                wanted |= set(self.rel.get("__init__", []))
            for mod, names in _FROM_ESM.findall(code):
                if mod != "esm":
                    continue
                for name in re.split(r"[,\s()]+", re.sub(r"#[^\n]*", "", names)):
                    name = name.split(" as ")[0].strip()
                    found = self._public(name) if name else None
                    if found is not None:
                        wanted.add(found[0])
                    elif name and name != "*":
                        wanted |= set(self.rel.get("__init__", []))      # not found: keep everything
        todo = list(wanted)
        while todo:
            for dep in self.rel.get(todo.pop(), []):
                if dep not in wanted:
                    wanted.add(dep)
                    todo.append(dep)
        ordered = [n for n in dict.fromkeys(self.rel.get("__init__", [])) if n in wanted]
        ordered += sorted(n for n in wanted if n not in ordered and n in self.rel)
        return [f"{n}.py" for n in ordered] + ["__init__.py"]

    def init_source(self, modules: list[str]) -> str:
        """esm's ``__init__.py`` cut to ``modules`` (file names): its star imports and ``__all__`` of
        the modules a notebook does not carry left out, its docstring saying so."""
        keep = {m[:-3] for m in modules}
        dropped = [m for m in dict.fromkeys(self.rel.get("__init__", [])) if m not in keep]
        text = self.sources["__init__.py"]
        if not dropped:
            return text
        tree = ast.parse(text)
        doc = tree.body[0] if tree.body and isinstance(tree.body[0], ast.Expr) else None
        body = text.splitlines(keepends=True)[doc.end_lineno:] if doc is not None else text.splitlines(keepends=True)
        out = []
        for line in body:
            if any(re.match(rf"from \.(?: import {m} as _{m}\b|{m} import \*)", line) for m in dropped):
                continue
            for m in dropped:
                line = re.sub(rf"\*_{m}\.__all__,?\s*", "", line)
            out.append(line)
        kept = ", ".join(m for m in dict.fromkeys(self.rel.get("__init__", [])) if m in keep)
        head = (f'"""The helpers of Embedding Space Math\'s demos, as this notebook carries them: the modules its\n'
                f'demos use ({kept}); the site\'s package also has {", ".join(dropped)}."""\n')
        return head + re.sub(r",\s*\]", "]", "".join(out))

    def records(self, codes: list[str]) -> list[tuple[str, str]]:
        """The seed-sweep records the demos read (``record("name")`` of esm.sweeps), as
        (``records/<name>.json``, its data as one compact line: a notebook shows the cell, which no
        reader needs to read): the notebook's demos check their run against them."""
        names = sorted({m for code in codes if re.search(r"\besm\.sweeps\b", code)
                        for m in re.findall(r"\brecord\(\s*[\"']([\w.-]+)[\"']", code)})
        return [(f"records/{n}.json", json.dumps(json.loads((self.dir / "records" / f"{n}.json").read_text(encoding="utf-8")),
                                                  separators=(",", ":"), ensure_ascii=False) + "\n") for n in names]

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

    def exports(self, name: str) -> bool:
        """Whether ``from esm import name`` works: a module ``__init__.py`` star-imports defines it
        and lists it in its ``__all__``."""
        found = self._public(name)
        return found is not None and re.search(rf"['\"]{re.escape(name)}['\"]", self._all(found[0])) is not None

    def _all(self, mod: str) -> str:
        node = self.defs[mod].get("__all__", [None])[0]
        return ast.get_source_segment(self.sources[f"{mod}.py"], node) or "" if node is not None else ""

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
# Cells, setup cells, the notebook
# ---------------------------------------------------------------------------------------------

SETUP = '''\
# Setup (run it first): the helper package `esm` of the site, written into a temporary folder
# that is removed when the kernel stops; nothing is written anywhere else.
import builtins
import os
import sys
import tempfile
import types
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


@register_cell_magic
def esm_reader(line, cell):
    """`%%esm_reader`: the module that puts what the demos print in words (the next cell)."""
    module = types.ModuleType("esm_reader")
    exec(compile(cell, "esm_reader.py", "exec"), module.__dict__)
    module.flow = module.Flow()
    sys.modules["esm_reader"] = module


def print(*args, sep=" ", end="\\n", **kwargs):
    """print, except that the helpers' lines read as a person would write them: a check as
    ✓ claim (detail), the values a demo publishes gathered at the end of its cell, a figure, a
    table or a folded block shown as one (esm_reader, the next cell). The build's own run of the
    theory notebook (_esm_build_run) keeps the lines the build reads."""
    reader = sys.modules.get("esm_reader")
    if kwargs or reader is None or globals().get("_esm_build_run"):
        return builtins.print(*args, sep=sep, end=end, **kwargs)
    for kind, text in reader.pieces(sep.join(str(a) for a in args) + end):
        if kind == "text":
            builtins.print(reader.flow.text(text), end="")
        else:
            reader.flow.display()
            display(reader.bundle(kind, text), metadata={"esm_print_end": ""}, raw=True)


def _esm_cell_starts(*_):
    if "esm_reader" in sys.modules:
        sys.modules["esm_reader"].flow = sys.modules["esm_reader"].Flow()


def _esm_cell_ends(*_):
    quoted = sys.modules["esm_reader"].flow.quoted() if "esm_reader" in sys.modules else None
    if quoted is not None:
        display(quoted, metadata={"esm_print_end": ""}, raw=True)


_ip = get_ipython()
for _event, _hook in (("pre_run_cell", _esm_cell_starts), ("post_run_cell", _esm_cell_ends)):
    for _old in [f for f in _ip.events.callbacks[_event] if getattr(f, "__name__", "") == _hook.__name__]:
        _ip.events.unregister(_event, _old)          # the setup run again
    _ip.events.register(_event, _hook)
'''

#: the setup cell after SETUP: esm_reader, the module (nbreader.py) that puts printed output in words
READER_CELL = "%%esm_reader\n" + inspect.getsource(nbreader)



#: what the recorder's displays carry: one record of esm's helpers (output.RECORD_EVENTS)
RECORD_MIME = "application/vnd.esm.record+json"

#: The build's own first cell, in the run of the theory notebook the build makes (nbrun.execute)
#: and in no notebook a reader gets: it hears esm's records (the audit events of a check and a
#: published value) and shows each as an output of its own (``RECORD_MIME``), in order with the
#: printed text (ipykernel sends what was printed before it first), for the build to read
#: (nbrun.text_areas) and take out before the page is made.
RECORDER = '''\
# The build's run only (never in a shipped notebook): esm's checks and values as outputs, and the
# setup's print keeps the lines the build reads.
_esm_build_run = True


def _esm_recorder():
    import sys
    from IPython.display import display

    def hear(event, args):
        if event in @EVENTS@:
            display({"@MIME@": {"event": event, "args": list(args)}}, raw=True)
    sys.addaudithook(hear)


_esm_recorder()
del _esm_recorder
'''.replace("@EVENTS@", repr(tuple(output.RECORD_EVENTS))).replace("@MIME@", RECORD_MIME)


def cell(kind: str, source: str, cid: str, tags=(), hidden=False) -> dict:
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


def setup_cells(helpers: Helpers, codes: list[str]) -> list[dict]:
    """The setup cells that embed esm for ``codes``: the setup, the reader (nbreader.py), then one ``%%esm_module`` cell
    per module the code needs (``Helpers.modules``) and per seed record it reads, ``__init__.py`` last."""
    names = helpers.modules(codes)
    modules = [(name, helpers.init_source(names) if name == "__init__.py" else helpers.sources[name]) for name in names]
    modules[-1:-1] = helpers.records(codes)
    cells = [cell("code", SETUP, "setup", tags=[SETUP_TAG], hidden=True),
             cell("code", READER_CELL, "setup-reader", tags=[SETUP_TAG], hidden=True)]
    for name, source in modules:
        cid = f"setup-{'record-' * name.endswith('.json')}{Path(name).stem.strip('_')}"
        cells.append(cell("code", f"%%esm_module {name}\n{source}", cid, tags=[SETUP_TAG], hidden=True))
    return cells


def _with_texts(printed: str, records: list[dict] = ()) -> str:
    """``printed`` with each value line (found by its record: ``records`` are the block's, each on
    the line it was printed on) as ``value name = text``: the exact value in the bracket is for the
    build, and its last digits depend on the CPU that ran the block; the site ships the same
    notebooks from every machine (make portable)."""
    lines = printed.split("\n")
    for r in records:
        if r["kind"] == "value" and r["line"] is not None:
            lines[r["line"]] = f"value {r['name']} = {r['text']}"
    return "\n".join(lines)


def reader_outputs(printed: str, flow: "nbreader.Flow", records: list[dict] = ()) -> list[dict]:
    """What the notebook's ``print`` shows for ``printed`` (printed text, in order, of one cell,
    and its ``records``), in the state ``flow`` (nbreader.Flow) it leaves for the cell's next text:
    pieces of text as stdout, a figure, a table or a folded block as one display each."""
    out: list[dict] = []
    for kind, text in nbreader.pieces(_with_texts(printed, records)):
        if kind == "text":
            shown = flow.text(text)
            if shown:
                out.append({"output_type": "stream", "name": "stdout", "text": shown.splitlines(keepends=True)})
        else:
            flow.display()
            out.append(_display(nbreader.bundle(kind, text)))
    return out


def _display(data: dict) -> dict:
    """A display the notebook's ``print`` makes (tagged ``esm_print_end``, which `output_text` reads)."""
    return {"output_type": "display_data", "metadata": {"esm_print_end": ""},
            "data": {k: v.splitlines(keepends=True) for k, v in data.items()}}


def quoted_output(flow: "nbreader.Flow") -> list[dict]:
    """The display that ends a cell: the values it published (nbreader.Flow.quoted), if any."""
    data = flow.quoted()
    return [] if data is None else [_display(data)]


def outputs(printed: str, records: list[dict] = ()) -> list[dict]:
    """A demo cell's outputs for what its block printed in the build (``printed``, with its
    ``records``), as the setup's ``print`` gives them in a reader's kernel (nbreader: checks in
    words, the values gathered at the end, a figure, a table or a folded block as one display)."""
    flow = nbreader.Flow()
    return reader_outputs(printed, flow, records) + quoted_output(flow)


def output_text(outputs: list) -> str:
    """What a cell's outputs say, as text: its printed text (stdout, consecutive streams as one) and
    the plain text of each display the notebook's ``print`` made (tagged ``esm_print_end``), one
    output a line. What a test reads of a cell, shipped or run again."""
    parts: list[str] = []
    stream = False
    for o in outputs:
        if o["output_type"] == "stream" and o["name"] == "stdout":
            text = "".join(o["text"])
            if stream:
                parts[-1] += text
            else:
                parts.append(text)
            stream = True
        elif o["output_type"] == "display_data" and "esm_print_end" in o.get("metadata", {}):
            parts.append("".join(o["data"]["text/plain"]))
            stream = False
        else:
            stream = False
    return "\n".join(parts)


def readable(printed: str, records: list[dict] = ()) -> str:
    """The text of `outputs` (`output_text`)."""
    return output_text(outputs(printed, records))


def is_setup(c) -> bool:
    return SETUP_TAG in c.get("metadata", {}).get("tags", [])


def notebook(cells: list[dict]) -> dict:
    """The notebook of ``cells``, with the kernel spec and metadata every notebook of the site has."""
    return {"cells": cells, "metadata": {"kernelspec": dict(KERNEL), "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def writes(nb) -> str:
    """The notebook's text as nbformat writes it (each cell's source as a list of lines)."""
    cells = [{**c, "source": c["source"].splitlines(keepends=True) if isinstance(c["source"], str) else c["source"]}
             for c in nb["cells"]]
    return json.dumps({**nb, "cells": cells}, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def node(nb):
    """The notebook as an nbformat node (sources as strings), as nbformat reads ``writes(nb)``."""
    import nbformat

    return nbformat.reads(writes(nb), as_version=4)
