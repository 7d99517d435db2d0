"""A page's content read once, whole, at the end of ``on_page_content``: by the four features
that read all of it.

- reading.py: the page's reading time and headings (`reading.stats`);
- search.py: the elements the search index leaves out (`search.holds`);
- defer.py: what ships inert until a reader opens it (`defer.insertions`);
- mathml.py: whether the page shows a formula, to preload the math font (`mathml.shows_math`).

The content is parsed once (markup.py) for the four, and their readings are kept in the
execution cache under the content's hash, so a warm build, whose pages are unchanged, parses
nothing. search.py makes defer's insertions while it holds its elements out of the index
(`search.held_out`), so the page shipped is the page indexed, deferred once it is put back
in ``on_post_page``.
"""

from __future__ import annotations

from pathlib import Path

from . import defer, markup, mathml, reading, search

_SALT = "".join(Path(m.__file__).read_text(encoding="utf-8") for m in (defer, mathml, reading, search))


def _read(text: str) -> dict:
    return {"stats": reading.stats(text), "holds": search.holds(text), "inserts": defer.insertions(text),
            "shows_math": mathml.shows_math(text)}


def read(html: str, cache=None) -> dict:
    """The readings of the page's content ``html``: ``stats``, ``holds``, ``inserts`` and
    ``shows_math``."""
    return markup.read(html, "content-reading", _read, salt=markup.digest(_SALT), cache=cache)
