"""`mkdocs serve` rebuilds an edited page alone only when no other page can change, and what it
serves then is byte for byte what a full rebuild serves (mkdocs_esm/serve.py).

The staleness faults run one `mkdocs serve` on a copy of the project with its own execution cache
and read the site directory it serves. "Full rebuild" below is serve's own: touching mkdocs.yml
makes one, and its output is the reference the fast route must equal."""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from pathlib import Path

import pytest

from conftest import _copy_project
from sitebuild import FAILED, RELOADED, ServeProcess, load_hook, source_date_epoch

ROOT = Path(__file__).resolve().parents[1]
PAGE = "part1/intuition.md"
OTHER = "part1/formal-definitions.md"
DEMO = "part1/intuition/lookup.py"
REFERENCED = ("## 1.4 Static versus contextual meaning", "## 1.4 Static versus contextualised meaning")
NB_PROSE = "# each id is only an address"     # in a Markdown cell
NB_CODE = "rng = np.random.default_rng(SEED + 1)\n"   # in a code cell
SUMMARY = re.compile(r"execution cache: (\d+) reused, (\d+) ran")

serve_hook = load_hook("serve")
_notebook_hook = load_hook("notebook")
NOTEBOOK, DOWNLOAD = _notebook_hook.NOTEBOOK, _notebook_hook.DOWNLOAD     # its source, the shipped .ipynb


# -- the parts that need no server -------------------------------------------------------------

def test_snapshot_sees_edits_additions_and_deletions_not_caches(tmp_path):
    (tmp_path / "a.md").write_text("one")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "x.pyc").write_bytes(b"1")
    (tmp_path / ".a.md.swp").write_text("x")
    old = serve_hook.snapshot([str(tmp_path)])
    assert list(old) == [str(tmp_path / "a.md")]
    assert serve_hook.changed_files(old, serve_hook.snapshot([str(tmp_path)])) == []
    (tmp_path / "__pycache__" / "x.pyc").write_bytes(b"22")
    assert serve_hook.changed_files(old, serve_hook.snapshot([str(tmp_path)])) == []
    (tmp_path / "a.md").write_text("one, edited")
    assert serve_hook.changed_files(old, serve_hook.snapshot([str(tmp_path)])) == [str(tmp_path / "a.md")]
    (tmp_path / "b.md").write_text("new")
    assert serve_hook.changed_files(old, serve_hook.snapshot([str(tmp_path)])) is None


def test_the_notebook_takes_the_one_page_route_only_while_the_cache_holds_its_run(tmp_path):
    """mkdocs_esm/notebook.py's serve_remake: an edit to Markdown cells (the cache holds the outputs of
    the code cells as they are) makes the notebook again (the page's source and the shipped
    notebook) and names the page; an edit to a code cell or to a code cell's tags, or another
    file, is left to serve's full rebuild, which runs the cells beside the other pages (None)."""
    from types import SimpleNamespace

    from mkdocs.structure.files import File, Files

    hook = load_hook("notebook")
    docs = tmp_path / "docs"
    source = docs / NOTEBOOK
    source.parent.mkdir(parents=True)
    original = (ROOT / "docs" / NOTEBOOK).read_text(encoding="utf-8")
    source.write_text(original, encoding="utf-8")
    config = SimpleNamespace(docs_dir=str(docs), site_dir=str(tmp_path / "site"), use_directory_urls=True,
                             plugins=SimpleNamespace(_current_plugin="esm"))
    page = File(NOTEBOOK, src_dir=str(tmp_path / "made"), dest_dir=config.site_dir, use_directory_urls=True)
    shipped = File.generated(config, DOWNLOAD, content="the last build's notebook")
    files = Files([page, shipped])
    nb = hook.build_notebook(source, ROOT / "snippets" / "esm")
    cache = hook.execcache.ExecCache(tmp_path / "cache")
    feature = hook.Notebook()
    feature.root, feature.nb, feature.cache, feature.options = ROOT, nb, cache, "the options"
    feature.esm_dir = ROOT / "snippets" / "esm"
    # the last build ran the cells of the unedited notebook
    run = load_hook("nbrun")
    job = SimpleNamespace(nb=nb, options="the options", env=run.env())
    cache.put("notebook-run", run.run_parts(job), [], run.dependencies(cache, nb))

    def remade(text: str):
        source.write_text(text, encoding="utf-8")
        return feature.serve_remake(str(source), config, files)

    prose = original.replace(NB_PROSE, f"{NB_PROSE}, edited,")
    assert remade(prose) == ([NOTEBOOK], [shipped])
    assert ", edited," in (tmp_path / "made" / NOTEBOOK).read_text(encoding="utf-8")
    assert ", edited," in shipped.content_string and feature.source == source
    feature.on_post_build()             # the clean-up
    assert not (tmp_path / "made").exists()
    assert remade(prose.replace(NB_CODE, f"{NB_CODE}x = 1\n")) is None
    assert remade(prose.replace(f"# %%\n{NB_CODE}", f'# %% tags=["skip-execution"]\n{NB_CODE}')) is None
    assert remade(prose.replace(NB_PROSE, f"{NB_PROSE}, edited again,")) == ([NOTEBOOK], [shipped])
    assert ", edited again," in shipped.content_string
    assert remade(prose) is None, "the folder is still there: not ours to write into"
    feature.on_post_build()
    (docs / "index.md").write_text("# Home\n", encoding="utf-8")
    assert feature.serve_remake(str(docs / "index.md"), config, files) is None


class _Page:
    def __init__(self, url):
        self.url = url
        self.file = type("F", (), {"src_uri": url + ".md"})()


def test_search_entries_go_back_where_a_full_build_puts_them():
    a, b, c = _Page("a/"), _Page("b/"), _Page("")
    before = [{"location": "a/"}, {"location": "a/#x"}, {"location": "b/"}, {"location": "b/#y"},
              {"location": ""}, {"location": "#z"}]
    entries = before + [{"location": "b/", "new": 1}, {"location": "b/#w", "new": 1}]
    assert serve_hook._splice(entries, before, [b])
    assert [e["location"] for e in entries] == ["a/", "a/#x", "b/", "b/#w", "", "#z"]
    assert all(e.get("new") for e in entries[2:4])
    entries = before + [{"location": "", "new": 1}]          # the home page: "" is not a prefix of "a/"
    assert serve_hook._splice(entries, before, [c])
    assert [e["location"] for e in entries] == ["a/", "a/#x", "b/", "b/#y", ""]
    entries = list(before)                                   # a page lost every entry: full rebuild
    assert not serve_hook._splice(entries, before, [a])


def test_a_snippet_is_an_input_of_its_includers_only_when_nothing_else_names_it(tmp_path):
    from types import SimpleNamespace
    snippets = tmp_path / "snippets"
    (snippets / "p").mkdir(parents=True)
    demo = snippets / "p" / "lookup.py"
    demo.write_text("print(1)\n")
    (snippets / "p" / "batch_lookup.py").write_text("print(2)\n")
    config = SimpleNamespace(mdx_configs={"pymdownx.snippets": {"base_path": [str(snippets)]}})
    sources = {"a.md": '```python exec="on"\n--8<-- "p/lookup.py"\n```\n',
               "b.md": '```python exec="on"\n--8<-- "p/batch_lookup.py"\n```\n'}
    assert serve_hook._includers(str(demo), config, sources) == ["a.md"]
    assert serve_hook._includers(str(demo), config, {**sources, "c.md": "read p/lookup.py"}) is None
    (snippets / "p" / "reader.py").write_text("open(Path(__file__).parent / 'lookup.py')\n")
    assert serve_hook._includers(str(demo), config, sources) is None
    assert serve_hook._includers(str(tmp_path / "docs" / "x.py"), config, sources) is None


# -- a served copy -----------------------------------------------------------------------------

class Served(ServeProcess):
    """``mkdocs serve --strict`` of ``project`` with serve.yml; the log of its last build; the
    site directory it serves."""

    def __init__(self, project: Path, work: Path) -> None:
        self.project, self.tmp, self.cache = project, work / "tmp", work / "cache"
        self.tmp.mkdir()
        env = dict(os.environ, TMPDIR=str(self.tmp), ESM_CACHE_DIR=str(self.cache), NO_MKDOCS_2_WARNING="1",
                   SOURCE_DATE_EPOCH=source_date_epoch())
        for k in ("ESM_CACHE", "ESM_FAST_SERVE"):
            env.pop(k, None)
        super().__init__(project, env, "-f", "serve.yml")
        self.log: list[str] = []
        self.wait()

    def wait(self, timeout: float = 900) -> str:
        """The log of the next build, up to the line the server logs once it is over."""
        self.log, _ = self.next_build(timeout)
        return "".join(self.log)

    def change(self, action) -> str:
        time.sleep(0.3)
        self.drain()
        action()
        return self.wait()

    @property
    def site(self) -> Path:
        (site,) = self.tmp.glob("mkdocs_*")
        return site

    def cache_entries(self) -> set[Path]:
        return {p for p in self.cache.rglob("*") if p.is_file()}

    def files(self) -> dict[str, tuple[bytes, int]]:
        return {p.relative_to(self.site).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
                for p in sorted(self.site.rglob("*")) if p.is_file()}

    def html(self, src: str) -> str:
        rel = src[:-3]
        folder = "" if rel == "index" else rel.removesuffix("/index")
        return (self.site / folder / "index.html").read_text(encoding="utf-8")

    def full_rebuild(self) -> str:
        log = self.change(lambda: os.utime(self.project / "serve.yml"))
        assert "rebuilt alone" not in log and "Building documentation" in log and RELOADED in log, log[-3000:]
        return log


SERVED = ["index.md", "overview.md", PAGE, OTHER, "practice.md", NOTEBOOK]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A copy of the project served with a few of its pages (as tests/sitebuild.py builds a
    subset: the pages in served-docs/, labels and references read from docs/ as a whole)."""
    work = tmp_path_factory.mktemp("serve")
    project = _copy_project(work / "project")
    docs, sub = project / "docs", project / "served-docs"
    for path in docs.rglob("*"):
        rel = path.relative_to(docs).as_posix()
        if path.is_file() and (path.suffix not in (".md", ".ipynb") or rel in SERVED):
            (sub / rel).parent.mkdir(parents=True, exist_ok=True)
            (sub / rel).write_bytes(path.read_bytes())
    nav = "\n".join(f"  - {p}" for p in SERVED)
    (project / "serve.yml").write_text(
        f"INHERIT: mkdocs.yml\ndocs_dir: served-docs\nvalidation:\n  omitted_files: info\n  not_found: info\n"
        f"  unrecognized_links: info\n  anchors: info\nnav:\n{nav}\n", encoding="utf-8")
    server = Served(project, work)
    yield server
    server.close()


@contextlib.contextmanager
def edited(served: Served, path: Path, old: str | None, new: str):
    """Replace ``old`` (once; None: append) by ``new`` in ``path``; yield the log of the rebuild
    that follows; put the file back and wait for that rebuild too, which must succeed."""
    original = path.read_text(encoding="utf-8")
    if old is not None:
        assert original.count(old) == 1, f"{old!r} is not in {path} once"
    text = original + new if old is None else original.replace(old, new)
    try:
        yield served.change(lambda: path.write_text(text, encoding="utf-8"))
    finally:
        log = served.change(lambda: path.write_text(original, encoding="utf-8"))
    assert RELOADED in log and FAILED not in log, log[-3000:]


def _same_as_a_full_rebuild(served: Served, cache_before: set[Path] | None = None) -> None:
    """The site equals serve's full rebuild, byte for byte. With ``cache_before`` (the execution
    cache's files before the edit), the new entries the fast route wrote are removed first (the
    rendered notebook, a page's search entries): the reference computes them again instead of
    reading what the route stored. (An entry rewritten in place, such as Temml's renderings of
    the site's formulas, stays.)"""
    fast = {k: v[0] for k, v in served.files().items()}
    if cache_before is not None:
        written = served.cache_entries() - cache_before
        assert written, "the fast route stored nothing in the execution cache"
        for path in written:
            path.unlink()
    served.full_rebuild()
    full = {k: v[0] for k, v in served.files().items()}
    assert fast.keys() == full.keys()
    differ = [k for k in full if fast[k] != full[k]]
    def first_difference(k: str) -> str:
        a, b = fast[k].decode(errors="replace"), full[k].decode(errors="replace")
        i = next((n for n, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        return f"{k} at {i}: fast ...{a[max(0, i - 80):i + 120]!r} | full ...{b[max(0, i - 80):i + 120]!r}"
    assert not differ, "the fast rebuild differs from a full rebuild: " + "; ".join(map(first_difference, differ))


def _touched(before: dict, after: dict) -> set[str]:
    return {k for k in after if after[k][1] != before[k][1]}


#: what a rebuild of PAGE alone writes: its HTML, its notebook (made from the same page) and the index
ALONE = {PAGE[:-3] + "/index.html", PAGE[:-3] + "/" + PAGE.split("/")[-1][:-3] + ".ipynb",
         "search/search_index.json"}


@pytest.mark.build
def test_a_prose_edit_rebuilds_its_page_alone_and_equals_a_full_rebuild(served):
    page = served.project / "served-docs" / PAGE
    before, cache = served.files(), served.cache_entries()
    with edited(served, page, "\n## 1.2 ", "\nA sentence added by the test.\n\n## 1.2 ") as log:
        assert f"({PAGE} rebuilt alone)" in log, log[-3000:]
        assert "A sentence added by the test." in served.html(PAGE)
        after = served.files()
        assert _touched(before, after) == ALONE
        assert b"A sentence added by the test." in after["search/search_index.json"][0]
        _same_as_a_full_rebuild(served, cache)
    assert "A sentence added by the test." not in served.html(PAGE)


@pytest.mark.build
def test_a_practice_page_edit_keeps_the_values_its_questions_quote(served):
    """The practice page quotes values computed on other pages (skill checks, mkdocs_esm/skillchecks.py):
    rebuilt alone, it still finds them."""
    page = served.project / "served-docs" / "practice.md"
    with edited(served, page, None, "\nA sentence added by the test.\n") as log:
        assert "(practice.md rebuilt alone)" in log, log[-6000:].split("Doc file")[0] + log[-1500:]
        html = served.html("practice.md")
        assert "A sentence added by the test." in html
        assert f"[gpt2_mb_int8: computed on {PAGE}]" not in html and "{{" not in html
        _same_as_a_full_rebuild(served)


@pytest.mark.build
def test_a_snippet_edit_reruns_its_blocks_and_rebuilds_its_page_alone(served):
    served.full_rebuild()             # the cache's counts start from this build
    before = served.files()
    with edited(served, served.project / "snippets" / DEMO, None, "\nprint('Edited snippet output.')\n") as log:
        assert f"({PAGE} rebuilt alone)" in log, log[-3000:]
        m = SUMMARY.search(log)
        assert m and int(m[2]) == 1, log[-3000:]         # one block ran: the one that includes the demo
        assert "Edited snippet output." in served.html(PAGE)
        assert _touched(before, served.files()) == ALONE
        _same_as_a_full_rebuild(served)
    assert "Edited snippet output." not in served.html(PAGE)


NOTEBOOK_ALONE = {"notebook/theory/index.html", DOWNLOAD, "search/search_index.json"}


@pytest.mark.build
def test_a_notebook_prose_edit_rebuilds_its_page_alone_without_a_kernel(served):
    """A Markdown cell edited: mkdocs_esm/notebook.py makes the notebook again (serve_remake), the page
    takes the fast route with the cells' outputs from the cache (no kernel starts), and the
    shipped notebook is written with it: the edited text, the values of the run quoted in it."""
    source = served.project / "served-docs" / NOTEBOOK
    words = "a sentence added to a Markdown cell by the test"
    before, cache = served.files(), served.cache_entries()
    with edited(served, source, NB_PROSE, f"{NB_PROSE}, {words},") as log:
        assert f"({NOTEBOOK} rebuilt alone)" in log, log[-3000:]
        assert "cell outputs reused" in log and "running its" not in log, log[-3000:]
        assert words in served.html(NOTEBOOK)
        after = served.files()
        shipped = json.loads(after[DOWNLOAD][0])
        prose = "".join("".join(c["source"]) for c in shipped["cells"] if c["cell_type"] == "markdown")
        assert words in prose and "{{" not in prose
        assert "numbers in the text are those of the published run" in prose
        assert any(c.get("outputs") for c in shipped["cells"] if c["cell_type"] == "code"), "shipped without outputs"
        assert _touched(before, after) == NOTEBOOK_ALONE
        _same_as_a_full_rebuild(served, cache)
    assert words not in served.html(NOTEBOOK)
    assert words not in served.files()[DOWNLOAD][0].decode()


@pytest.mark.build
def test_an_asset_edited_with_a_page_is_a_full_rebuild(served):
    """A file of the docs that is not a page (a script) is copied by the full build only: saved
    together with a page's prose, it takes the full rebuild, and the served script is the new
    one. Serve polls for changes every half second; whichever poll sees the first file, the
    rebuild's own snapshot (taken when it starts) holds both, and a rebuild that one more poll
    may start finds nothing changed: the test waits for quiet before going on."""
    script = served.project / "served-docs" / "javascripts" / "learner.js"
    page = served.project / "served-docs" / PAGE
    originals = {path: path.read_text(encoding="utf-8") for path in (script, page)}
    added = {script: "\n/* edited by the test */\n", page: "\nA sentence added by the test.\n"}

    def write(texts: dict) -> None:
        for path, text in texts.items():
            path.write_text(text, encoding="utf-8")

    try:
        log = served.change(lambda: write({path: originals[path] + added[path] for path in originals}))
        assert "Building documentation" in log and "rebuilt alone" not in log, log[-3000:]
        assert b"/* edited by the test */" in served.files()["javascripts/learner.js"][0]
        assert "A sentence added by the test." in served.html(PAGE)
    finally:
        time.sleep(1.2)                 # a rebuild that a later poll started is over
        log = served.change(lambda: write(originals))
    assert RELOADED in log and FAILED not in log, log[-3000:]
    assert b"/* edited by the test */" not in served.files()["javascripts/learner.js"][0]
    time.sleep(1.2)
    served.drain()


@pytest.mark.build
def test_a_title_edit_shows_in_every_pages_navigation(served):
    page = served.project / "served-docs" / OTHER        # a title no page references by label
    with edited(served, page, "# 2 Formal Definitions\n", "# 2 Formal Definitions, retitled\n") as log:
        assert "rebuilt alone" not in log and "changed what other pages show" in log, log[-3000:]
        assert RELOADED in log and FAILED not in log, log[-3000:]
        for src in (PAGE, "overview.md", "index.md"):
            assert "2 Formal Definitions, retitled" in served.html(src), src
    assert "2 Formal Definitions, retitled" not in served.html(PAGE)


@pytest.mark.build
def test_a_referenced_heading_renamed_fails_the_rebuild_and_its_fix_rebuilds(served):
    page = served.project / "served-docs" / PAGE
    whole = served.project / "docs" / PAGE          # where mkdocs_esm/xref.py reads every page's labels
    old, new = REFERENCED
    original = whole.read_text(encoding="utf-8")
    whole.write_text(original.replace(old, new), encoding="utf-8")
    try:
        with edited(served, page, old, new) as log:
            try:
                assert "unknown cross-reference label" in log or "is defined on no page" in log, log[-3000:]
                assert FAILED in log and RELOADED not in log, log[-3000:]
            finally:
                whole.write_text(original, encoding="utf-8")       # before the page is put back
    finally:
        whole.write_text(original, encoding="utf-8")
    fixed = "".join(served.log)                         # the rebuild after the fix: a full one
    assert "Building documentation" in fixed and "rebuilt alone" not in fixed, fixed[-3000:]


@pytest.mark.build
def test_an_esm_edit_is_a_full_rebuild(served):
    with edited(served, served.project / "snippets" / "esm" / "checks.py", None, "\n# edited by the test\n") as log:
        assert "Building documentation" in log and "rebuilt alone" not in log, log[-3000:]
        assert RELOADED in log and FAILED not in log, log[-3000:]
