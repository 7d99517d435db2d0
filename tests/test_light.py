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
