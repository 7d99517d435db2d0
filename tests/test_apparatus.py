"""Cross-references, citations and links: what the strict build promises about them.

Fault injection (an unknown label, an unknown citation key, a stale section number) builds one
small page of the fixture book (tests/fixture/); the rendered checks read the session's whole-site build."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from conftest import ROOT, build_fails, pages
from sitebuild import load_hook

Cite = load_hook("cite").Cite

PAGE = "xref-fault.md"


def _page(copy: Path, text: str) -> None:
    (copy / "docs" / PAGE).write_text(f"# Fault\n\nSome text.\n\n{text}\n", encoding="utf-8")


@pytest.mark.build
def test_an_unknown_label_fails_naming_page_and_line(fixture_project, tmp_path):
    copy = fixture_project
    _page(copy, "See [section #][sec-no-such-section] here.")
    build_fails(copy, tmp_path / "site", PAGE, f"{PAGE}:5", "sec-no-such-section")


@pytest.mark.build
def test_an_unknown_label_fails_without_strict_too(fixture_project, tmp_path):
    copy = fixture_project
    _page(copy, "See [(#)][eq-no-such-formula].")
    build_fails(copy, tmp_path / "site", PAGE, f"{PAGE}:5", "eq-no-such-formula", strict=False)


@pytest.mark.build
def test_an_unknown_citation_key_fails_naming_page_and_line(fixture_project, tmp_path):
    copy = fixture_project
    _page(copy, "As shown [@nobody2099].")
    build_fails(copy, tmp_path / "site", PAGE, f"{PAGE}:5", "nobody2099", "references.bib")


@pytest.mark.build
def test_a_stale_section_number_fails(fixture_project, tmp_path):
    copy = fixture_project
    page = copy / "docs" / "part1" / "lesson.md"
    page.write_text(page.read_text().replace("## 1.1 ", "## 1.7 ", 1))
    build_fails(copy, tmp_path / "site", "part1/lesson.md", "should be numbered 1.1")


def test_the_conversion_script_has_nothing_left_to_convert():
    """tools/convert_xrefs.py finds no plain-text reference left (re-run it after merging)."""
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "convert_xrefs.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, f"plain-text references left; run tools/convert_xrefs.py:\n{done.stdout}"


def test_every_cited_key_is_in_the_bibliography_and_unused_entries_are_reported():
    bib = Cite()
    bib.on_config(type("Config", (), {"docs_dir": str(ROOT / "docs")})())
    cited = set()
    for path in pages():
        for key in re.findall(r"-?@([\w:.-]+)", " ".join(re.findall(r"\[(-?@[^\[\]\n]*)\]", path.read_text()))):
            cited.add(key)
    assert cited <= set(bib.labels), sorted(cited - set(bib.labels))
    unused = sorted(set(bib.labels) - cited)
    if unused:
        warnings.warn(f"docs/references.bib entries cited nowhere: {unused}")


def test_author_year_labels():
    bib = Cite()
    bib.on_config(type("Config", (), {"docs_dir": str(ROOT / "docs")})())
    assert bib.labels["vaswani2017attention"] == ("Vaswani et al.", "2017")
    assert bib.labels["levy2014neural"] == ("Levy and Goldberg", "2014")
    assert bib.labels["ethayarajh2019contextual"] == ("Ethayarajh", "2019")


@pytest.mark.build
def test_cross_references_show_their_numbers(site):
    html = site.html("part1/similarity-geometry.md")
    links = re.findall(r'<a class="autorefs autorefs-internal"[^>]*href="([^"]+)"[^>]*>([^<]*)</a>', html)
    assert links, "no cross-reference links on the page"
    assert not [text for _, text in links if "#" in text or "?" in text]
    assert ("../formal-definitions/#24-input-output-and-tied-embeddings", "section 2.4") in links


@pytest.mark.build
def test_no_reference_is_left_as_raw_syntax(site):
    for path in site.dir.rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        body = re.sub(r"<(code|pre)\b.*?</\1>", "", text, flags=re.S)
        assert not re.search(r"\]\[(sec|ex|mistake|chapter|eq|ref)-", body), path
        assert "esm-xref-missing" not in body, path
        assert not re.search(r"\[-?@[a-z]", body), path


@pytest.mark.build
def test_pass_line_equation_tags_link_to_their_equation(site):
    html = site.html("part1/intuition.md")
    refs = re.findall(r'<a class="esm-eqref" href="#eq-([^"]+)">\(([^)]+)\)</a>', html)
    assert refs
    for name, number in refs:
        assert f'id="eq-{name}"' in html


@pytest.mark.build
def test_the_bibliography_page_lists_every_entry(site):
    html = site.html("references.md")
    bib = Cite()
    bib.on_config(type("Config", (), {"docs_dir": str(ROOT / "docs")})())
    for key in bib.labels:
        assert f'id="ref-{key}"' in html
    assert not (site.dir / "references.bib").exists()
