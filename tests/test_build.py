"""The strict build of the whole site: it passes, publishes no traceback, shows every check
the demos make, renders every formula, loads nothing from outside itself, and is
reproducible."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import pytest

from mkdocs_esm import mathml

from conftest import DOCS, environ, page_includes, pages
from sitebuild import build

pytestmark = pytest.mark.build


def built_html(site) -> dict[str, str]:
    return {p.relative_to(site.dir).as_posix(): p.read_text(encoding="utf-8") for p in site.dir.rglob("*.html")}


def test_no_traceback_is_published(site):
    for name, text in built_html(site).items():
        assert "Traceback (most recent call last)" not in text, name
        assert ">FAIL<" not in text and "FAIL [" not in text, name


@pytest.mark.parametrize("page", [p.relative_to(DOCS).as_posix() for p in pages()])
def test_every_check_of_a_page_is_shown(site, page, demo_output):
    """The page shows as many passed checks as its demos print when run on their own."""
    expected = sum(
        sum(line.startswith("PASS") for line in demo_output(s).splitlines())
        for s in page_includes(DOCS / page)
    )
    html = site.html(page)
    assert html.count('<div class="esm-check"') == expected


def test_every_cross_reference_is_resolved(site):
    """A reference left unresolved (a part of the content that xref and autorefs did not see)
    shows its placeholder, "section #", to the reader: hidden folds included."""
    for name, text in built_html(site).items():
        assert "<autoref" not in text, f"{name}: an unresolved cross-reference"


def test_every_formula_is_rendered(site):
    for name, text in built_html(site).items():
        assert not re.search(r'<(?:span|div) class="arithmatex">', text), f"{name}: a formula was left for the browser"
        assert "<merror" not in text, name


def test_the_build_prints_no_third_party_notice_and_no_value_quoted_nowhere(site):
    """The session's cold build (issue 45): no kernel notice of unencrypted TCP (the notebook's
    kernel talks over Unix sockets), no fontTools warning (FFTM is dropped by name), and every
    value a demo publishes is quoted by the prose or a skill check."""
    assert "quoted nowhere" not in site.log, [l for l in site.log.splitlines() if "quoted nowhere" in l]
    for notice in ("without encryption", "NOT subset", "Converting notebook"):
        assert notice not in site.log, notice


def test_every_table_is_rendered(site):
    """A demo's table that Markdown could not read (a header cell with a raw '|', say) would
    show as its pipes and dashes in a paragraph."""
    for name, text in built_html(site).items():
        assert not re.search(r"\|-{3}\|", text), f"{name}: a table left as Markdown text"


def test_no_raw_tex_in_navigation_or_table_of_contents(site):
    """Headings with math reach the table of contents as text: mkdocs_esm/mathml.py renders it."""
    for name, text in built_html(site).items():
        for link in re.findall(r'<a [^>]*class="md-nav__link[^"]*"[^>]*>(.*?)</a>', text, flags=re.S):
            assert "\\(" not in link and "\\[" not in link, f"{name}: raw TeX in {link.strip()[:80]!r}"
    assert re.search(r"Why divide by <math\b", site.html("primer/softmax-and-scores.md"))


def test_math_pages_link_temml_css_and_the_font_exists(site):
    css = site.dir / mathml.CSS_PATH
    text = css.read_text(encoding="utf-8")
    fonts = set(re.findall(r"url\((fonts/[^)]+)\)", text))
    assert fonts and all(f.endswith(".woff2") for f in fonts)
    for font in fonts:
        assert (css.parent / font).is_file(), font
    # Pages link one bundle of every stylesheet (mkdocs_esm/stylesheets.py): Temml's is in it, and
    # its fonts resolve from the bundle's place.
    bundle = re.search(r'<link rel="stylesheet" href="((?:\.\./)*assets/stylesheets/site\.[0-9a-f]{8}\.css)">',
                       site.html("part1/intuition.md"))
    assert bundle, "part 1 links no stylesheet bundle"
    merged = (site.dir / "part1" / "intuition" / bundle[1]).resolve()
    merged_text = merged.read_text(encoding="utf-8")
    assert "@font-face" in merged_text and "Latin Modern Math" in merged_text
    for font in re.findall(r"url\(([^)]+\.woff2)\)", merged_text):
        assert (merged.parent / font).resolve() == (css.parent / font.removeprefix("../math/")).resolve(), font
        assert (merged.parent / font).is_file(), font


def test_no_page_holds_a_style_element(site):
    """Every rule is in the one stylesheet: a <style> in a page (matplotlib puts one in each SVG,
    mkdocs-jupyter one in the notebook) is a sheet of the whole document, and each one the
    parser meets restyles every element already on the page."""
    for name, text in built_html(site).items():
        assert "<style" not in text, name


def test_the_stylesheet_purge_leaves_no_custom_property_unset(site):
    """`mkdocs build` drops the custom properties that no kept rule reads (mkdocs_esm/stylesheets.py):
    none that the bundle, a page or a script reads was dropped. (The rules it drops are checked
    in the browser, tests/browser/test_pages.py.)"""
    stylesheets = site.dir / "assets" / "stylesheets"
    bundle = re.search(r'href="(assets/stylesheets/site\.[0-9a-f]{8}\.css)"', site.html("index.md"))[1]
    purged = (site.dir / bundle).read_text(encoding="utf-8")
    third = [*stylesheets.glob("*.min.css"), site.dir / mathml.CSS_PATH]
    declared = re.compile(r"(--[\w-]+)\s*:")
    dropped = {v for p in third for v in declared.findall(p.read_text(encoding="utf-8"))} - set(declared.findall(purged))
    assert dropped, "the purge dropped no custom property"
    readers = [purged, *(p.read_text(encoding="utf-8") for p in site.dir.rglob("*") if p.suffix in (".html", ".js"))]
    read = {v for text in readers for v in re.findall(r"var\(\s*(--[\w-]+)", text)}
    assert read & dropped == set()


#: What a browser fetches from elsewhere. A `<link rel="canonical">` (written when SITE_URL is set,
#: as CI's build sets it) names the published address of the page and is never fetched.
EXTERNAL = re.compile(
    r"""(?:<(?:script|img|iframe|source|audio|video|embed)\b[^>]*\bsrc|<link\b(?![^>]*\brel=["']?canonical\b)[^>]*\bhref)\s*=\s*["']?(?:https?:)?//"""
    r"""|@import\s+(?:url\()?["']?(?:https?:)?//|url\(\s*["']?(?:https?:)?//""",
    re.I,
)


def test_nothing_is_loaded_from_outside(site):
    for path in site.dir.rglob("*"):
        if path.suffix in (".html", ".css", ".js"):
            text = path.read_text(encoding="utf-8", errors="replace")
            hit = EXTERNAL.search(text)
            assert not hit, f"{path.relative_to(site.dir)} loads {text[hit.start():hit.start() + 120]!r}"


def _digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _same(first: Path, second: Path) -> None:
    a, b = _digest(first), _digest(second)
    assert a.keys() == b.keys()
    assert [k for k in a if a[k] != b[k]] == []


#: The page whose blocks are run again here, in this process, to compare with the workers' runs.
COLD_PAGE = "part1/intuition.md"


def test_a_block_prints_the_same_in_process_and_in_a_worker(site, demo_output, tmp_path):
    """Cold equals warm without a second whole build: each block of one page (figures, tables,
    glue, checks), run again both ways a build runs a block, in-process (execution.run_python,
    here) and in a worker process (execcache.run_block_in_worker, in a spawned process as a cold
    build's look-ahead starts it), prints the bytes the session build's cache holds for it. With
    the cached build below (identical, nothing run) and the page notebooks (every block again in
    a fresh kernel, equal line by line), this replaces the uncached whole build (ESM_CACHE=0)
    that ran every demo and retrained P11 a third time; ESM_CACHE=0 itself is tested on one page
    (test_cache_faults.test_the_cache_can_be_switched_off)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from conftest import demo_block, run_snippet
    from mkdocs_esm import execcache, execution

    demos = page_includes(DOCS / COLD_PAGE)
    assert len(demos) >= 5
    built = {demo: demo_output(demo) for demo in demos}
    assert any("<svg" in out for out in built.values()) and any("value " in out for out in built.values())
    for demo in demos:
        assert run_snippet(demo) == built[demo], f"{demo.name}: the in-process run differs from the build's"
    cache = tmp_path / "worker-cache"
    with environ(MPLBACKEND=os.environ.get("MPLBACKEND", "Agg")), \
            ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        jobs = {demo: pool.submit(execcache.run_block_in_worker, str(cache), execution._parts(code, block_id, 0, {}),
                                  code, block_id, 0, {})
                for demo in demos for _, code, block_id in [demo_block(demo)]}
        assert all(job.result() for job in jobs.values())
        for demo in demos:
            _, code, block_id = demo_block(demo)
            worker = execcache.ExecCache(cache).get("block", execution._parts(code, block_id, 0, {}))
            assert worker == built[demo], f"{demo.name}: the worker's run differs from the build's"


def test_a_cached_build_is_identical_and_runs_nothing(site, tmp_path):
    """The session's cache, full: every block and the notebook reused, the same bytes."""
    warm = tmp_path / "warm"
    with environ(ESM_CACHE=None, ESM_CACHE_DIR=str(site.cache)):
        result = build(warm)
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-3000:]
    m = re.search(r"execution cache: (\d+) reused, (\d+) ran", log)
    assert m and int(m[1]) > 0 and int(m[2]) == 0, log[-3000:]
    assert "rendered notebook reused from the execution cache" in log
    _same(site.dir, warm)


def test_the_build_plans_every_block_as_it_runs_it(site):
    """A cold build starts each block ahead, in a worker, under the key it plans from the page's
    Markdown (execution.planned_blocks); the block is found there only if markdown-exec hands the
    build the same code and id. Every block the session build ran is found under its planned
    key, whichever way it ran (ahead in workers, as `make build` and CI's build job run it, or
    in-process, as the suite's own build on two CPUs runs it: ESM_JOBS, conftest.session_build)."""
    from mkdocs_esm import execcache, execution

    m = re.search(r"execution cache: (\d+) reused, (\d+) ran \((\d+) ahead", site.log)
    assert m and int(m[1]) == 0 and int(m[2]) > 0, site.log[-3000:]
    cache = execcache.ExecCache(site.cache)
    planned = 0
    with environ(MPLBACKEND=os.environ.get("MPLBACKEND", "Agg")):
        for page in pages():
            src = page.relative_to(DOCS).as_posix()
            text = re.sub(r"\A---\n.*?\n---\n", "", page.read_text(encoding="utf-8"), flags=re.S)
            for code, block_id in execution.planned_blocks(text, src, DOCS.parent / "snippets"):
                assert cache.peek("block", execution._parts(code, block_id, 0, {})), f"{src} {block_id}"
                planned += 1
    assert planned == int(m[2])
