"""docs/dev/architecture.md says what the plugin does: its event table is the order of the work
in src/mkdocs_esm/plugin.py, and its compat lists name every module that reaches into another
package's private names. Both are read from the code here (its syntax tree), not from a list
kept beside it: a new event, a feature called in another order or a new reach into a private
name fails until the page says so."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "mkdocs_esm"
ARCHITECTURE = ROOT / "docs" / "dev" / "architecture.md"


def _rows(heading: str) -> list[list[str]]:
    """The cells of the first Markdown table after the line ``heading`` (header row left out)."""
    lines = ARCHITECTURE.read_text(encoding="utf-8").splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith(heading))
    rows, seen = [], False
    for line in lines[start:]:
        if line.startswith("|"):
            seen = True
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not set("".join(cells)) <= set("-: "):
                rows.append(cells)
        elif seen:
            break
    return rows[1:]


# -- the event table ----------------------------------------------------------------------------

def _documented_events() -> dict[tuple[str, int], list[str]]:
    """(event, priority) -> the modules the table names, in order (parenthesised notes and a
    leading "then" dropped)."""
    out = {}
    for event, priority, modules, *_ in _rows("| MkDocs event |"):
        if not re.fullmatch(r"`on_\w+`", event):
            continue                                     # a row that is not an event (serve_remake)
        names = [re.sub(r"^then\s+", "", n.strip()) for n in re.sub(r"\([^)]*\)", "", modules).split(",")]
        out[(event.strip("`"), int(priority))] = [n for n in names if n]
    return out


def _plugin_events() -> dict[tuple[str, int], list[str]]:
    """(event, priority) -> the modules whose work plugin.py calls there, in source order (a
    module called twice in a row counted once)."""
    tree = ast.parse((PACKAGE / "plugin.py").read_text(encoding="utf-8"))
    of_name: dict[str, str] = {}                         # imported name -> module of this package
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            for alias in node.names:
                module = node.module or alias.name
                if node.module and (PACKAGE / node.module.replace(".", "/") / f"{alias.name}.py").is_file():
                    module = f"{node.module}.{alias.name}"          # a submodule: from .compat import material
                of_name[alias.asname or alias.name] = module
    plugin = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "EsmPlugin")
    methods = {n.name: n for n in plugin.body if isinstance(n, ast.FunctionDef)}
    feature: dict[str, str] = {}                         # self.<attribute> -> its module
    for node in ast.walk(methods["__init__"]):
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name) and node.value.func.id in of_name):
            feature[node.targets[0].attr] = of_name[node.value.func.id]

    def module_of(call: ast.Call) -> str | None:
        f = call.func
        if isinstance(f, ast.Name) and f.id in of_name and f.id[0].islower():
            return of_name[f.id]                         # a function of a module (name_widgets)
        if isinstance(f, ast.Attribute):
            base = f.value
            if isinstance(base, ast.Name) and base.id in of_name:
                return of_name[base.id]                  # module.function (codeblocks.unwrap)
            if (isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name)
                    and base.value.id == "self" and base.attr in feature):
                return feature[base.attr]                # self.<feature>.<method>(...)
        return None

    def priority(fn: ast.FunctionDef) -> int:
        for d in fn.decorator_list:
            if isinstance(d, ast.Call) and getattr(d.func, "id", "") == "event_priority":
                return int(ast.literal_eval(d.args[0]))
        return 0

    def work(fn: ast.FunctionDef) -> list[str]:
        calls = sorted((n for n in ast.walk(fn) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset))
        names = [m for m in map(module_of, calls) if m]
        return [m for k, m in enumerate(names) if k == 0 or names[k - 1] != m]

    out = {}
    for name, fn in methods.items():
        if name.startswith("on_"):
            out[(name, priority(fn))] = work(fn)
    for node in plugin.body:                             # on_x = CombinedEvent(_first, _rest)
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "id", "") == "CombinedEvent"):
            for part in node.value.args:
                fn = methods[part.id]
                out[(node.targets[0].id, priority(fn))] = work(fn)
    return out


def test_the_event_table_is_the_order_of_plugin_py():
    documented, actual = _documented_events(), _plugin_events()
    assert len(actual) > 15, sorted(actual)
    assert set(documented) == set(actual), ("events and priorities differ: only in architecture.md "
                                            f"{sorted(set(documented) - set(actual))}, only in plugin.py "
                                            f"{sorted(set(actual) - set(documented))}")
    wrong = {key: (documented[key], actual[key]) for key in actual if documented[key] != actual[key]}
    assert not wrong, f"(architecture.md, plugin.py) by event: {wrong}"


# -- reaches into other packages' private names -------------------------------------------------

def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def reaches(source: str) -> list[str]:
    """What ``source`` reads or sets of another package's private names: ``from x import _y``
    (not a module of this package: ``from .x``), an attribute ``obj._y`` of anything but
    ``self`` or ``cls``, and ``getattr``/``hasattr``/``setattr``/``delattr`` with a literal
    private name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            found += [f"from {node.module} import {a.name}" for a in node.names if _private(a.name)]
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.append(f"{ast.unparse(node.value)}.{node.attr}")
        elif (isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("getattr", "hasattr", "setattr", "delattr")
              and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)
              and isinstance(node.args[1].value, str) and _private(node.args[1].value)):
            found.append(f"{node.func.id}(..., {node.args[1].value!r})")
    return found


def test_the_scan_finds_each_kind_of_reach():
    source = ("from a.b import _c\nfrom .own import _mine\nimport x\nx._y\nobj.attr._z = 1\nself._ok\n"
              "hasattr(md, '_original_md')\ngetattr(s, 'public')\nx.__file__\n")
    assert sorted(reaches(source)) == sorted(["from a.b import _c", "x._y", "obj.attr._z", "hasattr(..., '_original_md')"])


def _module_names(cells: list[list[str]]) -> set[str]:
    return {re.search(r"`([\w/]+\.py)`", row[0])[1] for row in cells}


def test_the_compat_lists_name_every_module_that_reaches_into_private_names():
    """Every module that reaches into another package's private names is a compat module, and
    architecture.md lists each compat module with the range its code requires."""
    compat_rows = _rows("The compat modules")
    listed_compat = _module_names(compat_rows)
    in_compat = {f"compat/{p.name}" for p in (PACKAGE / "compat").glob("*.py") if p.name != "__init__.py"}
    assert listed_compat == in_compat, (listed_compat, in_compat)
    for row in compat_rows:
        source = (PACKAGE / _module_names([row]).pop()).read_text(encoding="utf-8")
        distribution, spec = re.fullmatch(r"`([\w.-]+?)([<>=!~].*)`", row[1]).groups()
        assert re.search(r"""require\(\s*["']""" + re.escape(distribution) + "[\"']", source), \
            f"{row[0]} does not check the installed version of {distribution}"
        assert re.search(r"""RANGE\s*=\s*["']""" + re.escape(spec) + "[\"']", source), \
            f"{row[0]}: the range {row[1]} is not the one its code requires"
    found = {p.relative_to(PACKAGE).as_posix(): r for p in sorted(PACKAGE.rglob("*.py"))
             if (r := reaches(p.read_text(encoding="utf-8")))}
    outside = {m: r for m, r in found.items() if m not in listed_compat}
    assert not outside, f"private names of other packages read outside compat/: {outside}"
