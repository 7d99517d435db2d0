"""One page model (src/mkdocs_esm/page.py): fences, includes, headings and front matter are
parsed there alone, every feature that reads a page's source imports it, and no module of the
package reads another's private names."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from mkdocs_esm import page as pagemodel

PACKAGE = Path(pagemodel.__file__).parent
#: the features that read a page's Markdown source
USERS = ("execution", "pagenotebook", "nbprose", "xref", "cite", "serve")
#: what a pattern of each kind holds, in a string literal of the package
KINDS = {
    "fence": re.compile(r"`\{3|~\{3|```|~~~"),
    "include": re.compile(r"8<"),
    "heading": re.compile(r"#\{1,6\}|\^#\+|\^#\{"),
    "front matter": re.compile(r"-\{3\}|\^---|\\A---|---\\n"),
}


def _modules():
    return sorted(p for p in PACKAGE.rglob("*.py"))


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


@pytest.mark.parametrize("user", USERS)
def test_each_user_reads_the_one_page_model(user):
    tree = _tree(PACKAGE / f"{user}.py")
    imported = any(isinstance(node, ast.ImportFrom) and node.level == 1 and node.module is None
                   and any(a.name == "page" for a in node.names) for node in ast.walk(tree))
    assert imported, f"{user}.py does not import the page model (from . import page)"


def _patterns(tree: ast.Module):
    """String literals handed to the re module (compile, match, search, sub, ...)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and node.args:
            for arg in ast.walk(node.args[0]):
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    yield node.lineno, arg.value


def test_no_other_parser_of_fences_includes_headings_or_front_matter():
    found = []
    for path in _modules():
        if path == PACKAGE / "page.py":
            continue
        for line, pattern in _patterns(_tree(path)):
            found += [f"{path.relative_to(PACKAGE)}:{line}: a {kind} pattern {pattern!r}"
                      for kind, probe in KINDS.items() if probe.search(pattern)]
    assert not found, "parse it in page.py:\n" + "\n".join(found)


def test_the_scan_finds_a_parser_of_each_kind():
    """The scan can fail: each of the patterns the package used to hold is found."""
    olds = {"fence": r'^(?P<indent>[ \t]*)(?P<mark>`{3,}|~{3,})[ \t]*python\b',
            "include": r'--8<--\s+"([^"]+)"',
            "heading": r"^(?P<hashes>#{1,6})\s+(?P<text>.+?)",
            "front matter": r"\A---\n.*?\n---\n"}
    for kind, old in olds.items():
        tree = ast.parse(f"import re\nX = re.compile({old!r})\n")
        assert [p for _, p in _patterns(tree) if KINDS[kind].search(p)], kind


def _private_reads(tree: ast.Module, own: str) -> list[str]:
    modules = {p.stem for p in PACKAGE.glob("*.py")} | {"compat"}
    bound: set[str] = set()          # names bound to a module of the package
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level >= 1 or (node.module or "").startswith("mkdocs_esm")):
            for a in node.names:
                if a.name.startswith("_") and not a.name.startswith("__"):
                    out.append(f"from {'.' * node.level}{node.module or ''} import {a.name}")
                if a.name in modules:
                    bound.add(a.asname or a.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound \
                and node.attr.startswith("_") and not node.attr.startswith("__"):
            out.append(f"{node.value.id}.{node.attr}")
    return out


def test_no_module_reads_another_modules_private_names():
    found = []
    for path in _modules():
        found += [f"{path.relative_to(PACKAGE)}: {x}" for x in _private_reads(_tree(path), path.stem)]
    assert not found, "\n".join(found)


def test_the_private_name_scan_can_fail():
    tree = ast.parse("from .execution import _FENCE\nfrom . import execcache\nexeccache._NAME\n")
    assert _private_reads(tree, "x") == ["from .execution import _FENCE", "execcache._NAME"]


# -- the reading itself ------------------------------------------------------------------------

PAGE = ('---\ntitle: T\nxref_kind: ex\n---\n\n# T\n\n## 1.1 First `code` {#one}\n\n'
        '````markdown\n```python exec="on"\nnot a block\n```\n## not a heading\n````\n\n'
        '=== "Tab"\n\n    ```python exec="on" id="own"\n    --8<-- "part/demo.py"\n    ```\n\n'
        ';--8<-- "escaped.py"\n')


def test_front_matter_fences_includes_and_headings():
    page = pagemodel.read(PAGE)
    assert page.meta == {"title": "T", "xref_kind": "ex"}
    assert page.offset == 5 and page.lines[0] == "# T"
    assert [(h.level, h.text) for h in page.headings] == [(1, "T"), (2, "1.1 First `code`")]
    assert [(f.mark, f.executed, f.option("id")) for f in page.fences] == [("````", False, None), ("```", True, "own")]
    assert [(i.space, i.path) for i in page.includes] == [("    ", "part/demo.py")]


@pytest.mark.parametrize("line, says", [
    ('--8<-- "demo.py:1:5"', "line ranges"),
    ('--8<-- "demo.py:part"', "sections"),
    ('--8<-- "https://example.org/demo.py"', "URL"),
    ("--8<--", "block form"),
])
def test_includes_it_does_not_follow_are_refused(line, says):
    with pytest.raises(pagemodel.IncludeError, match=says):
        pagemodel.read(f"# T\n\n```python exec=\"on\"\n{line}\n```\n")
