"""The plugin's faster renaming of heading ids (mkdocs_esm.compat.print_site) makes the same edits as
mkdocs-print-site-plugin's own ``update_anchor_ids``:
on HTML-like text built from the pieces that matter to its pattern (tags with and without ids,
ids in a tag's name, upper-case ``ID=``, lines, an id's value running past a line end, missing
``>``) and on hand-made cases."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mkdocs_print_site_plugin import urls

from sitebuild import load_hook


HOOK = load_hook("compat.print_site")
ORIGINAL = getattr(urls.update_anchor_ids, "esm_original", urls.update_anchor_ids)   # unpatched in any case


def fast(html: str, key: str) -> str:
    return HOOK.update_anchor_ids(html, key, original=ORIGINAL)

PIECES = ["<h2", "<h3", "<li", "<sup", "<span", "<div", "<h2id=\"", " ", "  ", "\n", ">", "</h2>", "</span>",
          " id=\"", " ID=\"", "id=\"", "\"", "a", "b-1", "class=\"mord\"", "x", "=", "<", "<<"]

CASES = [
    '<h2 id="intro">Intro</h2>\n<p>text</p>\n<h2 id="intro">Again</h2>',
    '<math><mrow><mi>x</mi></mrow></math><h3 id="k">K</h3>',
    '<span class="a">one</span> <li id="fn:1">note</li> <sup id="fnref:1">1</sup>',
    '<h2 id="a"\n>split tag</h2>',
    '<h2 id="value\nacross lines">x</h2>',
    '<h2id="glued">x</h2>',
    '<H2 ID="upper">x</H2>',
    '<h2 ID="mixed">x</h2>',
    '<h2 id="last">\ntext <li id="end">',
    '<li id="x">no closing angle\n<h2 id="y">y</h2>',
    '<div><h2 id="b">b</h2><li id="c">c</li></div>\n' * 3,
    "",
    "no tags at all\n",
]


@pytest.mark.parametrize("html", CASES)
def test_hand_made_cases(html):
    assert fast(html, "page") == ORIGINAL(html, "page")


@settings(max_examples=400)
@given(st.lists(st.sampled_from(PIECES), max_size=60).map("".join))
def test_random_html_like_text(html):
    assert fast(html, "p") == ORIGINAL(html, "p")


NAMES = st.sampled_from(["h1", "h2", "h3", "li", "sup", "span", "div", "a", "H2", "LI", "svg"])
ATTRIBUTES = st.tuples(st.sampled_from(["id", "ID", "Id", "data-id", "valid", "class", "href"]),
                       st.text(alphabet="ab-:1 ", max_size=6))
SPACE = st.sampled_from([" ", "  ", "\t", "\n", "\r\n"])


@st.composite
def tag(draw) -> str:
    attributes = "".join(f'{draw(SPACE)}{k}="{v}"' for k, v in draw(st.lists(ATTRIBUTES, max_size=3)))
    return f"<{draw(NAMES)}{attributes}{draw(st.sampled_from(['', ' ', '/']))}>"


#: Pages as the build writes them: tags with attributes whose values close, text, line ends: the
#: inputs the faster route takes (most of the pieces above go to the plugin's own function).
PAGES = st.lists(st.one_of(tag(), st.sampled_from(["text", "x", "\n", " ", "</h2>", "</span>", "<", ">"])),
                 max_size=40).map("".join)


@settings(max_examples=400)
@given(PAGES)
def test_random_pages_with_ids(html):
    assert fast(html, "p") == ORIGINAL(html, "p")


def test_the_random_pages_take_the_faster_route_and_rename():
    """The generator above reaches what it is for: pages the faster route handles, with edits."""
    from hypothesis import Phase, find

    linear = lambda h: not (HOOK._ID_IN_NAME.search(h) or HOOK._OPEN_ID.search(h))   # noqa: E731
    find(PAGES, lambda h: linear(h) and fast(h, "p") != h and h.count("\n") >= 2,
         settings=settings(phases=[Phase.generate], max_examples=400, database=None))   # found, not shrunk
