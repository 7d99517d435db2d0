"""Fault injection on the fixture book's theory notebook (tests/fixture/docs/notebook/theory.py:
a title, the helper cell, one formula and the code cell that checks it), building only the
notebook page: a failing check, an exception, a broken helper, a bad formula and a formula
without its check each fail the build (strict or not), and the message names the notebook, the
cell and its demo. The real notebook runs in the session build and in a fresh kernel
(tests/notebook/test_notebook.py)."""

from __future__ import annotations

import re

import sys
from pathlib import Path

import pytest

from conftest import build_fails, edit
from sitebuild import build

sys.path.insert(0, str(Path(__file__).parent))
import nbtools  # noqa: E402
from nbtools import PAGE  # noqa: E402

pytestmark = pytest.mark.build


@pytest.fixture
def copy(fixture_project) -> Path:
    return fixture_project


def source(copy: Path) -> Path:
    return copy / "docs" / PAGE


def fails(copy: Path, tmp_path: Path, *needles: str, strict: bool = True) -> str:
    log = build_fails(copy, tmp_path / "site", PAGE, *needles, strict=strict)
    assert not (tmp_path / "site" / "notebook" / "theory" / "index.html").exists()
    return log


def where(copy: Path, marker: str) -> tuple[int, int, str]:
    """(1-based cell number, its line in the source, its demo heading) of the code cell that
    contains ``marker``, computed from the faulted source the way a reader would count."""
    cells = nbtools.source_cells(nbtools.made_notebook(source(copy), copy / "snippets" / "esm"))
    lines = nbtools.hook().cell_lines(source(copy))
    k = next(i for i, c in enumerate(cells) if c.cell_type == "code" and marker in c.source)
    heading = next(h for h, _, code in nbtools.demos(nbtools.made_notebook(source(copy), copy / "snippets" / "esm"))
                   if marker in code)
    return k + 1, lines[k], heading


@pytest.mark.parametrize("strict", [True, False])
def test_a_failing_check_names_the_notebook_the_cell_and_the_demo(copy, tmp_path, strict):
    edit(source(copy), "alibi_slopes(H), loop,", "alibi_slopes(H), loop + 1e-3,")
    cell, line, heading = where(copy, "loop + 1e-3")
    log = fails(copy, tmp_path, f"{PAGE}: notebook cell {cell} (docs/{PAGE}, line {line}, under '{heading}') failed",
                "CheckFailed: FAIL [slopes] the ALiBi slopes are", strict=strict)
    assert "\x1b[" not in log, "terminal colour codes in the message"


def test_an_exception_names_its_cell(copy, tmp_path):
    edit(source(copy), "H = 4\n", "raise RuntimeError('injected fault')\nH = 4\n")
    cell, line, heading = where(copy, "injected fault")
    assert heading.startswith("1. Slopes")
    fails(copy, tmp_path, f"notebook cell {cell} (docs/{PAGE}, line {line}, under '{heading}')",
          "RuntimeError: injected fault")


def test_a_broken_helper_fails_in_the_helper_cell(copy, tmp_path):
    """A helper that fails when esm is imported: the setup cell writes it, the helper cell's
    ``from esm import ...`` fails, and the message names that cell."""
    edit(copy / "snippets" / "esm" / "math.py", "def alibi_slopes(n_heads: int)", "def alibi_slopes(n_heads: int = 1 // 0)")
    nb = nbtools.made_notebook(source(copy), copy / "snippets" / "esm")
    assert "1 // 0" in nbtools.setup_modules(nb)["math.py"]
    cells = nbtools.source_cells(nb)
    k = next(i for i, c in enumerate(cells) if nbtools.hook().HELPER_TAG in c.metadata.get("tags", []))
    assert cells[k].source.count("from esm import") == 1
    line = nbtools.hook().cell_lines(source(copy))[k]
    fails(copy, tmp_path, f"{PAGE}: notebook cell {k + 1} (docs/{PAGE}, line {line}, under 'Theory notebook')",
          "ZeroDivisionError: integer division or modulo by zero")


def test_an_invalid_formula_in_a_markdown_cell_fails_the_build(copy, tmp_path):
    edit(source(copy), "# A fixture: one formula", "# A fixture $\\frac{a}{$: one formula")
    fails(copy, tmp_path, f"Invalid math in {PAGE}", "\\frac{a}{", "Unexpected end of input")


def test_a_formula_without_its_check_fails_the_build(copy, tmp_path):
    edit(source(copy), 'loop, eq="slopes"))', "loop))")
    fails(copy, tmp_path, PAGE, "\\label{slopes} has no check")


def test_the_notebook_is_not_built_when_the_nav_leaves_it_out(copy, tmp_path):
    result = build(tmp_path / "site", root=copy, pages=["index.md"], fork=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert not (tmp_path / "site" / "notebook").exists()
    assert "Converting notebook" not in result.stdout + result.stderr


@pytest.mark.parametrize("option", ["allow_errors: false", "execute: true", "cache: false"])
def test_a_configuration_that_would_publish_errors_or_skip_execution_fails(copy, tmp_path, option):
    key, value = option.split(": ")
    flipped = {"false": "true", "true": "false"}[value]
    edit(copy / "mkdocs.yml", f"      {option} ", f"      {key}: {flipped} ")
    fails(copy, tmp_path, "mkdocs-jupyter must execute the notebook at every build", f"{key}: {flipped.capitalize()}")


@pytest.mark.parametrize("option", ['execute_ignore: ["*.py"]', "remove_tag_config: {remove_cell_tags: [hide]}"])
def test_an_option_that_would_skip_or_drop_cells_fails(copy, tmp_path, option):
    """The hook runs the cells itself: an option with which mkdocs-jupyter would not run some of
    them (execute_ignore) or would drop some before running the rest (remove_tag_config) fails."""
    edit(copy / "mkdocs.yml", "      no_prompt: true ", f"      {option}\n      no_prompt: true ")
    fails(copy, tmp_path, "mkdocs-jupyter must execute the notebook at every build", option.split(":")[0])


PROBE = '''
# %% [markdown]
# ## Probe
#
# The probe value is {{probe_x}}; in math $x={{probe_big}}$.

# %%
print(glue("probe_x", 0.12345, ".3f"))
print(glue("probe_big", 50257, ","))
'''


def _probe(copy: Path) -> None:
    path = source(copy)
    text = path.read_text().replace("# esm: check_close alibi_slopes", "# esm: check_close alibi_slopes glue", 1)
    path.write_text(text + PROBE)


def test_markdown_cells_quote_values_printed_by_the_cells(copy, tmp_path, monkeypatch):
    """Computed prose in the notebook: the page's text and the shipped notebook's text quote
    the run's values (math form inside math); the cells print them as readable lines. Then a
    Markdown cell is edited: the page is converted again from the cells' cached outputs, with
    no kernel started, and differs from the first build by the edited words alone."""
    import json

    monkeypatch.delenv("ESM_CACHE", raising=False)            # an empty cache of the test's own
    monkeypatch.setenv("ESM_CACHE_DIR", str(tmp_path / "exec-cache"))
    _probe(copy)
    out = tmp_path / "site"
    result = build(out, root=copy, pages=[PAGE], fork=True)
    assert result.returncode == 0, result.stderr[-3000:]
    html = (out / "notebook" / "theory" / "index.html").read_text()
    assert "The probe value is 0.123; in math" in html and "{{probe" not in html
    formulas = [re.sub(r"<[^>]+>", "", m) for m in re.findall(r"<math\b.*?</math>", html, re.S)]
    assert "x=50,257" in formulas, [f for f in formulas if "257" in f]      # the value reached the MathML
    assert "value probe_x = 0.123" in html                 # the cell's own line, as in Jupyter
    nb = json.loads((out / "notebook" / "theory.ipynb").read_text())
    text = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    assert "The probe value is 0.123; in math $x=50{,}257$." in text[-1]
    assert "published run" in text[0] and not any("{{" in t for t in text)

    assert "running its" in result.stderr and "cell outputs reused" not in result.stderr
    edit(source(copy), "# The probe value is", "# The edited probe value is")
    again = build(tmp_path / "again", root=copy, pages=[PAGE], fork=True)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "cell outputs reused from the execution cache" in again.stderr and "running its" not in again.stderr
    edited = (tmp_path / "again" / "notebook" / "theory" / "index.html").read_text()
    assert edited == html.replace("The probe value is", "The edited probe value is") != html


def test_an_unknown_value_in_a_markdown_cell_names_the_line(copy, tmp_path):
    _probe(copy)
    path = source(copy)
    path.write_text(path.read_text().replace("{{probe_x}}", "{{probe_y}}"))
    line = next(n for n, l in enumerate(path.read_text().split("\n"), 1) if "{{probe_y}}" in l)
    fails(copy, tmp_path, f"{PAGE}:{line}: unknown computed value '{{{{probe_y}}}}'")
