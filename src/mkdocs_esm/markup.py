"""A built page read once, by one HTML parser: the standard library's ``html.parser``.

`parse(text)` returns the page's tokens in order, each with where it stands in the text:
start tags (their name and attribute names as written, SVG's ``clipPath`` and ``viewBox``
included, and their values unescaped), end tags, text, the text of a ``<script>`` or ``<style>``
(raw: never markup) and comments. Features that read built pages (PurgeCSS's inputs, the fonts'
characters) take their readings from `facts`: each page parsed once for all of them, and its
reading kept between builds under the page's hash.
"""

from __future__ import annotations

import functools
import hashlib
import html
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
def parse(text: str) -> tuple[Token, ...]:
    """The tokens of ``text``, parsed once however many features ask (for the same text)."""
    reader = _Reader(text)
    reader.feed(text)
    reader.close()
    return tuple(reader.tokens)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# -- what the build reads of its built pages -----------------------------------------------------

#: The formulas' elements (MathML) and the annotation in them that holds their TeX (not drawn).
_MATH, _ANNOTATION = "math", "annotation"


def _read(tokens: tuple[Token, ...]) -> dict:
    """What the build's features read of one built page, from one parse: its tags, attribute
    names and values, classes and ids (PurgeCSS's inputs), the text of its own scripts and the
    addresses of those it loads (stylesheets.py), and the characters its formulas draw
    (fonts.py: the text of each ``<math>`` outside its ``<annotation>``, entities decoded, and
    the radical sign where the browser draws one: no formula's text holds it)."""
    tags, names, values, classes, ids = set(), set(), set(), set(), set()
    inline, loads, math = [], [], []
    in_math = in_annotation = 0
    for t in tokens:
        if t.kind == "start":
            tags.update((t.name, t.name.lower()))           # SVG's names keep their case: clipPath
            for key, value in t.attrs:
                names.update((key, key.lower()))
                if value is None:
                    continue
                values.add(value)
                if key.lower() == "class":
                    classes.update(value.split())
                elif key.lower() == "id":
                    ids.add(value)
            name = t.name.lower()
            if name == "script" and t.attr("src") is not None:
                loads.append(t.attr("src"))
            if not t.closes_itself:
                in_math += name == _MATH
                in_annotation += name == _ANNOTATION and in_math > 0
            if in_math and name in ("msqrt", "mroot"):
                math.append("\u221a")
        elif t.kind == "end":
            name = t.name.lower()
            if name == _ANNOTATION and in_annotation:
                in_annotation -= 1
            elif name == _MATH and in_math:
                in_math -= 1
        elif t.kind == "raw" and t.name == "script":
            inline.append(t.text)
        elif t.kind == "text" and in_math and not in_annotation:
            math.append(html.unescape(t.text))
    chars = set(map(ord, "".join(math))) - {10, 13, 9}
    return {"tags": sorted(tags), "names": sorted(names), "values": sorted(values), "classes": sorted(classes),
            "ids": sorted(ids), "inline_scripts": inline, "script_srcs": loads, "math_chars": sorted(chars)}


_FACTS: dict[str, dict] = {}        # this process's readings, by the page's hash
_SOURCE = _digest(Path(__file__).read_text(encoding="utf-8"))


def facts(text: str, cache=None) -> dict:
    """What the build reads of the built page ``text`` (`_read`): one parse per page, kept in
    this process, and in ``cache`` (an ExecCache) between builds under the page's hash."""
    digest = _digest(text)
    if digest in _FACTS:
        return _FACTS[digest]
    parts = [digest, _SOURCE]
    found = cache.get("page-reading", parts) if cache is not None else None
    if found is None:
        found = _read(parse(text))
        if cache is not None:
            cache.put("page-reading", parts, found, {"files": {}, "dists": {}})
    if len(_FACTS) > 1000:
        _FACTS.clear()
    _FACTS[digest] = found
    return found


def read_site(site_dir: Path, cache) -> None:
    """Read every built page of ``site_dir`` once (from ``cache`` where it holds the page), so that
    the features that read them after (fonts, stylesheets) find their readings here."""
    for path in sorted(Path(site_dir).rglob("*.html")):
        facts(path.read_text(encoding="utf-8"), cache)
