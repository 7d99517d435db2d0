"""The built site reads as a textbook, not a verification log: checks folded under the demos,
prose that quotes the numbers carrying the argument, one home per idea (tests/reading.py counts)."""

from __future__ import annotations

import re

import pytest

from reading import check_lines, decimal_sentences, pages, prose_sentences

@pytest.mark.site
def test_checks_are_folded_under_the_demos(site):
    total = shown = 0
    for _, html in pages(site.dir):
        checks, unfolded = check_lines(html)
        total, shown = total + checks, shown + unfolded
    assert total >= 300, f"only {total} check lines on the site"
    assert shown <= 20, f"{shown} check lines stand unfolded in the reading flow"


@pytest.mark.site
def test_few_sentences_recite_decimals(site):
    found = {rel: s for rel, html in pages(site.dir) if (s := decimal_sentences(html))}
    n = sum(len(s) for s in found.values())
    assert n <= 10, f"{n} prose sentences recite three or more decimals: {found}"


#: GPT-2 small's parameter count, as the site writes it (its home: the primer's counting chapter)
_GPT2_TOTAL = re.compile(r"124,439,808|124\.4 ?(?:million|M)\b")
#: the river / savings "bank" example (its home: section 1.4)
_BANK = re.compile(r"\bbank\b.*\b(?:river|savings|money)\b|\b(?:river|savings|money)\b.*\bbank\b", re.I)


@pytest.mark.site
@pytest.mark.parametrize(("pattern", "home", "limit"), [(_GPT2_TOTAL, "primer/counting-gpt2", 2),
                                                        (_BANK, "part1/intuition", 2)])
def test_an_idea_is_stated_on_its_home_and_at_most_one_other_page(site, pattern, home, limit):
    """Prose, skill checks and demo output all count: the practice queue, which gathers the
    skill checks, does not."""
    stating = []
    for rel, html in pages(site.dir):
        if rel == "practice":
            continue
        text = re.sub(r"<[^>]+>", " ", html[html.find("<article"):html.rfind("</article>")])
        if any(pattern.search(s) for s in re.split(r"(?<=[.!?])\s+", " ".join(text.split()))):
            stating.append(rel)
    assert home in stating, f"its home {home} does not state it"
    assert len(stating) <= limit, f"stated on {stating}"


def test_prose_parser_reads_sentences_and_skips_math_code_and_checks():
    html = ('<article><p>One 1.5 and 2.25 and 3.125 here. Two <code>0.1 0.2 0.3</code> none.</p>'
            '<p><math><mn>1.1</mn><mn>2.2</mn><mn>3.3</mn></math> x <a href="#s">(6.1)</a></p>'
            '<details class="success esm-checks"><summary>2 checks</summary><div class="esm-checks-body">'
            '<div class="esm-check">PASS</div><div class="esm-check">PASS</div></div></details>'
            '<div class="esm-check">PASS</div></article>')
    assert decimal_sentences(html) == ["One 1.5 and 2.25 and 3.125 here."]
    assert prose_sentences(html)[-1] == "x"
    assert check_lines(html) == (3, 1)
