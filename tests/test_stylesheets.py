"""hooks/stylesheets.py's bundle, on sheets made for the test: the site's own sheets lose their
comments (strings that hold a comment opener keep it), minified sheets are copied as they are,
relative url()s point from the bundle's place. The expected bundle is written out by hand."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

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
