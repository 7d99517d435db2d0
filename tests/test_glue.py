"""Computed prose (mkdocs_esm/glue.py, esm.glue): values published by a page's blocks are quoted
by name in its text, as text or as math, and every misuse fails the build naming page, line
and name."""

from __future__ import annotations

import json
import re

import pytest

import esm
from conftest import build_fails, edit
from sitebuild import build, load_hook

glue_hook = load_hook("glue")

PAGE = "part1/lesson.md"            # of the fixture book (tests/fixture/)


def published(name, value, fmt=None) -> dict:
    """What a block publishes, read back from its marker (the route the build takes)."""
    from printed import for_page
    out = for_page(esm.glue(name, value, fmt))
    hexed = glue_hook.MARKER.search(out)[1]
    return json.loads(bytes.fromhex(hexed).decode())


# --- formats, against hand-written expectations -----------------------------------------------

@pytest.mark.parametrize("value, fmt, text, math", [
    (0.78123, ".3f", "0.781", "0.781"),
    (50257, ",", "50,257", "50{,}257"),
    (124439808, ",", "124,439,808", "124{,}439{,}808"),
    (0.3161, ".1%", "31.6%", r"31.6\%"),
    (2.1e-7, ".1e", "2.1×10⁻⁷", r"2.1\times10^{-7}"),
    (3.0e8, ".2e", "3.00×10⁸", r"3.00\times10^{8}"),
    (-0.0041, "+.3f", "-0.004", "-0.004"),
    (0.0041, "+.3f", "+0.004", "+0.004"),
    (0.79123, ".2g", "0.79", "0.79"),
    (0.000012345, ".2g", "1.2×10⁻⁵", r"1.2\times10^{-5}"),
    (10, "", "10", "10"),
    ([3, 7, 7], "", "(3, 7, 7)", "(3, 7, 7)"),
    ([0.5, 0.25], ".2f", "(0.50, 0.25)", "(0.50, 0.25)"),
    ("queen", "", "queen", r"\text{queen}"),
])
def test_render_text_and_math(value, fmt, text, math):
    entry = published("x", value, fmt or None)
    assert glue_hook.render(entry["value"], entry["fmt"]) == text
    assert glue_hook.render(entry["value"], entry["fmt"], math=True) == math


def test_numpy_values_publish_as_plain_numbers():
    import numpy as np
    assert published("a", np.float64(0.5), ".1f")["value"] == 0.5
    assert published("b", np.int64(7))["value"] == 7
    assert published("c", np.array([[1, 2], [3, 4]]))["value"] == [1, 2, 3, 4]


@pytest.mark.parametrize("name, value, fmt, error", [
    ("x", 0.5, None, ValueError),         # a float needs a format
    ("x", float("nan"), ".2f", ValueError),
    ("x", 3, ".2q", ValueError),          # a format that does not apply
    ("x", "word", ".2f", ValueError),
    ("x", True, None, TypeError),
    ("x", {"a": 1}, None, TypeError),
    ("1x", 1, None, ValueError),          # a bad name
    ("a-b", 1, None, ValueError),
])
def test_bad_publications_raise_in_the_block(name, value, fmt, error):
    with pytest.raises(error):
        esm.glue(name, value, fmt)


def test_a_value_prints_a_readable_line():
    assert esm.glue("cos", 0.78123, ".3f") == "\nvalue cos = 0.781  [.3f of 0.78123]\n"


# --- substitution: context, code spans, multi-line values ------------------------------------

VALUES = {"n": {"value": 50257, "fmt": ","}, "c": {"value": 0.78123, "fmt": ".3f"},
          "tbl": {"value": "| a | b |\n|---|---|\n| 1 | 2 |", "fmt": ""}}


@pytest.mark.parametrize("src, out", [
    ("V has {{n}} rows", "V has 50,257 rows"),
    ("$\\lvert V\\rvert={{n}}$ rows", "$\\lvert V\\rvert=50{,}257$ rows"),
    ("$$\nn={{n}}\n$$\nthen {{n}}", "$$\nn=50{,}257\n$$\nthen 50,257"),
    ("a $x$ then {{n}} then $y={{ n }}$", "a $x$ then 50,257 then $y=50{,}257$"),
    ("`{{n}}` stays, {{c}} goes", "`{{n}}` stays, 0.781 goes"),
    ("``a ` {{n}}`` then {{c:.1f}}", "``a ` {{n}}`` then 0.8"),
    ("costs \\$ {{n}}", "costs \\$ 50,257"),
    ("cosine {{c:.0%}}", "cosine 78%"),
    ("# Heading with {{c}}", "# Heading with 0.781"),
    ("a\n    {{tbl}}\nb", "a\n    | a | b |\n    |---|---|\n    | 1 | 2 |\nb"),
    ("$a$\n\n{{n}}", "$a$\n\n50,257"),
])
def test_substitute(src, out):
    text, used = glue_hook.substitute(src, VALUES)
    assert text == out


def test_unmatched_dollar_does_not_leak_past_a_paragraph():
    text, _ = glue_hook.substitute("an odd $ here\n\nthen {{n}}", VALUES)
    assert text.endswith("then 50,257")


@pytest.mark.parametrize("src, needle", [
    ("x {{nope}} y", "unknown computed value '{{nope}}'"),
    ("x {{c:.2q}} y", "cannot format 'c'"),
    ("x {{tbl}} y", "quote it alone on its line"),
])
def test_misuse_raises_naming_the_name(src, needle):
    with pytest.raises(glue_hook.GlueError, match=re.escape(needle)):
        glue_hook.substitute(src, VALUES)


def test_a_value_a_skill_check_quotes_is_not_reported_as_quoted_nowhere(tmp_path):
    (tmp_path / "skill-checks").mkdir()
    (tmp_path / "skill-checks" / "p.yml").write_text(
        "q: 'is {{part1/intuition.md#cos_a:.2f}} and {{ part1/intuition.md#n_b }}, not {{part2/x.md#c}}'\n")
    glue = glue_hook.Glue(block_failed=lambda: False)
    glue.on_config(type("Config", (), {"docs_dir": str(tmp_path), "markdown_extensions": []})(), state=None)
    assert glue._quoted_by_skill_checks("part1/intuition.md") == {"cos_a", "n_b"}
    assert glue._quoted_by_skill_checks("part2/x.md") == {"c"}
    assert glue._quoted_by_skill_checks("part1/intuition") == set()


def test_collect_reads_and_removes_markers():
    from printed import for_page
    blocks = [f"<p>{for_page(esm.glue('a', 1))}</p>", "<div>x</div>", f"<p>out\n{for_page(esm.glue('b', 0.5, '.1f'))}</p>"]
    values, problems = glue_hook.collect(blocks)
    assert sorted(values) == ["a", "b"] and not problems
    assert blocks[0] == "" and "@@glue" not in blocks[2] and "out" in blocks[2]
    assert blocks[1] == "<div>x</div>"


def test_collect_reports_a_name_published_twice():
    from printed import for_page
    _, problems = glue_hook.collect([for_page(esm.glue("a", 1)), for_page(esm.glue("a", 2))])
    assert problems == ["value 'a' is published twice on this page"]


# --- the build: a value in a heading, the search index and a formula; faults ----------------

DEMO = "part1/lesson/lookup.py"
PROBE = ("\n## Probe {{probe_n}} rows\n\nThe table has {{probe_n}} rows; in math "
         "$n={{probe_n}}$, and $\\epsilon={{probe_eps}}$.\n")
PUBLISH = '\nprint(glue("probe_n", 50257, ","))\nprint(glue("probe_eps", 2.1e-07, ".1e"))\n'


def _probe(copy):
    path = copy / "snippets" / DEMO
    path.write_text(path.read_text().replace("from esm import", "from esm import glue,", 1) + PUBLISH)
    page = copy / "docs" / PAGE
    page.write_text(page.read_text() + PROBE)


@pytest.mark.build
def test_values_reach_headings_search_and_math(fixture_project, tmp_path):
    copy = fixture_project
    _probe(copy)
    out = tmp_path / "site"
    result = build(out, root=copy, pages=[PAGE], fork=True)
    assert result.returncode == 0, result.stderr[-3000:]
    html = (out / "part1" / "lesson" / "index.html").read_text()
    assert "@@glue" not in html and "{{probe" not in html
    assert re.search(r'<h2 id="probe-50257-rows">Probe 50,257 rows', html)
    assert "The table has 50,257 rows" in html
    # the values reached the formulas: the text of the MathML the math renderer made of them
    formulas = [re.sub(r"<[^>]+>", "", m) for m in re.findall(r"<math\b.*?</math>", html, re.S)]
    assert "n=50,257" in formulas, [f for f in formulas if "257" in f]
    assert "\u03f5=2.1\u00d710\u22127" in formulas, [f for f in formulas if "2.1" in f]
    index = (out / "search" / "search_index.json").read_text()
    assert "Probe 50,257 rows" in index and "The table has 50,257 rows" in index


@pytest.mark.build
def test_an_unknown_name_fails_the_build_naming_page_and_line(fixture_project, tmp_path):
    copy = fixture_project
    _probe(copy)
    page = copy / "docs" / PAGE
    lines = page.read_text().split("\n")
    line = len(lines) + 1
    page.write_text("\n".join(lines) + "\nA typo: {{probe_m}}.\n")
    build_fails(copy, tmp_path / "site", PAGE, f"{PAGE}:{line}: unknown computed value '{{{{probe_m}}}}'")


@pytest.mark.build
def test_a_name_published_twice_fails_the_build(fixture_project, tmp_path):
    copy = fixture_project
    _probe(copy)
    path = copy / "snippets" / DEMO
    path.write_text(path.read_text() + '\nprint(glue("probe_n", 3))\n')
    build_fails(copy, tmp_path / "site", PAGE, PAGE, "value 'probe_n' is published twice")


@pytest.mark.build
def test_an_unformattable_value_fails_the_build_naming_the_block(fixture_project, tmp_path):
    copy = fixture_project
    _probe(copy)
    edit(copy / "snippets" / DEMO, 'glue("probe_eps", 2.1e-07, ".1e")', 'glue("probe_eps", 2.1e-07)')
    build_fails(copy, tmp_path / "site", PAGE, PAGE, DEMO, "probe_eps is a float: give it a format")
