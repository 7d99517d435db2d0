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


def test_each_element_closes_at_its_own_end_tag():
    text = '<div a><div><br><p>x</div><svg><path d="1"/></svg></div><i>'
    tokens, ends = markup.parse(text), markup.closers(text)
    name = {i: t.name for i, t in enumerate(tokens) if t.kind == "start"}
    spans = {name[i] + str(i): text[tokens[i].start:tokens[j].end] for i, j in ends.items()}
    assert spans["div0"] == text[:text.index("<i>")]
    assert spans["div1"] == "<div><br><p>x</div>"
    assert spans["br2"] == "<br>" and spans["path7"] == '<path d="1"/>'
    assert spans["p3"] == "<p>x</div>"              # left open: closed where its parent is
    assert spans["i10"] == "<i>"                    # never closed: to the end of the text
    assert markup.elements(text, ("div", "svg")) == [(0, text.index("<i>"))]
    assert markup.text('a <em title="b">b</em> &amp; <!-- c --><script>d</script>') == "a b &amp; "


def test_search_holds_elements_and_makes_defer_s_insertions_around_them():
    from mkdocs_esm import search
    text = ('<p>a</p><details class="success esm-checks"><summary>2</summary><div class="esm-check">c1</div>'
            '<div class="esm-check">c2</div></details><div class="esm-check">c3</div><pre>x</pre><p>b</p>')
    spans = search.holds(text)
    assert [text[s:e] for s, e in spans] == ['<div class="esm-check">c1</div>', '<div class="esm-check">c2</div>',
                                             '<div class="esm-check">c3</div>', text[8:text.index('<div class="esm-check">c3')],
                                             "<pre>x</pre>"]
    at_pre, after_pre = text.index("<pre>"), text.index("<p>b")
    inside = text.index("</summary>") + len("</summary>")
    inserts = [[inside, "N", True], [inside, "<t>", False], [text.index("</details>"), "</t>", False],
               [at_pre, "M", True], [after_pre, "!", False]]
    page, held = search.held_out(text, spans, inserts)
    assert page == ('<p>a</p><esm-x n="3"></esm-x><esm-x n="2"></esm-x><esm-x n="6"></esm-x><esm-x n="4"></esm-x>'
                    '!<p>b</p>')
    assert held[3] == ('<details class="success esm-checks"><summary>2</summary><esm-x n="5"></esm-x><t>'
                       '<esm-x n="0"></esm-x><esm-x n="1"></esm-x></t></details>')
    assert held[5:] == ["N", "M"]
    whole, _ = search._put_back(page, held)
    assert whole == search._put_back(*search.held_out(text, [], inserts))[0]      # the page as deferred, whole
    assert "N<t><div class=" in whole and whole.count("esm-x") == 0


def test_reading_time_leaves_out_code_formulas_and_what_is_added_to_the_page():
    from mkdocs_esm import reading
    base = "<h1>T</h1><p>" + "w " * 400 + "</p><pre>code code</pre><math><mi>x</mi></math>"
    added = ('<section class="esm-skillcheck"><h2>Skill check</h2><p>' + "q " * 400 + '</p></section>'
             '<div class="esm-practice"><h3>Q</h3></div>')
    assert reading.stats(base + added) == reading.stats(base)
    assert reading.stats(base)["words"] == 401
    assert reading.stats('<div class="math-display"><math>x</math>(3.1)</div>')["formulas"] == 1
    assert reading.stats("a<b>b</b>c don&rsquo;t")["words"] == 4      # a tag parts words, an entity not


def test_the_math_font_is_preloaded_for_formulas_a_reader_sees():
    from mkdocs_esm import mathml
    assert mathml.shows_math("<p><math><mi>x</mi></math></p>")
    assert not mathml.shows_math('<div class="card" hidden><p><math><mi>x</mi></math></p></div><p>x</p>')
    assert mathml.shows_math('<div hidden><math></math></div><math></math>')
    assert not mathml.shows_math("<p>no formula</p>")


def test_what_a_reader_skips_is_one_token_and_ends_where_it_ends():
    text = '<div><pre><span class="n">a</span>&lt;b</pre><svg><path d="1"/></svg><math><mi>x</mi></math><p>c</p></div>'
    tokens, ends = markup.read_tokens(text)
    assert [(t.kind, t.name) for t in tokens] == [
        ("start", "div"), ("start", "pre"), ("raw", "pre"), ("end", "pre"), ("start", "svg"), ("raw", "svg"),
        ("end", "svg"), ("start", "math"), ("raw", "math"), ("end", "math"), ("start", "p"), ("text", ""),
        ("end", "p"), ("end", "div")]
    assert ends[0] == len(tokens) - 1 and ends[1] == 3
    whole = markup.parse(text)
    assert "".join(text[t.start:t.end] for t in tokens) == text and len(whole) > len(tokens)


def _regexes(tree):
    """The pattern literals passed to the re module's functions in a module's syntax tree."""
    import ast
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "re" and node.args):
            first = node.args[0]
            parts = [first] if isinstance(first, ast.Constant) else [v for v in ast.walk(first) if isinstance(v, ast.Constant)]
            yield node.lineno, "".join(p.value for p in parts if isinstance(p.value, str))


def test_no_regex_reads_html_tags_outside_compat():
    """HTML is read by markup.py's parser. A pattern may find markup the build or a known
    producer writes whole (``<div class="arithmatex">``, ``<autoref ``), never a tag whatever its
    name or attributes (``<[^>]+>``, ``</?\\w``, ``<(pre|svg)\\b``): those are a tokenizer's."""
    import ast
    import re
    from pathlib import Path

    tokenizer = re.compile(r"<\(?(?:\?P<\w+>)?(?:/\?|\[\^|\\[wS]|\(|\w+\|)|<\w+(?:\\b)?\[\^>\]")
    package = Path(markup.__file__).parent
    found = []
    for path in sorted(package.rglob("*.py")):
        if "compat" in path.parts:
            continue            # a third party's own patterns, kept as it has them (compat/print_site.py)
        for line, pattern in _regexes(ast.parse(path.read_text(encoding="utf-8"))):
            if tokenizer.search(pattern):
                found.append(f"{path.relative_to(package)}:{line}: {pattern[:80]}")
    assert not found, "\n".join(found)


def test_search_holds_the_tables_a_demo_printed_and_keeps_the_prose_tables():
    from mkdocs_esm import search
    text = ('<p>a</p><div class="tabbed-set"><div class="tabbed-content"><div class="tabbed-block"><p>x</p>'
            '<table><tr><td>1</td></tr></table></div><div class="tabbed-block"><pre>c</pre></div></div></div>'
            '<table><tr><td>prose</td></tr></table>')
    assert [text[s:e] for s, e in search.holds(text)] == ["<table><tr><td>1</td></tr></table>", "<pre>c</pre>"]
