"""The built site reads as a textbook, not a verification log: checks folded under the demos,
prose that quotes the numbers carrying the argument, one home per idea, and a reading path on
which a term is taught, or linked to where it is taught, where it is first used (tests/reading.py
counts)."""

from __future__ import annotations

import functools
import posixpath
import re

import pytest

from conftest import ROOT
from reading import check_lines, decimal_sentences, pages, prose_blocks, prose_sentences

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



#: Ideas taught once (issue 47, item 7, and the homes item 2 gave): a pattern that finds a
#: sentence stating the idea, its home page, the pages whose prose is searched (a prefix, "" for
#: all), and how many pages may state it. Every section (a heading and the prose under it) of
#: another page that states it also links to the home page: elsewhere an idea gets a
#: cross-reference and at most its result. Read in the prose of the articles (paragraphs, list
#: items, captions; not code, demo output, folded solutions or skill checks), on every page but
#: the practice queue (it gathers the skill checks) and the theory notebook, whose demos redo the
#: lessons' claims one by one by design.
_TAUGHT_ONCE = {
    "GPT-2 small's token table, 50,257 x 768 = 38,597,376 parameters (1.3)":
        (r"(?<![\d,.])38,597,376(?![\d,])|(?<![\d,.])38\.6 ?(?:M|million)\b", "part1/intuition", "", 3),
    "a row that no position reads gets no gradient (2.2)":
        (r"only when its token is (?:used|read)|gradient only when|gets? gradient only|gives? (?:them )?gradient 0"
         r"|gets? no gradient|receives? exactly zero|gets? exactly (?:zero|0)\b|only (?:used|looked-up) rows",
         "part1/formal-definitions", "", 6),
    "a tied table's gradient is the head's plus the lookup's (2.4)":
        (r"tied gradient|sums two gradients|input[- ]side gradient|\binput path\b|trained from both ends"
         r"|table's gradient, since it is tied", "part1/formal-definitions", "", 5),
    '"dog bites man" and "man bites dog" (6.1)':
        (r"dog bites man|man bites dog", "part2/positional-information", "", 3),
    "attention: queries, keys and values (7.1)":
        (r"\bquer(?:y|ies)\b[^.]*\bkeys?\b[^.]*\bvalues?\b", "part3/attention-bridge", "part", 1),
    "PCA and the SVD (4.4)":
        (r"principal component analysis|singular value decomposition|directions? of largest variance",
         "part2/geometry-of-meaning", "part", 2),
    "a probe, a linear classifier (4.2)":
        (r"linear classifier", "part2/geometry-of-meaning", "part", 2),
    "a layer norm, rows to mean 0 and variance 1 (1.4; home: chapter P6)":
        (r"\brows?\b[^.]{0,40}\bmean 0\b[^.]{0,20}\bvariance 1\b", "part1/intuition", "part", 1),
    "an MLP, two linear maps with a nonlinearity between (1.4; home: chapter P6)":
        (r"two linear maps with|small network", "part1/intuition", "part", 1),
}


@functools.cache     # one parse of the site for every idea
def _sections(site):
    """(page, heading id) -> (its sentences, the addresses its prose links to), every page but the
    practice queue and the theory notebook."""
    out: dict[tuple[str, str], tuple[list[str], list[str]]] = {}
    for rel, html in pages(site):
        if rel in ("practice", "notebook/theory"):
            continue
        for heading, text, hrefs in prose_blocks(html):
            sentences, links = out.setdefault((rel, heading), ([], []))
            sentences += re.split(r"(?<=[.!?])\s+", text)
            links += hrefs
    return out


def _links_to(rel: str, href: str, page: str) -> bool:
    """Whether ``href``, a link of page ``rel``, points into ``page``."""
    return posixpath.normpath(posixpath.join(f"/{rel}/", href.split("#")[0])) == f"/{page}"


@pytest.mark.site
@pytest.mark.parametrize("idea", list(_TAUGHT_ONCE))
def test_an_idea_is_taught_once_and_linked_where_it_recurs(site, idea):
    pattern, home, scope, limit = _TAUGHT_ONCE[idea]
    found = re.compile(pattern, re.I)
    stating, unlinked = set(), []
    for (rel, heading), (sentences, links) in _sections(site.dir).items():
        if not rel.startswith(scope) or not any(found.search(s) for s in sentences):
            continue
        stating.add(rel)
        if rel != home and not any(_links_to(rel, h, home) for h in links):
            unlinked.append(f"{rel}#{heading}")
    assert home in stating, f"its home {home} does not state it"
    assert not unlinked, f"stated without a link to its home {home}: {unlinked}"
    assert len(stating) <= limit, f"stated on {sorted(stating)}"


#: Terms of Parts 1-3 (issue 47, item 2) with the page and heading that teach them: where Parts
#: 1-3, read in order, first use a term, they teach it (the first use is on that page, at or after
#: that heading) or link to where it is taught. The primer's chapters are homes of their own: a
#: term taught there is linked from its first use.
_TERMS = {
    "attention": (r"\battention\b", re.I, "part3/attention-bridge", "71-query-key-and-value-projections"),
    "a block": (r"\bblocks?\b", 0, "part1/intuition", "14-static-versus-contextual-meaning"),
    "the MLP": (r"\bMLPs?\b", 0, "primer/transformer-block", None),
    "a layer norm": (r"\blayer[- ]norm", re.I, "primer/transformer-block", None),
    "a residual connection": (r"\bresidual connection", re.I, "primer/transformer-block", None),
    "PCA": (r"\bPCA\b|\bprincipal (?:component|direction)", re.I, "part2/geometry-of-meaning", "44-centering-and-whitening"),
    "the SVD": (r"\bSVD\b|\bsingular (?:value|vector)", re.I, "part2/geometry-of-meaning", "44-centering-and-whitening"),
    "a probe": (r"\bprobes?\b", re.I, "part2/geometry-of-meaning", "42-subspaces-and-probes"),
    "the output head": (r"\boutput head\b", re.I, "part1/formal-definitions", "24-input-output-and-tied-embeddings"),
    "fine-tuning": (r"\bfine-tun", re.I, "part2/training-embeddings", "54-fine-tuning-drift"),
    "RoPE": (r"\bRoPE\b", 0, "part2/positional-information", "64-rotary-positional-embeddings"),
    "ALiBi": (r"\bALiBi\b", 0, "part2/positional-information", "65-alibi-and-relative-biases"),
    "the key-value cache": (r"\bKV cache|key-value cache|\bwith a cache\b", re.I,
                            "primer/modern-block", None),
    "perplexity": (r"\bperplexity\b", re.I, "primer/training-signal", None),
    "WordPiece": (r"\bWordPiece\b", 0, "part1/intuition", "15-pipeline-position-after-tokenization"),
}


@functools.cache
def _reading_path(site):
    """(page, heading id, text, link addresses) of every prose block of Parts 1-3, in the order of
    the navigation."""
    order = re.findall(r"^\s*- (part[123]/[\w-]+)\.md", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M)
    assert len(order) >= 13, order
    return tuple((rel, heading, text, hrefs) for rel in order
                 for heading, text, hrefs in prose_blocks((site / rel / "index.html").read_text(encoding="utf-8")))


@pytest.mark.site
@pytest.mark.parametrize("term", list(_TERMS))
def test_a_term_is_taught_or_linked_where_parts_1_to_3_first_use_it(site, term):
    pattern, flags, home, heading = _TERMS[term]
    found = re.compile(pattern, flags)
    reached = set()           # the headings of the home page read so far
    for rel, h, text, hrefs in _reading_path(site.dir):
        if rel == home:
            reached.add(h)
        if not found.search(text):
            continue
        taught = rel == home and (heading is None or heading in reached)
        linked = any(_links_to(rel, x, home) and (rel != home or x.endswith(f"#{heading}")) for x in hrefs)
        assert taught or linked, f"first used in {rel}#{h}, neither taught there nor linked to {home}: {text[:300]}"
        return
    pytest.fail(f"Parts 1-3 never use {term}")


def test_prose_blocks_keep_links_and_headings():
    html = ('<article><h2 id="a">A</h2><p>See <a href="../x/#b">section 1</a> here.</p>'
            '<div class="tabbed-set"><p>output</p></div><details><p>solution</p></details>'
            '<h2 id="c">C</h2><ul><li>one <code>x</code></li></ul></article>')
    assert prose_blocks(html) == [("a", "See section 1 here.", ["../x/#b"]), ("c", "one", [])]
    assert _links_to("part2/x", "../../part1/intuition/#13-x", "part1/intuition")
    assert _links_to("part1/x", "../intuition/", "part1/intuition")
    assert _links_to("part1/intuition", "#13-x", "part1/intuition")
    assert not _links_to("part2/x", "../../part1/intuition-more/", "part1/intuition")


def test_prose_parser_reads_sentences_and_skips_math_code_and_checks():
    html = ('<article><p>One 1.5 and 2.25 and 3.125 here. Two <code>0.1 0.2 0.3</code> none.</p>'
            '<p><math><mn>1.1</mn><mn>2.2</mn><mn>3.3</mn></math> x <a href="#s">(6.1)</a></p>'
            '<details class="success esm-checks"><summary>2 checks</summary><div class="esm-checks-body">'
            '<div class="esm-check">PASS</div><div class="esm-check">PASS</div></div></details>'
            '<div class="esm-check">PASS</div></article>')
    assert decimal_sentences(html) == ["One 1.5 and 2.25 and 3.125 here."]
    assert prose_sentences(html)[-1] == "x"
    assert check_lines(html) == (3, 1)
