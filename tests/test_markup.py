"""mkdocs_esm/markup.py: the one HTML parser that features reading a built page share."""
from __future__ import annotations

import pytest

from mkdocs_esm import markup

PAGE = ('<!doctype html><html><head><link rel="stylesheet" href="a.css">\n<link rel=stylesheet href=\'b.css\'>'
        '<style>p>a{}</style></head><body><svg viewBox="0 0 1 1" data-note="class=x"><clipPath id=a class="x y"/>'
        '</svg><script>if (a<b && c>d) x("</p>")</script><!-- <p>not a tag</p> --><p title="a&amp;b" hidden>'
        'x &amp; y &#x3b1;</p><![CDATA[z]]></body></html>')


def test_the_tokens_cover_the_text_in_order_with_nothing_left_out():
    tokens = markup.parse(PAGE)
    assert "".join(PAGE[t.start:t.end] for t in tokens) == PAGE
    assert all(a.end == b.start for a, b in zip(tokens, tokens[1:]))


def test_names_as_written_values_unescaped_and_raw_text_never_markup():
    tokens = markup.parse(PAGE)
    starts = {t.name: t for t in tokens if t.kind == "start"}
    assert starts["svg"].attrs == (("viewBox", "0 0 1 1"), ("data-note", "class=x"))
    assert starts["clipPath"].attrs == (("id", "a"), ("class", "x y")) and starts["clipPath"].closes_itself
    assert starts["p"].attr("TITLE") == "a&b" and starts["p"].attr("hidden", "absent") is None
    raw = [(t.name, t.text) for t in tokens if t.kind == "raw"]
    assert raw == [("style", "p>a{}"), ("script", 'if (a<b && c>d) x("</p>")')]
    assert [t.text for t in tokens if t.kind == "comment"] == [" <p>not a tag</p> "]
    assert "".join(t.text for t in tokens if t.kind == "text") == "\nx &amp; y &#x3b1;"
    assert [t.name for t in tokens if t.kind == "start"].count("p") == 1


@pytest.mark.parametrize("head, expected", [
    ('<meta a><link rel="stylesheet" href="a.css">\n  <link rel="stylesheet" href="b.css">\n<script></script>',
     ["a.css", "b.css"]),
    ('<link rel="icon" href="i.png">', None),
])
def test_the_run_of_stylesheet_links_is_read_from_the_head(head, expected):
    from mkdocs_esm.stylesheets import _stylesheet_links
    found = _stylesheet_links(head)
    if expected is None:
        assert found is None
        return
    start, end, hrefs = found
    assert hrefs == expected and head[start:end].startswith("<link") and head[end:] == "<script></script>"
