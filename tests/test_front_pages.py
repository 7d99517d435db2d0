"""The front pages (home, overview, notation) agree with the navigation and the pages: no stated
count of chapters, parts or pages that the nav contradicts, no link to a page outside the nav, and
the notation page's "P1 to Pn" range is the primer's chapter count. The home page's own map and
counts are computed by its demos (snippets/primer/front-pages/); this test reads the source."""

from __future__ import annotations

import re

import pytest
import yaml

from conftest import DOCS, ROOT, SNIPPETS

FRONT = ("index.md", "overview.md", "notation.md", "notation-full.md")
WORDS = {w: n for n, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                                    "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split())}


class _Loader(yaml.SafeLoader):
    pass


_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)


def nav():
    return yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)["nav"]


def nav_pages() -> list[str]:
    out = []

    def walk(item):
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, list):
            for x in item:
                walk(x)
        elif isinstance(item, dict):
            for v in item.values():
                walk(v)
    walk(nav())
    return out


def sections() -> dict[str, list[str]]:
    return {name: pages for item in nav() for name, pages in item.items() if isinstance(pages, list)}


def chapters() -> list[str]:
    """The primer's chapters: the pages of its nav section with an eq_prefix (P1, P2, ...)."""
    return [p for p in sections()["Transformer primer"]
            if re.search(r"^eq_prefix:\s*P\d+", (DOCS / p).read_text(encoding="utf-8"), re.M)]


def prose(page: str) -> str:
    """A front page's text without code fences (a demo's code is not a statement of the page)."""
    return re.sub(r"^```.*?^```", "", (DOCS / page).read_text(encoding="utf-8"), flags=re.M | re.S)


def counts_stated(text: str, noun: str) -> list[int]:
    """Every count written before `noun` ("six chapters", "12 chapters"); {{placeholders}} are computed."""
    found = []
    for m in re.finditer(rf"\b(\w+)\s+(?:\w+\s+)?{noun}\b", text, re.I):
        word = m[1].lower()
        if word.isdigit():
            found.append(int(word))
        elif word in WORDS:
            found.append(WORDS[word])
    return found


def test_the_primer_has_numbered_chapters_in_nav_order():
    numbers = [re.search(r"^eq_prefix:\s*P(\d+)", (DOCS / p).read_text(encoding="utf-8"), re.M)[1] for p in chapters()]
    assert numbers == [str(k) for k in range(1, len(numbers) + 1)]


@pytest.mark.parametrize("page", FRONT)
def test_no_stated_count_of_chapters_parts_or_pages_disagrees_with_the_nav(page):
    text = prose(page)
    parts = [name for name in sections() if name.startswith("Part")]
    truth = {"chapters": len(chapters()), "parts": len(parts), "pages": len(nav_pages())}
    for noun, n in truth.items():
        wrong = [c for c in counts_stated(text, noun) if c != n]
        assert not wrong, f"{page} states {wrong} {noun}; the navigation has {n}"


@pytest.mark.parametrize("page", FRONT)
def test_front_pages_link_only_pages_in_the_nav(page):
    pages = set(nav_pages())
    linked = re.findall(r"\]\(([^)#\s]+\.(?:md|py))(?:#[^)]*)?\)", prose(page))
    outside = sorted(set(linked) - pages)
    assert not outside, f"{page} links {outside}, which the navigation does not hold"


@pytest.mark.parametrize("page", ["notation.md", "notation-full.md"])
def test_notation_names_the_primer_chapters_by_their_range(page):
    text = prose(page)
    ranges = re.findall(r"P1 to\s+P(\d+)", text)
    assert ranges, f"{page} should say which labels P1 to Pn are the primer's chapters"
    assert {int(n) for n in ranges} == {len(chapters())}


def test_home_computes_its_map_from_the_nav():
    """The home page's map and chapter count come from a demo, not from typed text."""
    text = (DOCS / "index.md").read_text(encoding="utf-8")
    assert '--8<-- "primer/front-pages/course_map.py"' in text
    assert "{{n_chapters}}" in text
    assert (SNIPPETS / "primer/front-pages/course_map.py").exists()
    # and no stale description of the primer or the notebook survives in the prose
    for stale in ("six chapters", "everything above", "NumPy and matplotlib only", "How to read a subsection"):
        assert stale not in text, stale


def test_home_map_links_every_page_file_once_and_the_notebook_demos_are_numbered():
    """What the home page's map relies on (its block asserts the same and shows no check box):
    the navigation links every page file of docs/part1-3 and docs/primer once, and the theory
    notebook's demos are numbered 1, 2, ... without a gap."""
    on_disk = sorted(p.relative_to(DOCS).as_posix() for folder in ("part1", "part2", "part3", "primer")
                     for p in (DOCS / folder).glob("*.md"))
    linked = [p for p in nav_pages() if p.startswith(("part", "primer"))]
    assert sorted(linked) == on_disk and len(set(linked)) == len(linked)
    numbers = re.findall(r"^# ## (\d+)\. ", (DOCS / "notebook" / "theory.py").read_text(encoding="utf-8"), re.M)
    assert [int(n) for n in numbers] == list(range(1, len(numbers) + 1))


def test_the_theory_notebook_needs_no_data_package():
    """Home's prerequisites say the notebook needs NumPy and matplotlib (and SciPy's erf): it imports
    no loader of the pretrained weights and no corpus."""
    import runpy
    ns = runpy.run_path(str(SNIPPETS / "primer" / "front-pages" / "prerequisites.py"), run_name="front")
    assert not ns["needs_weights"]((DOCS / "notebook" / "theory.py").read_text(encoding="utf-8"))
    assert ns["needs_weights"]("from esm.weights import glove")         # the test itself can fail


def test_notation_fixes_decimal_sizes_and_heads_from_zero():
    text = prose("notation.md")
    assert "1 MB is $10^6$ bytes" in text
    assert "h=0,\\dots,H-1" in text and "h=1,\\dots,H" not in text


def test_the_primer_pages_use_decimal_sizes():
    """MB = 10^6 bytes (notation.md): no binary unit in the primer, its skill checks or the front pages."""
    files = [*DOCS.glob("primer/*.md"), *DOCS.glob("skill-checks/primer-*.yml"), *(DOCS / p for p in FRONT),
             *SNIPPETS.glob("primer/**/*.py"), DOCS / "notebook" / "theory.py"]
    binary = re.compile(r"\b[KMGT]iB\b|2\s*\*\*\s*(?:10|20|30)\b")
    offenders = [f.relative_to(ROOT).as_posix() for f in files
                 if binary.search(f.read_text(encoding="utf-8").replace("MiB of $2^{20}$ bytes is not used", ""))]
    assert not offenders, offenders
