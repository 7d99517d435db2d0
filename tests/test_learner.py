"""Learner features at build time (mkdocs_esm/skillchecks.py, reading.py, notes.py): the skill-check data, where each
check is shown, the review links of its questions, the practice page, reading time, and
the safety of question text. The browser side is tested in tests/browser/."""

from __future__ import annotations

import re
import sys

import pytest
import yaml

from html import escape as html_escape

from conftest import DOCS, ROOT, page_includes

from mkdocs_esm import glue, reading, skillchecks  # noqa: E402
from printed import parse_value  # noqa: E402

CHECKS = sorted((DOCS / "skill-checks").glob("*.yml"))
PRIMER_CHAPTERS = ["token-embeddings", "positional-encoding", "self-attention",
                   "softmax-and-scores", "multi-head-attention", "transformer-block", "full-model",
                   "counting-gpt2", "training-signal", "training", "training-run", "decoding", "modern-block"]


def checks() -> list[dict]:
    return [yaml.safe_load(p.read_text(encoding="utf-8")) | {"file": p.name} for p in CHECKS]


def test_one_check_per_part_and_per_primer_chapter():
    targets = {c["page"] for c in checks()}
    assert {"part1/", "part2/", "part3/"} <= targets
    assert {f"primer/{c}.md" for c in PRIMER_CHAPTERS} <= targets


def test_skill_check_data_is_valid():
    skillchecks.load_checks(DOCS)           # raises on any malformed file
    ids = [q["id"] for c in checks() for q in c["questions"]]
    assert len(ids) == len(set(ids))
    for c in checks():
        assert 4 <= len(c["questions"]) <= 6, c["file"]
        for q in c["questions"]:
            assert len(set(q["choices"])) == len(q["choices"]), q["id"]
            page = q["see"].partition("#")[0]
            assert (DOCS / page).is_file(), f"{q['id']}: review link to missing page {page}"
            assert q["see"].startswith(c["page"]) or c["page"].endswith("/") and page.startswith(c["page"]), \
                f"{q['id']}: a question about another page"


IDS = ROOT / "tests" / "data" / "skill_check_ids.txt"


def test_question_ids_are_stable_so_saved_practice_survives():
    """The browser keys a reader's answers and practice queue by question id (learner.js): an id
    published once keeps its question (wherever it moves) or is retired for good, never reused.
    A new question adds its id to the ledger; replacing a question retires its old id."""
    live, retired = set(), set()
    for line in IDS.read_text(encoding="utf-8").splitlines():
        if line.startswith("retired "):
            retired.add(line.split()[1].rstrip(":"))
        elif line.strip() and not line.startswith("#"):
            live.add(line.strip())
    current = {q["id"] for c in checks() for q in c["questions"]}
    assert not live & retired
    assert not current & retired, f"retired ids reused: {sorted(current & retired)}"
    assert not current - live, f"new ids not in {IDS.name}: {sorted(current - live)}"
    assert not live - current, (f"ids dropped without being retired in {IDS.name} (a reader's saved "
                                f"answers to them would vanish): {sorted(live - current)}")


def test_shuffled_choices_keep_the_right_answer():
    for c in checks():
        for q in c["questions"]:
            texts, answer = skillchecks.shuffled(q)
            assert sorted(texts) == sorted(q["choices"])
            assert texts[answer] == q["choices"][q["answer"]]


def test_question_text_is_escaped_not_html():
    out = skillchecks.inline('<img src=x onerror="alert(1)"> and `a<b` and $x<y$ and **bold**')
    assert "<img" not in out and "&lt;img" in out
    assert "<code>a&lt;b</code>" in out
    assert '<span class="arithmatex">\\(x&lt;y\\)</span>' in out
    assert "<strong>bold</strong>" in out


def test_reading_stats_count_prose_formulas_figures_and_headings():
    html = ("<h1>T</h1><p>" + "word " * 400 + "</p><h2 id='a'>A</h2><h3 id='b'>B</h3>"
            '<div class="arithmatex">\\[x\\]</div><figure class="esm-figure"><svg><text>'
            + "tick " * 500 + "</text></svg></figure><pre><code>" + "code " * 900 + "</code></pre>")
    s = reading.stats(html)
    assert s["words"] == 400 + 3          # prose and heading words; code, SVG, TeX are not read
    assert (s["headings"], s["formulas"], s["figures"]) == (2, 1, 1)
    assert s["minutes"] == 3               # 403/200 min + 20 s + 20 s = 2.68 min, rounded up


def nav_pages() -> list[str]:
    from browser.conftest import page_sources
    return page_sources()


def built(site, src: str) -> str:
    from browser.conftest import url_of
    return (site.dir / url_of(src) / "index.html").read_text(encoding="utf-8")


@pytest.mark.build
def test_each_check_is_shown_once_on_its_page(site):
    order = nav_pages()
    for c in checks():
        target = c["page"]
        if target.endswith("/"):
            target = [p for p in order if p.startswith(target)][-1]
        html = built(site, target)
        assert html.count('<section class="esm-skillcheck"') == 1, f"{c['file']} not on {target}"
        for q in c["questions"]:
            assert f'data-qid="{q["id"]}"' in html
    shown = sum(built(site, p).count('<section class="esm-skillcheck"') for p in order)
    assert shown == len(CHECKS)


@pytest.mark.build
def test_review_links_point_at_real_anchors(site):
    for c in checks():
        for q in c["questions"]:
            page, _, anchor = q["see"].partition("#")
            if anchor:
                assert f'id="{anchor}"' in built(site, page), f"{q['id']}: no #{anchor} on {page}"


@pytest.mark.build
def test_practice_page_holds_every_question_hidden(site, demo_output):
    html = built(site, "practice.md")
    total = sum(len(c["questions"]) for c in checks())
    assert html.count('<fieldset class="esm-q"') == total
    assert html.count('data-check=') >= total
    assert len(re.findall(r'<fieldset class="esm-q"[^>]* hidden>', html)) == total
    # ... in a <template>, out of the document until learner.js moves the due ones in (element budget)
    bank = re.search(r'<template class="esm-practice-bank">(.*?)</template>', html, re.S)
    assert bank and bank[1].count('<fieldset class="esm-q"') == total
    assert not (site.dir / "skill-checks").exists(), "the skill-check data is not published"
    # every value a question quotes was filled in from the page that computed it
    quoted = {m for c in checks() for q in c["questions"]
              for m in skillchecks.VALUE.findall(str([q["prompt"], q["choices"], q["explain"]]))}
    assert "{{" not in html and "computed on" not in html, "a skill-check value was not filled in"
    # review links are labelled with the page's title (its H1), on the practice page as on the
    # page of the check, whichever order the pages were converted in
    labels = re.findall(r'class="esm-q-see">Review: <a href="[^"]*">([^<]*)</a>', html)
    assert len(labels) == total and not [x for x in labels if x.endswith(".md") or "esm-title" in x], labels[:5]
    # ... and it is the value the page's own demo prints when run on its own (conftest)
    for path, name, fmt in quoted:
        if fmt:
            continue
        lines = [line for inc in page_includes(DOCS / path) for line in demo_output(inc).split("\n")
                 if line.startswith(f"value {name} = ")]
        assert len(lines) == 1, f"{path} publishes {name} {len(lines)} times when run on its own"
        printed = parse_value(lines[0])[1]    # as format() prints it: 4.5e-03 is 4.5×10⁻³
        shown = re.sub(r"[^(), ]+", lambda m: glue.as_text(m[0]), printed)
        assert html_escape(shown) in html, f"{name} of {path} not on the practice page"


@pytest.mark.build
def test_overview_lists_every_nav_page(site):
    html = built(site, "overview.md")
    html = html[html.index('<div class="esm-overview">'):]
    for src in nav_pages():
        if src in ("overview.md", "practice.md"):
            continue
        from browser.conftest import url_of
        target = url_of(src) or ".."           # the home page is ".." from overview/
        assert re.search(r'<a href="(\.\./)*' + re.escape(target) + '"', html), src


# -- computed values quoted by skill checks ({{page.md#name}}, filled in on_env) -------------

class _Page:
    def __init__(self, values, content="<p>built</p>"):
        self.values, self.content = values, content


class _File:
    def __init__(self, page):
        self.page = page


class _Files:
    def __init__(self, pages):
        self.pages = pages

    def get_file_from_path(self, path):
        return _File(self.pages[path]) if path in self.pages else None


_VALUES = {"part2/geometry-of-meaning.md": _Page({"cos_king": {"value": 0.78125, "fmt": ".3f"},
                                                 "n": {"value": 50257, "fmt": ","}})}


def _fill_values(html: str, files: _Files) -> str:
    """The learner feature's filling, with a build state holding each page's published values."""
    from mkdocs_esm.state import BuildState

    feature = skillchecks.SkillChecks()
    feature.state = BuildState(root=ROOT)
    for src, page in files.pages.items():
        feature.state.page(src).values = page.values
    return feature.fill_values(html, files)


def test_skill_check_values_are_filled_in_from_the_page_that_computed_them():
    html = "<p>{{part2/geometry-of-meaning.md#cos_king}} and {{ part2/geometry-of-meaning.md#n }} " \
           "or {{part2/geometry-of-meaning.md#cos_king:.1%}}; {{plain}} stays</p>"
    out = _fill_values(html, _Files(_VALUES))
    assert out == f"<p>{0.78125:.3f} and 50,257 or 78.1%; {{{{plain}}}} stays</p>"


@pytest.mark.parametrize("ref, message", [
    ("{{part2/geometry-of-meaning.md#cos_queen}}", "unknown computed value"),
    ("{{part2/geometry-of-meaning.md#n:.2q}}", "cannot format"),
    ("{{part2/no-such-page.md#x}}", "not a page of docs/"),
])
def test_a_bad_skill_check_value_fails_the_build(ref, message):
    with pytest.raises(skillchecks.PluginError, match=message):
        _fill_values(f"<p>{ref}</p>", _Files(_VALUES))


def test_a_page_left_out_of_a_small_build_leaves_a_marked_placeholder():
    out = _fill_values("{{part1/intuition.md#x}}", _Files({}))
    assert out == "[x: computed on part1/intuition.md]"


@pytest.mark.parametrize("prompt, message", [
    ("cosine $c={{part2/a.md#x}}$ here", "inside"),
    ("cosine {{x}} here", "quoted as"),
])
def test_skill_check_references_are_checked_when_read(prompt, message):
    q = {"id": "q", "prompt": prompt, "choices": ["a", "b"], "answer": 0, "explain": "e"}
    with pytest.raises(skillchecks.PluginError, match=message):
        skillchecks.check_references("skill-checks/x.yml", q)
    skillchecks.check_references("x", q | {"prompt": r"cost \$5 and {{part2/a.md#x}} in $y$"})


def test_every_skill_check_value_reference_is_well_formed():
    for c in checks():
        for q in c["questions"]:
            skillchecks.check_references(c["file"], q)


def _storage_keys(nav_order: list[str]) -> dict[str, set[str]]:
    """The localStorage keys each primer page hands the browser (learner.js keeps a reader's
    answers under a question's data-qid and notes under the panel's data-page), rendered with the
    primer's pages in ``nav_order``: the page objects, their nav, the skill checks placed by on_nav."""
    from mkdocs.config import load_config
    from mkdocs.structure.files import get_files
    from mkdocs.structure.nav import get_navigation

    from mkdocs_esm import notes

    config = load_config(str(ROOT / "mkdocs.yml"))
    primer = next(item["Transformer primer"] for item in config.nav
                  if isinstance(item, dict) and "Transformer primer" in item)
    assert sorted(primer) == sorted(nav_order)
    primer[:] = nav_order
    files = get_files(config)
    nav = get_navigation(files, config)
    sc = skillchecks.SkillChecks()
    sc.all_checks = skillchecks.load_checks(DOCS)
    sc.on_files(files)
    sc.on_nav(nav)
    keys = {}
    for page in nav.pages:
        src = page.file.src_uri
        if not src.startswith("primer/") or src not in sc.checks:
            continue
        html = skillchecks._skill_check_html(sc.checks[src], page, files, "../practice/") + notes._notes_html(page)
        keys[src] = set(re.findall(r'data-(?:qid|page)="([^"]+)"', html))
    return keys


def test_moving_a_page_in_the_nav_keeps_its_saved_practice_keys():
    """Issue 48 moved decoding after training. A reader's saved answers and notes stay theirs only
    if the keys they are saved under do not depend on where a page stands in the nav (its chapter
    number): the keys of every primer page are the same with decoding before and after training,
    and learner.js reads its storage keys from those two attributes only."""
    new = [p for p in nav_pages() if p.startswith("primer/")]
    i, j = new.index("primer/training.md"), new.index("primer/decoding.md")
    assert i < j, "decoding comes after training"
    old = list(new)
    old[i], old[j] = old[j], old[i]
    before, after = _storage_keys(old), _storage_keys(new)
    assert before == after and before["primer/decoding.md"] >= {"pr10-temperature", "primer/decoding.md"}
    js = (DOCS / "javascripts" / "learner.js").read_text(encoding="utf-8")
    assert set(re.findall(r"\brecords\[((?:[^\[\]]|\[[^\]]*\])+)\]", js)) <= {"qid", 'qs[i].getAttribute("data-qid")',
                                                         'a.getAttribute("data-qid")', 'b.getAttribute("data-qid")',
                                                         'q.getAttribute("data-qid")'}
    assert set(re.findall(r"(?<![\w-])notes\[([^\]]+)\]", js)) == {"page"}
    assert re.search(r'var qid = \w+\.getAttribute\("data-qid"\)', js)
    assert set(re.findall(r'\bpage = (.+);', js)) == {'panel.getAttribute("data-page")'}
