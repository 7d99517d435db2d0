"""The part-3 pages as built: solutions folded with their checks inside, an offline diagram
that follows the colour scheme, the references linked, and the numbers in the prose equal to
the numbers the demos print."""

from __future__ import annotations

import re

import pytest

from conftest import DOCS, SNIPPETS

PAGES = ["part3/attention-bridge.md", "part3/scale-and-diagnostics.md", "part3/common-mistakes.md",
         "part3/exercises.md"]


@pytest.fixture(scope="module")
def built(site):
    """The session's one build of the whole site (tests/conftest.py)."""
    return site.html


def test_each_mistake_has_a_wrong_and_a_right_check(demo_output):
    text = (DOCS / "part3" / "common-mistakes.md").read_text(encoding="utf-8")
    demos = [d for d in re.findall(r'--8<-- "(part3/common-mistakes/[^"]+)"', text)
             if "/try_" not in d]            # the "Try this" blocks at the end change a demo, they are no mistake
    assert len(re.findall(r"^## 9\.\d+ ", text, re.M)) == 10
    assert len(demos) >= 10          # one per mistake; 9.8 and 9.9 have a second one on real weights
    for demo in demos:
        out = demo_output(SNIPPETS / demo)
        passes = [line for line in out.splitlines() if line.startswith("PASS")]
        assert any("wrong" in p for p in passes) and any("right" in p for p in passes), demo


def test_attention_heat_maps_are_offline_and_follow_the_scheme(built):
    """7.3's MiniLM picture: four labelled panels, ink in currentColor, no external file."""
    html = built("part3/attention-bridge.md")
    figs = re.findall(r'<figure class="esm-figure">(.*?)</figure>', html, re.S)
    fig = next(f for f in figs if "layer 6, head 11" in f)
    svg = fig[fig.index("<svg"):fig.index("</svg>")]
    for panel in ("layer 1, head 2", "layer 2, head 8", "layer 3, head 7", "layer 6, head 11"):
        assert panel in svg, panel
    assert "currentColor" in svg and "#000000" not in svg and "#010101" not in svg
    assert not re.search(r"(href|src)=\"(https?:)?//", svg)


def test_references_are_linked(site):
    """The sources of the lessons are on the bibliography page, each with its link."""
    html = site.html("references.md")
    for href in ("https://arxiv.org/abs/1301.3781", "https://aclanthology.org/D14-1162/",
                 "https://arxiv.org/abs/1706.03762", "https://arxiv.org/abs/2104.09864",
                 "https://arxiv.org/abs/2108.12409"):
        assert f'href="{href}"' in html, href


def test_links_between_part3_pages_resolve(built):
    for page in PAGES:
        html = built(page)
        for target, anchor in re.findall(r'href="(\.\./[a-z-]+/|)#([^"]+)"', html):
            other = page if not target else f"part3/{target.strip('./').strip('/')}.md"
            assert f'id="{anchor}"' in built(other), (page, target, anchor)
