"""The theory notebook: made from its text source with esm's own helper code, one demo per
topic, rendered light and offline with a download link, and the notebook the site ships runs
in a fresh kernel that can import numpy and matplotlib and nothing else of this project."""

from __future__ import annotations

import ast
import copy
import html as htmllib
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from sitebuild import ROOT

sys.path.insert(0, str(Path(__file__).parent))
import nbtools  # noqa: E402
from nbtools import code_cells, demos, made_notebook  # noqa: E402


@pytest.fixture(scope="module")
def nb():
    return made_notebook()


def helper_cell(nb):
    return next(c for c in nb.cells if nbtools.hook().HELPER_TAG in c.metadata.get("tags", []))


# -- the source and the notebook made from it ---------------------------------------------------

def test_source_is_a_percent_file_and_nothing_generated_is_committed():
    text = nbtools.SOURCE.read_text(encoding="utf-8")
    assert text.startswith("# %% [markdown]")
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    assert [f for f in tracked if f.endswith(".ipynb")] == []


def test_setup_cells_write_esm_verbatim_and_the_helper_cell_imports_from_it(nb):
    """esm is embedded as in every page notebook (mkdocs_esm/nbmake.py): the setup cells, before
    the helper cell, write the modules the notebook's code uses whole, copied, not rewritten, and
    ``__init__.py`` last, cut to those modules (the others' imports left out); the helper cell is
    the ``from esm import ...`` lines of the names the source's ``# esm:`` lines give."""
    modules = nbtools.setup_modules(nb)
    init = (nbtools.ESM / "__init__.py").read_text(encoding="utf-8")
    assert list(modules)[-1] == "__init__.py"
    carried = {m for m in re.findall(r"^from \. import (\w+)", init, re.M) if f"{m}.py" in modules}
    assert carried >= {"checks", "prose", "math"}
    assert set(re.findall(r"^from \. import (\w+)", modules["__init__.py"], re.M)) == carried
    for name, text in modules.items():
        if name != "__init__.py":
            assert text == (nbtools.ESM / name).read_text(encoding="utf-8"), name
    setup = [k for k, c in enumerate(nb.cells) if nbtools.SETUP_TAG in c.metadata.get("tags", [])]
    helper = nb.cells.index(helper_cell(nb))
    assert setup == list(range(setup[0], helper)) and nb.cells[setup[0]].id == "setup"
    asked = [line.split() for line in re.findall(r"^#\s*esm:(.*)$", nbtools.SOURCE.read_text(encoding="utf-8"), re.M)]
    imports = [line.removeprefix("from esm import ").split(", ") for line in helper_cell(nb).source.splitlines()
               if line.startswith("from esm import ")]
    assert imports == asked and len(sum(asked, [])) >= 20


def test_the_setup_cells_make_a_package_that_runs_without_the_project(nb, tmp_path):
    """esm as the setup cells write it imports from their folder alone and prints plain PASS lines."""
    for name, text in nbtools.setup_modules(nb).items():
        (tmp_path / "esm" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "esm" / name).write_text(text, encoding="utf-8")
    probe = (helper_cell(nb).source + "\nimport esm\nprint(esm.__file__)\n"
             "print(check_close('x', 1.0, 1.0, eq='lab'))\n"
             "try:\n    check_equal('y', 1, 2)\nexcept AssertionError as e:\n    print('raised', 'FAIL' in str(e))\n")
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True,
                         env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith(str(tmp_path / "esm")), lines
    assert lines[1].startswith("PASS [lab] x — expected 1") and lines[2] == "raised True"


STDLIB = set(sys.stdlib_module_names)
ALLOWED = {"numpy", "matplotlib", "cycler", "PIL", "IPython"}   # cycler and Pillow (PIL) ship with matplotlib; IPython with any kernel
ALLOWED |= {"esm"}       # the package the setup cells write


def test_notebook_imports_only_numpy_matplotlib_and_the_standard_library(nb):
    # the demos' cells, anything they import; esm's modules, what they import when imported
    # (a helper's lazy import runs only when it is called: the fresh kernel runs them all below)
    nodes = [node for cell in code_cells(nb) for node in ast.walk(ast.parse(cell.source))]
    nodes += [node for name, text in nbtools.setup_modules(nb).items() if name.endswith(".py")
              for node in ast.parse(text).body]
    for node in nodes:
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            assert top in STDLIB or top in ALLOWED, f"the notebook imports {name}"


TOPICS = ["lookup", "one-hot", "cosine", "neighbours", "analogy", "centering", "finite differences",
          "sinusoidal", "rope", "alibi", "pca", "attention"]


def test_one_titled_demo_per_topic_none_repeated(nb):
    found = demos(nb)
    numbers = [int(h.split(".")[0]) for h, _, _ in found]
    assert numbers == list(range(1, len(found) + 1))
    headings = " | ".join(h.lower() for h, _, _ in found)
    for topic in TOPICS:
        assert topic in headings, f"no demo titled for {topic!r}: {headings}"
    codes = [" ".join(code.split()) for _, _, code in found]
    assert len(set(codes)) == len(codes), "a demo is repeated"
    titles = [h.split(".", 1)[1].strip().lower() for h, _, _ in found]
    assert len(set(titles)) == len(titles)


def test_each_demo_has_its_formula_and_checks_and_seeds_its_randomness(nb):
    labels = []
    for heading, markdown, code in demos(nb):
        own = re.findall(r"\\label\{([^}]+)\}", markdown)
        assert len(own) == 1, f"{heading}: one labelled display formula, found {own}"
        labels += own
        checked = re.findall(r'eq="([^"]+)"', code)
        assert checked == own, f"{heading}: the check of its formula names {checked}"
        assert len(re.findall(r"\bcheck_(?:close|equal|true|less)\(", code)) >= 2, heading
        for call in re.findall(r"default_rng\(([^)]*)\)", code):
            assert re.fullmatch(r"SEED \+ \d+", call.strip()), f"{heading}: seed it as SEED + k, got {call}"
        assert "np.random.seed" not in code and "np.random.rand" not in code
    assert len(labels) == len(set(labels))


def test_cells_have_stable_ids_and_no_outputs(nb):
    again = made_notebook()
    assert [c.id for c in nb.cells] == [c.id for c in again.cells]
    assert nbformat.writes(nb) == nbformat.writes(again)
    assert all(not c.get("outputs") for c in code_cells(nb))
    nbformat.validate(nb)


def test_the_cells_run_again_when_a_code_cell_changes_not_a_markdown_cell(nb, monkeypatch):
    """The key of the executed cells (mkdocs_esm/nbrun.py's run_parts) holds every code cell, in
    order, with its tags, and the kernel spec and the ESM_* environment, and no Markdown cell:
    an edited sentence re-renders the page from the cached outputs; an edited, added or
    reordered code cell, a tag that changes how the kernel runs a cell, another kernel or
    another environment runs the kernel again."""
    from mkdocs_esm import nbrun

    def key(notebook) -> list[str]:
        return nbrun.run_parts(SimpleNamespace(nb=notebook, options="options", env=nbrun.env()))

    def edited(change) -> nbformat.NotebookNode:
        other = copy.deepcopy(nb)
        change(other)
        return other

    first_md = next(k for k, c in enumerate(nb.cells) if c.cell_type == "markdown")
    codes = [k for k, c in enumerate(nb.cells) if c.cell_type == "code" and c in code_cells(nb)]
    base = key(nb)
    assert key(edited(lambda n: n.cells[first_md].update(source=n.cells[first_md].source + " Edited."))) == base
    assert key(edited(lambda n: n.cells.pop(first_md))) == base
    assert key(edited(lambda n: n.cells[codes[1]].update(source=n.cells[codes[1]].source + "\n# edited"))) != base
    assert key(edited(lambda n: n.cells.insert(codes[1], nbformat.v4.new_code_cell("x = 1")))) != base
    assert key(edited(lambda n: n.cells.__setitem__(slice(codes[1], codes[2] + 1),
                                                    [n.cells[codes[2]], *n.cells[codes[1] + 1:codes[2]],
                                                     n.cells[codes[1]]]))) != base
    assert key(edited(lambda n: n.cells[codes[1]].metadata.update(tags=["raises-exception"]))) != base
    assert key(edited(lambda n: n.metadata.kernelspec.update(name="another-kernel"))) != base
    monkeypatch.setenv("ESM_PROBE", "1")      # the kernel inherits the ESM_* environment
    assert key(nb) != base


# -- the built page (the session's full strict build) ------------------------------------------

def page_html(site) -> str:
    return (site.dir / "notebook" / "theory" / "index.html").read_text(encoding="utf-8")


def article(site) -> str:
    text = page_html(site)
    return text[text.index('<article class="md-content__inner'):text.index("</article>")]


@pytest.mark.build
def test_page_links_the_notebook_the_site_ships(site, nb):
    text = article(site)
    m = re.search(r'<a class="md-button" href="([^"]+\.ipynb)" download>([^<]+)</a>', text)
    assert m and "Download" in m[2], "no visible download link"
    shipped = (site.dir / "notebook" / "theory" / m[1]).resolve()
    assert shipped == (site.dir / "notebook" / "theory.ipynb").resolve() and shipped.is_file()
    ship = nbformat.reads(shipped.read_text(encoding="utf-8"), as_version=4)
    assert [c.id for c in ship.cells] == [c.id for c in nb.cells]
    for mine, theirs in zip(nb.cells, ship.cells):
        if mine.cell_type == "code" or "{{" not in mine.source:
            if mine.cell_type == "code":
                assert theirs.source == mine.source, mine.id
            elif mine is not nb.cells[0]:       # a formula's \label shipped as its number (\tag)
                assert re.sub(r"\\tag\{[^}]*\}", "", theirs.source) == re.sub(r"\\label\{[^}]*\}", "", mine.source), mine.id
        else:       # computed prose: the published run's values in place of {{name}}
            assert "{{" not in theirs.source and theirs.source != mine.source, mine.id
    assert ship.cells[0].source.startswith(nb.cells[0].source)
    assert "published run" in ship.cells[0].source[len(nb.cells[0].source):]


@pytest.mark.build
def test_page_is_light_and_loads_nothing_from_outside(site):
    text = page_html(site)
    body = article(site)
    styles = re.findall(r"<style\b.*?</style>", body, re.S)
    assert sum(map(len, styles)) < 2000, "mkdocs-jupyter's inline CSS is back"
    assert "--jp-" not in text, "JupyterLab's CSS variables are back"
    assert "<script" not in body, re.findall(r"<script[^>]*>", body)
    for needle in ("cdnjs", "mermaid", 'src=""', "mathjax", "MathJax", "clipboard-copy", "requirejs"):
        assert needle not in body, needle
    # What a reader pays is the compressed transfer: the page (with four explorations of its
    # own) stays under 110 KB gzipped; mkdocs-jupyter's inline CSS alone was 570 KB raw.
    import gzip
    assert len(gzip.compress(text.encode(), 9)) < 110_000


@pytest.mark.build
def test_page_math_is_rendered_and_every_check_and_figure_shown(site, nb):
    body = article(site)
    assert 'class="arithmatex"' not in body, "math left for the browser"
    assert "<merror" not in body
    md = re.findall(r'<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown[^>]*>(.*?)</div>', body, re.S)
    leftover = [s for s in md if "$" in re.sub(r"<code>.*?</code>|<annotation.*?</annotation>", "", s, flags=re.S)]
    assert leftover == [], "unrendered $ math in a Markdown cell"
    labels = [l for _, m, _ in demos(nb) for l in re.findall(r"\\label\{([^}]+)\}", m)]
    for label in labels:
        assert f'id="eq-{label}"' in body and f'data-eq="{label}"' in body, label
    calls = sum(len(re.findall(r"\bprint\(check_(?:close|equal|true|less)\(", c.source)) for c in code_cells(nb))
    assert body.count('<div class="esm-check"') >= calls      # a check in a loop prints once per pass
    rest = re.sub(r'<div class="esm-check".*?</div>|<div class="language-python highlight"[^>]*>.*?</div>', "",
                  body, flags=re.S)
    assert not re.search(r"(^|\n)\s*PASS ", htmllib.unescape(re.sub(r"<[^>]+>", "", rest))), \
        "a PASS line left as plain text"
    shows = sum(len(re.findall(r"^show\(fig", c.source, re.M)) for c in code_cells(nb))
    figures = re.findall(r'<figure class="esm-figure">\s*<svg[^>]*aria-label="([^"]+)"', body)
    assert len(figures) == shows and len(set(figures)) == shows
    assert "currentColor" in body
    assert len(re.findall(r'<div class="language-python highlight"[^>]*>', body)) == len(code_cells(nb))
    prose_and_outputs = htmllib.unescape(re.sub(r"<[^>]+>", "", re.sub(
        r'<div class="language-python highlight"[^>]*>.*?</div>', "", body, flags=re.S)))
    assert "Traceback" not in prose_and_outputs and "FAIL" not in prose_and_outputs


@pytest.mark.build
def test_every_link_within_the_page_has_its_target(site):
    text = page_html(site)
    ids = set(re.findall(r'<[^>]+\bid="([^"]+)"', text))
    targets = re.findall(r'<a\b[^>]*\bhref="#([^"]+)"', text)
    assert len(targets) > 40 and [t for t in targets if t not in ids] == []


# -- the shipped notebook in a fresh kernel with numpy and matplotlib only ----------------------

@pytest.mark.build
def test_shipped_notebook_runs_in_a_fresh_numpy_and_matplotlib_kernel(site, tmp_path, monkeypatch):
    from nbclient import NotebookClient

    shipped = site.dir / "notebook" / "theory.ipynb"
    nb = nbformat.read(shipped, as_version=4)
    opened = copy.deepcopy(nb)
    probe = ("import importlib.util, esm\n"
             "print('importable:', sorted(n for n in ('mkdocs', 'mkdocs_esm', 'nbconvert', 'jupytext', 'pytest')"
             " if importlib.util.find_spec(n)))\n"
             "print('esm from:', esm.__file__)")
    nb.cells.append(nbformat.v4.new_code_cell(probe))
    monkeypatch.setenv("JUPYTER_PATH", str(nbtools.restricted_kernel(tmp_path / "jupyter")))
    work = tmp_path / "work"
    work.mkdir()
    NotebookClient(nb, kernel_name=nbtools.KERNEL_NAME, timeout=300, allow_errors=False,
                   resources={"metadata": {"path": str(work)}}).execute()
    text = "\n".join(o.get("text", "") for c in code_cells(nb) for o in c.outputs if o.output_type == "stream")
    assert "importable: []" in text, "the kernel could import more than numpy and matplotlib"
    where = re.search(r"^esm from: (.+)$", text, re.M)[1]
    assert "esm-notebook-" in where and not where.startswith(str(ROOT)), \
        f"the cells imported esm from {where}, not from the notebook's setup cells"
    passes = [line for line in text.splitlines() if line.startswith("✓ ")]
    # the same checks as the build ran (the page shows one check line per PASS line; a reader's kernel
    # prints each as a line starting ✓, nbreader.reader_text)
    assert len(passes) == article(site).count('<div class="esm-check"') and "FAIL" not in text
    html_outputs = [o for c in code_cells(nb) for o in c.outputs if o.output_type == "display_data" and "text/html" in o.data]
    assert all("<svg" in o.data["text/html"] for o in html_outputs) and html_outputs
    assert list(work.iterdir()) == [], "the notebook wrote files"
    # it opens with the outputs of the build's run, which are what a reader's run shows (issue 50)
    shown = [_printed(c) for c in code_cells(opened)]
    assert shown == [_printed(c) for c in code_cells(nb)[:-1]], "the shipped outputs are not a reader's run"
    assert [_figures(c) for c in code_cells(opened)] == [_figures(c) for c in code_cells(nb)[:-1]]
    assert sum(bool(c.outputs) for c in code_cells(opened)) >= len(demos(made_notebook()))
    bad = [line for text in shown for line in text.splitlines() if re.match(r"(PASS\b|value \w+ = )", line)]
    assert not bad and "✓ " in "".join(shown), f"a line of the build's protocol shipped: {bad[:3]}"
    prose = "".join(c.source for c in opened.cells if c.cell_type == "markdown")
    assert "\\label{" not in prose and "\\tag{1}" in prose, "formulas numbered as on the page (KaTeX has no \\label)"
    counts = [c.execution_count for c in opened.cells if c.cell_type == "code"]
    assert counts == list(range(1, len(counts) + 1)), "numbered as a run from the top numbers the cells"


def _printed(cell) -> str:
    """What a code cell's outputs say (nbmake.output_text)."""
    return nbtools.hook().nbmake.output_text(cell.outputs)


def _figures(cell) -> int:
    return sum("<svg" in "".join(o.data.get("text/html", "")) for o in cell.outputs if o.output_type == "display_data")


def _child(text: str) -> str:
    """A printed output as nbconvert writes it."""
    return ('<div class="jp-OutputArea-child">\n<div class="jp-RenderedText jp-OutputArea-output" '
            f'data-mime-type="text/plain" tabindex="0">\n<pre>{htmllib.escape(text, quote=False)}</pre>\n</div>\n</div>\n')


def _cells(*cells: list[str]) -> str:
    """Code cells' output areas as nbconvert writes them, each cell's printed chunks in order."""
    return ('<div class="jupyter-wrapper"><h1 id="t">T</h1>' + "<p>between the cells</p>\n".join(
        '<div class="jp-OutputArea jp-Cell-outputArea">\n' + "".join(_child(c) for c in chunks) + "</div>\n"
        for chunks in cells) + "</div>")


def _record(event: str, *args) -> dict:
    """The output the build's recorder (nbmake.RECORDER) gives for one of esm's records."""
    from mkdocs_esm import nbmake
    return {"output_type": "display_data", "metadata": {},
            "data": {nbmake.RECORD_MIME: {"event": event, "args": list(args)}}}


def _stdout(text: str) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": text}


def _check(line: str) -> dict:
    """The record of a check whose line is ``line`` (``PASS [eq] claim — detail``)."""
    m = re.fullmatch(r"PASS(?: \[([^\]]+)\])? (.*?) — (.*)", line)
    return _record("esm.check", line, m[2], m[3], m[1])


def _page(*cells: list[dict]) -> str:
    """The rewritten page of code cells with these outputs (records among them), as the build
    makes it: the records taken out (nbrun.text_areas), the rest rendered, then nbpage."""
    from mkdocs_esm import nbpage, nbrun
    areas, printed = [], []
    for outputs in cells:
        kept, texts = nbrun.text_areas(outputs)
        areas += texts
        printed.append([o["text"] for o in kept if o["output_type"] == "stream"])
    html = nbpage.outputs(_cells(*printed), areas, "notebook/theory.py")
    return nbpage.rewrite(html, "../theory.ipynb", "helpers")


def test_printed_text_split_into_chunks_renders_as_if_whole():
    """The kernel may deliver printed text in chunks that cut a line; the page must not care."""
    first = [_check("PASS [first] before — 1"), _stdout("PASS [first] before — 1\n")]
    whole = "x = 1\nPASS [lab] a claim — got 1, expected 1\nPASS b — 2 < 3\n"
    heard = [_check("PASS [lab] a claim — got 1, expected 1"), _check("PASS b — 2 < 3")]
    one = _page(first, [*heard, _stdout(whole)])
    assert one.count('<div class="esm-check"') == 3 and 'data-eq="lab"' in one and "between the cells" in one
    assert "2 &lt; 3" in one and "x = 1" in one
    for cut in (3, 20, 45, len(whole) - 4):
        assert _page(first, [*heard, _stdout(whole[:cut]), _stdout(whole[cut:])]) == one, cut
        if cut <= whole.index("PASS b"):        # a record comes out before its line is printed
            assert _page(first, [heard[0], _stdout(whole[:cut]), heard[1], _stdout(whole[cut:])]) == one, cut
    assert _page(first, [*heard, _stdout(whole[:10]), _stdout(whole[10:30]), _stdout(whole[30:])]) == one


def test_the_page_takes_checks_and_values_from_the_records_not_the_printed_text():
    """The theory page's checks and values are the run's records (nbrun.text_areas, nbpage.outputs):
    a line is replaced because a record stands on it, whatever it reads; a printed line that only
    looks like a check or a value stays text; a record whose line was printed nowhere whole still
    counts (its check folded with the others, its value published)."""
    from mkdocs_esm import glue, nbpage, nbrun, output

    value = _record("esm.value", "\nvalue v = 2.5  [.1f of 2.5]\n", "v", 2.5, ".1f", "2.5")
    cell = [_check("PASS [e] the real claim — got 1"), value, _stdout("PASS [e] the real claim — got 1\n"),
            _stdout("\nvalue v = 2.5  [.1f of 2.5]\n\n"), _stdout("PASS [h] hand-printed — not a check\n"),
            _stdout("value w = 7  [ of 7]\n"),
            _check("PASS quiet — never printed"), _record("esm.value", "\nvalue q = 3  [ of 3]\n", "q", 3, "", "3")]
    kept, areas = nbrun.text_areas(cell)
    assert [o["output_type"] for o in kept] == ["stream"] * 4      # the records are not outputs of the page
    assert [(r["kind"], r["line"]) for r in areas[0]["records"]] == [("check", 0), ("value", 2), ("check", None),
                                                                      ("value", None)]
    # what the page showed of the printed lines is tampered with: the records decide
    text = "".join(o["text"] for o in kept).replace("the real claim — got 1", "a tampered claim — got 2")
    html = nbpage.outputs(_cells([text]), areas, "notebook/theory.py")
    values, _ = glue.collect(held := [html])
    assert {n: v["value"] for n, v in values.items()} == {"v": 2.5, "q": 3}
    page = nbpage.rewrite(held[0], "../theory.ipynb", "helpers")
    claims = re.findall(r'<div class="esm-check"[^>]*><strong>PASS</strong>(?: <a [^>]*>[^<]*</a>)? ([^:<]*):', page)
    assert claims == ["the real claim", "quiet"] and "tampered" not in page
    assert "PASS [h] hand-printed — not a check\nvalue w = 7  [ of 7]" in page     # left as printed
    assert "value v = 2.5\n\n" in page and "[.1f of 2.5]" not in page             # the readable text
    assert output.marker("v", 2.5, ".1f") not in page                               # glue took it out


def test_a_records_line_is_looked_for_after_it_within_one_text_output():
    """A record comes out before its line is printed, and its line stands within one text output:
    a value published before a figure and printed after it stands in the text after the figure,
    though the text before ends with the line break its line starts with."""
    from mkdocs_esm import nbrun

    value = _record("esm.value", "\nvalue v = 1  [ of 1]\n", "v", 1, "", "1")
    figure = {"output_type": "display_data", "metadata": {}, "data": {"text/html": "<figure></figure>"}}
    kept, areas = nbrun.text_areas([value, _stdout("x\n"), figure, _stdout("\nvalue v = 1  [ of 1]\n"),
                                    _check("PASS c — 1"), _stdout("PASS c — 1\nPASS c — 1\n")])
    assert [o["output_type"] for o in kept] == ["stream", "display_data", "stream", "stream"]
    assert [[(r["kind"], r["line"]) for r in a["records"]] for a in areas] == [[], [("value", 1), ("check", 2)]]
    assert [a["lines"] for a in areas] == [1, 4]


def test_the_page_and_the_run_must_agree_on_the_outputs():
    from mkdocs.exceptions import PluginError
    from mkdocs_esm import nbpage

    with pytest.raises(PluginError, match="text outputs"):
        nbpage.outputs(_cells(["a\n"], ["b\n"]), [{"lines": 1, "records": []}], "notebook/theory.py")


def test_the_builds_kernel_records_each_check_and_value_where_the_runner_would(tmp_path, monkeypatch):
    """The recorder the build's run starts with (nbmake.RECORDER) in a fresh kernel: each record
    comes out in order with the printed text and stands on the same line as when the build's
    runner runs the same code (execution.run_block); a figure between splits the text in two."""
    from nbclient import NotebookClient
    from mkdocs_esm import execution, nbmake, nbrun

    code = (f"import sys\nsys.path.insert(0, {str(ROOT / 'snippets')!r})\n"
            "from esm import check_close, check_equal, glue\n"
            "x = check_close('the sum', 1.0 + 2.0, 3.0, eq='sum')\n"
            "print('a table row | with PASS in it')\n"
            "print(glue('v', 2.5, '.1f') + glue('n', 3))\n"
            "print(''.join([glue('joined', 1234, ','), glue('again', 0.5, '.0%')]))\n"
            "print(x)\n"
            "print(check_equal('a count', 2, 2))\n"
            "check_close('quiet', 1, 1)\n")
    figure = "from IPython.display import display\ndisplay({'text/html': '<b>figure</b>'}, raw=True)\n"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(nbmake.RECORDER),
                                         nbformat.v4.new_code_cell(code + figure + "print(check_equal('after', 1, 1))\n")])
    monkeypatch.setenv("JUPYTER_PATH", str(nbtools.restricted_kernel(tmp_path / "jupyter")))
    NotebookClient(nb, kernel_name=nbtools.KERNEL_NAME, timeout=120, allow_errors=False,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert nb.cells[0].outputs == []
    kept, areas = nbrun.text_areas(nb.cells[1].outputs)
    kinds = [o["output_type"] for o in kept]
    split = kinds.index("display_data")
    assert set(kinds[:split]) == set(kinds[split + 1:]) == {"stream"}
    out, records = execution.run_block(code, id="t")
    assert "".join(o["text"] for o in kept[:split]) == out and areas[0]["lines"] == out.count("\n")
    assert areas[0]["records"] == [r for r in records if r.get("claim") != "quiet"]
    assert [(r["claim"], r["line"]) for r in areas[1]["records"]] == [("quiet", None), ("after", 0)]


def test_one_parameters_cell_that_the_demos_read(nb):
    """A reader changes one line and re-runs: the parameters cell comes before every demo, sets
    SEED = 0 (the published run), and each of its names is read by some demo."""
    cells = [c for c in code_cells(nb) if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1
    params = cells[0].source
    names = re.findall(r"^([A-Z_]+(?:, [A-Z_]+)*) = ", params, re.M)
    names = [n for group in names for n in group.split(", ")]
    assert re.search(r"^SEED = 0\b", params, re.M)
    first_demo = next(i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and c.source.startswith("## 1."))
    assert nb.cells.index(cells[0]) < first_demo
    code = "\n".join(code for _, _, code in demos(nb))
    for name in names:
        assert re.search(rf"\b{name}\b", code), f"parameter {name} is read by no demo"
    seeds = re.findall(r"default_rng\(SEED \+ (\d+)\)", code)
    assert len(seeds) == len(set(seeds)), "two demos share a seed"


def test_a_failing_cell_is_named_as_the_source_counts_it_and_a_setup_cell_by_its_module(nb):
    """Cells are numbered as in the source (the setup cells, which the source does not hold,
    counted out); a failing setup cell is named by the esm module it writes."""
    from mkdocs_esm import nbrun

    class CellError(Exception):             # nbclient's CellExecutionError carries these
        def __init__(self, source, ename, evalue):
            super().__init__(f"An error occurred while executing the following cell:\n{'-' * 18}\n"
                             f"{source}\n{'-' * 18}\n\n{ename}: {evalue}\n")
            self.ename, self.evalue = ename, evalue

    lines = nbtools.hook().cell_lines(nbtools.SOURCE)
    cells = nbtools.source_cells(nb)
    k = next(i for i, c in enumerate(cells) if c.cell_type == "code" and c.source.startswith("rng = "))
    said = nbrun.describe_failure(CellError(cells[k].source, "ValueError", "bad"), name=nbtools.PAGE, nb=nb, lines=lines)
    assert said.startswith(f"{nbtools.PAGE}: notebook cell {k + 1} (docs/{nbtools.PAGE}, line {lines[k]}, under '1. ")
    assert said.endswith("failed: ValueError: bad")
    math = next(c for c in nb.cells if c.source.startswith("%%esm_module math.py"))
    said = nbrun.describe_failure(CellError(math.source, "OSError", "disk full"), name=nbtools.PAGE, nb=nb, lines=lines)
    assert said == (f"{nbtools.PAGE}: notebook setup cell 'setup-math' (esm/math.py, copied from snippets/esm/) "
                    "failed: OSError: disk full")


def test_the_rendered_page_is_made_again_when_the_code_that_renders_it_changes():
    """The notebook page's cache key holds the source of what makes the page from a run: an
    edit to nbpage.py (or output, markup, glue, the mkdocs-jupyter compat module) is never
    served from a page rendered by the old code."""
    from mkdocs_esm import glue, markup, nbpage, notebook, output
    from mkdocs_esm.compat import mkdocs_jupyter
    for module in (nbpage, output, markup, glue, mkdocs_jupyter):
        assert Path(module.__file__).read_text(encoding="utf-8") in notebook.RENDERER, module.__name__
    made = notebook.Notebook.__new__(notebook.Notebook)
    made.nb, made.options = nbformat.v4.new_notebook(), ""
    assert notebook.RENDERER in made._parts()
