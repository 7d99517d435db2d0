"""A built page read once, by one HTML parser: the standard library's ``html.parser``.

`parse(text)` returns the page's tokens in order, each with where it stands in the text:
start tags (their name and attribute names as written, SVG's ``clipPath`` and ``viewBox``
included, and their values unescaped), end tags, text, the text of a ``<script>`` or ``<style>``
(raw: never markup) and comments. Features that read built pages (PurgeCSS's inputs, the fonts'
characters) take them from here, each page parsed once for all of them (`Site`).
"""

from __future__ import annotations

import bisect
import functools
import hashlib
from html.parser import HTMLParser
from pathlib import Path
from typing import NamedTuple

RAW_TEXT = ("script", "style")


class Token(NamedTuple):
    kind: str                   # "start", "end", "text", "raw", "comment", "other"
    name: str                   # a tag's name as written; for "raw", "script" or "style"; else ""
    attrs: tuple                # ((name as written, value or None), ...) of a start tag
    start: int                  # offsets of the token in the page's text
    end: int
    text: str                   # the text of "text", "raw" and "comment" tokens (as written)

    def attr(self, name: str, default=None):
        """The value of the attribute ``name`` (case-insensitive), or ``default``."""
        name = name.lower()
        return next((v for k, v in self.attrs if k.lower() == name), default)

    @property
    def closes_itself(self) -> bool:
        """A start tag written ``<x ... />``."""
        return self.kind == "start" and self.text == "/"


class _Reader(HTMLParser):
    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=False)
        self.source = text
        self.lines = [0]
        at = text.find("\n")
        while at != -1:
            self.lines.append(at + 1)
            at = text.find("\n", at + 1)
        self.tokens: list[Token] = []
        self.raw_in: str | None = None

    def _at(self) -> int:
        line, col = self.getpos()
        return self.lines[line - 1] + col

    @staticmethod
    def _as_written(raw: str, lowered: str, after: int) -> tuple[str, int]:
        """``lowered`` (as html.parser gives a name) as ``raw`` writes it, from ``after`` on."""
        at = raw.lower().find(lowered, after)
        return (raw[at:at + len(lowered)], at + len(lowered)) if at != -1 else (lowered, after)

    @staticmethod
    def _past_value(raw: str, at: int) -> int:
        """Where an attribute's ``="value"`` that starts at ``at`` ends (``at`` if it has none)."""
        n = len(raw)
        k = at
        while k < n and raw[k].isspace():
            k += 1
        if k >= n or raw[k] != "=":
            return at
        k += 1
        while k < n and raw[k].isspace():
            k += 1
        if k < n and raw[k] in "\"'":
            close = raw.find(raw[k], k + 1)
            return n if close == -1 else close + 1
        while k < n and not raw[k].isspace() and raw[k] != ">":
            k += 1
        return k

    def handle_starttag(self, tag, attrs):
        self._start(tag, attrs, closed=False)

    def handle_startendtag(self, tag, attrs):
        self._start(tag, attrs, closed=True)

    def _start(self, tag, attrs, closed):
        raw = self.get_starttag_text()
        start = self._at()
        name, after = self._as_written(raw, tag, 1)
        written = []
        for key, value in attrs:
            key_as_written, after = self._as_written(raw, key, after)
            written.append((key_as_written, value))
            after = self._past_value(raw, after)
        self.tokens.append(Token("start", name, tuple(written), start, start + len(raw), "/" if closed else ""))
        if tag in RAW_TEXT and not closed:
            self.raw_in = tag           # html.parser reads what follows as text, to </tag>

    def handle_endtag(self, tag):
        start = self._at()
        end = self.source.index(">", start) + 1
        name, _ = self._as_written(self.source[start:end], tag, 2)
        self.tokens.append(Token("end", name, (), start, end, ""))
        self.raw_in = None

    def handle_data(self, data):
        start = self._at()
        self.tokens.append(Token("raw", self.raw_in, (), start, start + len(data), data) if self.raw_in else
                           Token("text", "", (), start, start + len(data), data))

    def handle_entityref(self, name):
        self._text(f"&{name};")

    def handle_charref(self, name):
        self._text(f"&#{name};")

    def _text(self, written):
        start = self._at()
        self.tokens.append(Token("text", "", (), start, start + len(written), written))

    def handle_comment(self, data):
        start = self._at()
        end = self.source.index("-->", start) + 3 if self.source.startswith("<!--", start) else start + len(data) + 7
        self.tokens.append(Token("comment", "", (), start, end, data))

    def handle_decl(self, decl):
        self._other(decl)

    def handle_pi(self, data):
        self._other(data)

    def unknown_decl(self, data):
        self._other(data)

    def _other(self, data):             # <!DOCTYPE ...>, <?...>, <![CDATA[...]]>: neither markup nor text
        start = self._at()
        self.tokens.append(Token("other", "", (), start, self.source.index(">", start) + 1, data))


@functools.lru_cache(maxsize=256)
def _parse(digest: str, text: str) -> tuple[Token, ...]:
    reader = _Reader(text)
    reader.feed(text)
    reader.close()
    return tuple(reader.tokens)


def parse(text: str) -> tuple[Token, ...]:
    """The tokens of ``text``, parsed once however many features ask (for the same text)."""
    return _parse(hashlib.sha256(text.encode()).hexdigest(), text)


class Site:
    """The built pages of a site, read and parsed once for every feature that reads them."""

    def __init__(self, site_dir: Path) -> None:
        self.dir = Path(site_dir)
        self.texts = {p: p.read_text(encoding="utf-8") for p in sorted(self.dir.rglob("*.html"))}

    def tokens(self, path: Path) -> tuple[Token, ...]:
        return parse(self.texts[path])
