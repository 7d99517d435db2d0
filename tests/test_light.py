"""Light pages, checked on the strict build: the search hook puts back everything it held
out of the index, code blocks carry no span that changes nothing on screen, heatmaps ship as
small indexed PNGs, and the search index stays small."""

from __future__ import annotations

import base64
import io
import json
import re


def pages(site):
    return sorted(p for p in site.dir.rglob("*.html") if p.name == "index.html")


def test_no_search_placeholder_left(site):
    left = [p.relative_to(site.dir).as_posix() for p in pages(site) if "<esm-x " in p.read_text(encoding="utf-8")]
    assert not left, f"mkdocs_esm/search.py left placeholders in {left}"


def test_code_blocks_have_no_plain_spans(site):
    for p in pages(site):
        for block in re.findall(r'<div class="(?:language-\w+ )?highlight"><pre>.*?</pre>', p.read_text(encoding="utf-8"), re.S):
            assert '<span class="n">' not in block and '<span class="w">' not in block, p
            assert "__codelineno" not in block, p


def test_heatmaps_are_indexed_pngs(site):
    from PIL import Image
    found = 0
    for p in pages(site):
        for data in re.findall(r'xlink:href="data:image/png;base64,([^"]+)"', p.read_text(encoding="utf-8")):
            found += 1
            assert Image.open(io.BytesIO(base64.b64decode(data))).mode == "P", p
    assert found


def test_search_finds_the_exercises_but_not_their_hints_and_solutions(site):
    """A search lands where an idea is taught or asked, never inside a folded hint or solution:
    the reader works the exercise before opening either."""
    from reading import prose_blocks
    docs = json.loads((site.dir / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    indexed = " ".join(" ".join(re.sub(r"<[^>]+>", " ", d["text"]).split()) for d in docs
                       if d["location"].startswith("part1/exercises/"))
    page = (site.dir / "part1" / "exercises" / "index.html").read_text(encoding="utf-8")
    assert page.count('<details class="tip">') + page.count('<details class="success">') >= 8
    folds = re.findall(r'<details class="(?:tip|success)">.*?<template data-esm-defer>(.*?)</template>', page, re.S)
    hidden = [" ".join(re.sub(r"<[^>]+>", " ", f).split()[:8]) for f in folds]
    assert len([h for h in hidden if h]) >= 6, hidden
    assert not [h for h in hidden if h and h in indexed], "a hint or solution is in the search index"
    statements = [t for _, t, _ in prose_blocks(page) if "Look up the batch of ids" in t]
    assert statements and "Look up the batch of ids" in indexed     # exercise 1's statement


def test_search_index_is_small(site):
    """About 600 KB before the search hook (formulas three times, code, SVG text)."""
    index = site.dir / "search" / "search_index.json"
    docs = json.loads(index.read_text(encoding="utf-8"))["docs"]
    # Budget per indexed page, 13 KB: the first budget was 300 KB for 24 pages (12.5 KB a page)
    # before the site gained four primer chapters, seven exercises, real-data sections, about
    # 70 author-year citations and the bibliography page; what is indexed is prose only.
    pages = {d["location"].split("#")[0] for d in docs}
    assert index.stat().st_size < 13_000 * len(pages), (index.stat().st_size, len(pages))
    assert "\\u22" not in index.read_text(encoding="utf-8"), "math symbols escaped: write UTF-8"
    assert any("cosine" in d["text"] for d in docs)


def test_explore_script_is_small_and_only_where_a_figure_is(site):
    """docs/javascripts/explore.js: at most 8 KB gzipped, loaded once by each page with an
    explorable figure (at least 5 pages, 8 controls) and by no other page."""
    import gzip
    script = site.dir / "javascripts" / "explore.js"
    assert len(gzip.compress(script.read_bytes(), 9)) <= 8_000
    with_fig, controls = [], 0
    for p in pages(site):
        text = p.read_text(encoding="utf-8")
        tags = len(re.findall(r'<script defer src="[./]*javascripts/explore\.js">', text))
        if 'class="esm-explore"' in text:
            with_fig.append(p)
            controls += len(re.findall(r'<(?:input type="range"|select) id="x[0-9a-f]{8}-\d+" data-c=', text))
            assert tags == 1, p
        else:
            assert tags == 0 and "explore.js" not in text, p
    assert len(with_fig) >= 5 and controls >= 8, (len(with_fig), controls)


#: Elements in a page's document (issue 37): the math's HTML spans before MathML, every demo's Code tab and every
#: folded check made the long pages 14,000-18,000.
ELEMENT_BUDGET = 5_000


def document_elements(text: str) -> int:
    """Elements in the document a browser makes of ``text``: what a <template> holds is not in it."""
    from html.parser import HTMLParser

    class Counter(HTMLParser):
        def __init__(self):
            super().__init__()
            self.count, self.inside = 0, 0

        def handle_starttag(self, tag, attrs):
            if not self.inside:
                self.count += 1
            if tag == "template":
                self.inside += 1

        def handle_startendtag(self, tag, attrs):
            if not self.inside:
                self.count += 1

        def handle_endtag(self, tag):
            if tag == "template":
                self.inside -= 1

    counter = Counter()
    counter.feed(text)
    return counter.count


def test_document_elements_counted_without_templates():
    assert document_elements("<html><body><p>a<br></p><template><div><span>x</span></div></template></body></html>") == 5


def test_every_page_has_at_most_5000_elements(site):
    over = {p.relative_to(site.dir).as_posix(): n for p in pages(site)
            if (n := document_elements(p.read_text(encoding="utf-8"))) > ELEMENT_BUDGET}
    assert not over, f"pages over {ELEMENT_BUDGET:,d} elements in their document: {over}"


def test_formulas_are_mathml_a_screen_reader_reads(site):
    """Every formula is a <math> element with its text (MathML Core: what assistive technology
    reads), never hidden from it."""
    found = 0
    for p in pages(site):
        text = p.read_text(encoding="utf-8")
        for m in re.finditer(r"<math\b([^>]*)>(.*?)</math>", text, re.S):
            found += 1
            assert "aria-hidden" not in m[1], p
            assert re.sub(r"<[^>]+>", "", m[2]).strip(), (p, m[0][:200])
    assert found > 1000


def test_deferred_content_is_put_back_unchanged(site):
    """defer.py's templates hold exactly what the page held (restore is what learner.js does)."""
    from mkdocs_esm import defer
    for src in ("part2/geometry-of-meaning/index.html", "part3/exercises/index.html", "notebook/theory/index.html"):
        text = (site.dir / src).read_text(encoding="utf-8")
        assert "<template data-esm-defer" in text, src
        assert defer.defer(defer.restore(text)) == text, src


def test_defer_moves_the_code_tab_and_closed_details_only():
    from mkdocs_esm import defer
    tabs = ('<div class="tabbed-set tabbed-alternate" data-tabs="1:2"><input checked="checked" id="a_1" name="a" type="radio">'
            '<input id="a_2" name="a" type="radio"><div class="tabbed-labels"><label for="a_1">Output</label>'
            '<label for="a_2">Code</label></div>\n<div class="tabbed-content">\n<div class="tabbed-block">'
            '<p>out</p><div>x</div></div>\n<div class="tabbed-block"><div class="highlight"><pre><code>c = 1'
            '</code></pre></div></div>\n</div>\n</div>')
    page = (f'<html><head></head><body>{tabs}<details class="success esm-checks"><summary>2 checks</summary>'
            '<div><details><summary>in</summary>x</details></div></details><details open><summary>s</summary>'
            '<p>kept</p></details></body></html>')
    out = defer.defer(page)
    assert defer.restore(out) == page
    assert out.count("<template data-esm-defer>") == 2          # the Code tab, the outer closed details
    assert '<div class="tabbed-block"><p>out</p>' in out        # the first tab (Output) stays
    assert "<p>kept</p>" in out and "<noscript>" in out
