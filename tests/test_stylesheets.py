"""hooks/stylesheets.py's bundle, on sheets made for the test: the site's own sheets lose their
comments (strings that hold a comment opener keep it), minified sheets are copied as they are,
relative url()s point from the bundle's place. The expected bundle is written out by hand.
The purge of `mkdocs build`: what it reads from pages and scripts, and what PurgeCSS keeps of
a sheet made for the test (rules, custom properties, at-rules), stored and reused."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _hook():
    sys.path.insert(0, str(ROOT / "hooks"))
    try:
        return importlib.import_module("stylesheets")
    finally:
        sys.path.remove(str(ROOT / "hooks"))


def test_own_sheets_lose_comments_and_keep_strings(tmp_path):
    (tmp_path / "assets" / "stylesheets").mkdir(parents=True)
    (tmp_path / "stylesheets").mkdir()
    (tmp_path / "assets" / "stylesheets" / "main.min.css").write_text("/*! licence */a{b:c}", encoding="utf-8")
    (tmp_path / "stylesheets" / "extra.css").write_text(
        "/* Material's tabs: an apostrophe in a comment */\n"
        'p::before { content: "/* kept */"; }\n'
        "q { quotes: '\\'' '/*'; background: url(img/x.png); } /* two\nlines */\n",
        encoding="utf-8")
    got = _hook()._merged(tmp_path, ["assets/stylesheets/main.min.css", "stylesheets/extra.css"])
    assert got == (
        '@charset "UTF-8";\n'
        "/* assets/stylesheets/main.min.css */\n/*! licence */a{b:c}\n"
        "/* stylesheets/extra.css */\n"
        'p::before { content: "/* kept */"; }\n'
        "q { quotes: '\\'' '/*'; background: url(../../stylesheets/img/x.png); } \n"
    )


# -- the purge of `mkdocs build` -----------------------------------------------------------------

def test_used_reads_start_tags_not_text():
    pages = ['<div class="a  b" id="x" data-k="v &amp; w" hidden><p title="1 > 0">class="c" <em>t</em></p></div>',
             "<SPAN CLASS='d'>"]
    got = _hook().used(pages, ["x.className = 'md-e ' + f(`g--${h}`)"])
    assert got["tags"] == ["div", "em", "p", "span"]
    assert got["classes"] == ["a", "b", "d"]                   # not "c": it is text
    assert got["ids"] == ["x"]
    assert got["attributes"] == {"names": ["class", "data-k", "hidden", "id", "title"],
                                 "values": ["1 > 0", "a  b", "d", "v & w", "x"]}
    assert got["undetermined"] == ["className", "f", "g--", "h", "md-e", "x"]


def test_purge_keeps_what_is_used_safelisted_or_read():
    import execcache
    hook = _hook()
    css = (":root{--read:1px;--unread:2px;--own:3px}"
           ".a{margin:var(--read)}.b{color:red}.a .b,.c{top:0}"
           ".tabbed-control--next{left:0}[data-k=v]{x:y}[data-k=w]{x:z}"
           "@media print{.b{color:blue}}@font-face{font-family:F;src:url(f.woff2)}")
    pages = ['<p class="a c" data-k="v">']
    got = hook.purge(css, pages, [], ["--own"], execcache.ExecCache(None))
    for kept in (".a{margin:var(--read)}", ".c{top:0}", ".tabbed-control--next{left:0}", "[data-k=v]{x:y}",
                 "--read:1px", "--own:3px", "@font-face{font-family:F;src:url(f.woff2)}"):
        assert kept in got, kept
    for gone in (".b{", ".a .b", "[data-k=w]", "--unread", "@media print"):
        assert gone not in got, gone
    # a word of a script keeps what it names
    assert ".b{color:red}" in hook.purge(css, pages, ["el.classList.add('b')"], [], execcache.ExecCache(None))


def test_purge_is_stored_and_reused(tmp_path, monkeypatch):
    import execcache
    hook = _hook()
    cache = execcache.ExecCache(tmp_path / "cache")
    first = hook.purge(".a{top:0}.b{top:1px}", ['<i class="a">'], [], [], cache)
    monkeypatch.setattr(hook.subprocess, "run", lambda *a, **k: (_ for _ in ()).throw(AssertionError("ran again")))
    assert hook.purge(".a{top:0}.b{top:1px}", ['<i class="a">'], [], [], cache) == first == ".a{top:0}"
    with pytest.raises(AssertionError, match="ran again"):      # another page: another key
        hook.purge(".a{top:0}.b{top:1px}", ['<i class="b">'], [], [], cache)
