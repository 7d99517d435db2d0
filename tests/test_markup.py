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


def test_a_page_is_read_once_and_its_reading_kept_between_builds(tmp_path, monkeypatch):
    """fonts and stylesheets take one reading of each page; a later build (another process:
    the memo emptied) takes it from the execution cache, without parsing."""
    from mkdocs_esm.execcache import ExecCache

    reads = []
    real = markup._read
    monkeypatch.setattr(markup, "_read", lambda tokens: (reads.append(1), real(tokens))[1])
    monkeypatch.setattr(markup, "_READINGS", {})
    page = '<p><math><msqrt><mn>17</mn></msqrt><annotation>\\sqrt{17}</annotation></math>' \
           '<script src="a.js"></script><script>var x</script></p>'
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text(page, encoding="utf-8")
    markup.read_site(tmp_path / "site", ExecCache(tmp_path / "cache"))
    first = markup.facts(page)
    assert reads == [1]
    assert first["math_chars"] == sorted(map(ord, "√17")) and first["script_srcs"] == ["a.js"]
    assert first["inline_scripts"] == ["var x"] and {"math", "msqrt", "script", "p"} <= set(first["tags"])
    monkeypatch.setattr(markup, "_READINGS", {})
    assert markup.facts(page, ExecCache(tmp_path / "cache")) == first and reads == [1]
