"""mkdocs_esm/stylesheets.py's bundle, on sheets made for the test: the site's own sheets lose their
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
    return importlib.import_module("mkdocs_esm.stylesheets")


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
             "<SPAN CLASS='d'><!-- <i class='e'> --><style>p > .f { top: 0 }</style><!--><i class='k'>"
             "<script>if (i<n && /'/.test(q)) el.className = 'g'</script><b class=h><clipPath viewBox='0'>"]
    got = _hook().used(pages, ["x.className = 'md-e ' + f(`g--${h}`)"])
    assert got["tags"] == ["SPAN", "b", "clipPath", "clippath", "div", "em", "i", "p", "script", "span", "style"]
    assert got["classes"] == ["a", "b", "d", "h", "k"]            # not c (text), e (a comment), f (a style)
    assert got["ids"] == ["x"]
    assert got["attributes"] == {"names": ["CLASS", "class", "data-k", "hidden", "id", "title", "viewBox", "viewbox"],
                                 "values": ["0", "1 > 0", "a  b", "d", "h", "k", "v & w", "x"]}
    # the words of the script files and of the pages' own scripts
    assert got["undetermined"] == ["className", "el", "f", "g", "g--", "h", "i", "if", "md-e", "n", "q", "test", "x"]


def test_prefixes_are_the_starts_of_names_scripts_complete():
    scripts = ['x=`tabbed-control tabbed-control--${e}`;y="md-tag--"+t;z="plain";w=`${a}`;v=`md-nav__link--${b}x`;'
               'u=`--md-${k}`;s=`${p}-x-${q}`']
    assert _hook().prefixes(scripts) == ["md-nav__link--", "md-tag--", "tabbed-control--"]   # not md- (mid-token)


def test_completed_names_are_the_sheets_names_a_prefix_starts():
    css = (".tabbed-control--next,#tabbed-control--x{a:b}.tabbed-control{c:d}[data-md-color-primary=red]{e:f}"
           "[data-other]{g:h}.w{width:.5rem}")
    assert _hook().completed(css, ["tabbed-control--", "data-md-color-"]) == {
        "names": ["tabbed-control--next", "tabbed-control--x"], "attributes": ["data-md-color-primary"]}
    assert _hook().completed(css, []) == {"names": [], "attributes": []}


def test_scripts_of_reads_what_the_pages_load(tmp_path):
    hook = _hook()
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "js").mkdir()
    for name in ("one", "two", "three", "unused"):
        (tmp_path / "js" / f"{name}.js").write_text(name, encoding="utf-8")
    pages = {tmp_path / "a" / "b" / "index.html": '<script defer src="../../js/one.js?v=1#x"></script>'
                                                  '<!-- <script src="old.js"></script> --><img data-src="gone.js">',
             tmp_path / "404.html": "<script src='/site/js/two.js'></script><script src=/site/js/three.js></script>"}
    assert hook.scripts_of(tmp_path, pages, "/site/") == ["one", "three", "two"]
    with pytest.raises(hook.PluginError, match="not a file of the site"):
        hook.scripts_of(tmp_path, {tmp_path / "404.html": '<script src="https://cdn.example/x.js"></script>'})
    with pytest.raises(hook.PluginError, match="outside /site/"):
        hook.scripts_of(tmp_path, {tmp_path / "404.html": '<script src="/js/one.js"></script>'}, "/site/")
    with pytest.raises(hook.PluginError, match="missing"):
        hook.scripts_of(tmp_path, {tmp_path / "404.html": '<script src="js/gone.js"></script>'})


def test_purge_keeps_what_is_used_completed_or_read():
    from mkdocs_esm import execcache
    hook = _hook()
    css = (":root{--read:1px;--unread:2px;--own:3px}"
           ".a{margin:var(--read)}.b{color:red}.a .b,.c{top:0}"
           ".tabbed-control--next{left:0}[data-k=v]{x:y}[data-k=w]{x:z}"
           "@media print{.b{color:blue}}@font-face{font-family:F;src:url(f.woff2)}")
    pages = ['<p class="a c" data-k="v">']
    scripts = ["label.className = `tabbed-control--${side}`"]
    got = hook.purge(css, pages, scripts, ["--own"], execcache.ExecCache(None), ROOT)
    for kept in (".a{margin:var(--read)}", ".c{top:0}", ".tabbed-control--next{left:0}", "[data-k=v]{x:y}",
                 "--read:1px", "--own:3px", "@font-face{font-family:F;src:url(f.woff2)}"):
        assert kept in got, kept
    for gone in (".b{", ".a .b", "[data-k=w]", "--unread", "@media print"):
        assert gone not in got, gone
    # a word of a script keeps what it names; a name no script completes goes
    assert ".b{color:red}" in hook.purge(css, pages, ["el.classList.add('b')"], [], execcache.ExecCache(None), ROOT)
    assert ".tabbed-control--next" not in hook.purge(css, pages, [], [], execcache.ExecCache(None), ROOT)


def test_purge_is_stored_and_reused_while_its_inputs_are_the_same(tmp_path, monkeypatch):
    from mkdocs_esm import execcache
    hook = _hook()
    cache = execcache.ExecCache(tmp_path / "cache")
    args = (".a{top:0}.b{top:1px}", ['<i class="a">'], ["x"], ["--v"])
    first = hook.purge(*args, cache, ROOT)
    monkeypatch.setattr(hook.subprocess, "run", lambda *a, **k: (_ for _ in ()).throw(AssertionError("ran again")))
    assert hook.purge(*args, cache, ROOT) == first == ".a{top:0}"
    for k, other in ((0, ".a{top:0}"), (1, ['<i class="b">']), (2, ["y"]), (3, ["--w"])):   # any input: a new key
        with pytest.raises(AssertionError, match="ran again"):
            hook.purge(*args[:k], other, *args[k + 1:], cache, ROOT)


def _site(tmp_path):
    """A built site of two pages linking an unpurged bundle, and 404.html linking the sheets."""
    hook = _hook()
    (tmp_path / "assets" / "stylesheets").mkdir(parents=True)
    (tmp_path / "stylesheets").mkdir()
    (tmp_path / "sub").mkdir()
    (tmp_path / "assets" / "stylesheets" / "main.min.css").write_text(".a{top:0}.b{top:1px}", encoding="utf-8")
    (tmp_path / "stylesheets" / "extra.css").write_text("/* ours */ .z { top: 2px; }\n", encoding="utf-8")
    sheets = ["assets/stylesheets/main.min.css", "stylesheets/extra.css"]
    whole = hook._merged(tmp_path, sheets)
    (tmp_path / "assets" / "stylesheets" / "site.00000000.css").write_text(whole, encoding="utf-8")
    (tmp_path / "index.html").write_text('<link rel="stylesheet" href="assets/stylesheets/site.00000000.css">'
                                         '<p class="a">', encoding="utf-8")
    (tmp_path / "sub" / "index.html").write_text('<link rel="stylesheet" href="../assets/stylesheets/site.00000000.css">',
                                                 encoding="utf-8")
    (tmp_path / "404.html").write_text('<link rel="stylesheet" href="/assets/stylesheets/main.min.css">', encoding="utf-8")
    from mkdocs_esm.state import BuildState

    feature = hook.Stylesheets()
    feature.on_config(BuildState(root=ROOT))            # node_modules: the project's; the cache off
    feature.bundle.update(sheets=sheets, name="assets/stylesheets/site.00000000.css")
    feature.linked[:] = [str(tmp_path / "index.html"), str(tmp_path / "sub" / "index.html")]
    config = type("Config", (), {"site_dir": str(tmp_path), "plugins": {}, "site_url": None,
                                 "config_file_path": str(tmp_path / "mkdocs.yml")})()
    return feature, config, whole


def test_build_purges_renames_and_relinks_serve_does_not(tmp_path, monkeypatch):
    monkeypatch.setenv("ESM_CACHE", "0")
    hook, config, whole = _site(tmp_path)
    monkeypatch.setattr(hook.state, "command", "serve")
    hook.on_post_build(config)
    assert sorted(p.name for p in (tmp_path / "assets" / "stylesheets").iterdir()) == ["main.min.css", "site.00000000.css"]
    monkeypatch.setattr(hook.state, "command", "build")
    hook.on_post_build(config)
    [bundle] = [p for p in (tmp_path / "assets" / "stylesheets").iterdir() if p.name.startswith("site.")]
    text = bundle.read_text(encoding="utf-8")
    assert text == '@charset "UTF-8";\n/* assets/stylesheets/main.min.css */\n.a{top:0}\n/* stylesheets/extra.css */\n .z { top: 2px; }\n\n'
    assert bundle.name == f"site.{_hook().hashlib.sha256(text.encode()).hexdigest()[:8]}.css"
    assert (tmp_path / "index.html").read_text(encoding="utf-8").startswith(f'<link rel="stylesheet" href="assets/stylesheets/{bundle.name}">')
    assert f'href="../assets/stylesheets/{bundle.name}"' in (tmp_path / "sub" / "index.html").read_text(encoding="utf-8")
    assert "main.min.css" in (tmp_path / "404.html").read_text(encoding="utf-8")


def test_build_fails_when_a_linked_page_lost_its_link(tmp_path, monkeypatch):
    monkeypatch.setenv("ESM_CACHE", "0")
    hook, config, _ = _site(tmp_path)
    (tmp_path / "sub" / "index.html").write_text("<p>", encoding="utf-8")
    with pytest.raises(_hook().PluginError, match="does not link"):
        hook.on_post_build(config)


def test_build_under_a_site_url_reads_404s_scripts_under_its_path(tmp_path, monkeypatch):
    """The Pages build sets site_url: 404.html names its scripts from the site's path."""
    monkeypatch.setenv("ESM_CACHE", "0")
    hook, config, _ = _site(tmp_path)
    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "app.js").write_text("el.classList.add('b')", encoding="utf-8")
    (tmp_path / "404.html").write_text('<script src="/repo/js/app.js"></script>', encoding="utf-8")
    config.site_url = "https://owner.github.io/repo/"
    monkeypatch.setattr(hook.state, "command", "build")
    hook.on_post_build(config)
    [bundle] = [p for p in (tmp_path / "assets" / "stylesheets").iterdir() if p.name.startswith("site.")]
    assert ".b{top:1px}" in bundle.read_text(encoding="utf-8")          # the script's word kept .b
