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
    def __init__(self, text: str, raw: tuple[str, ...] = RAW_TEXT) -> None:
        super().__init__(convert_charrefs=False)
        # html.parser reads the content of these as text, up to their end tag (its own
        # script and style, and what a reader asks to skip: `parse`'s ``opaque``)
        self.CDATA_CONTENT_ELEMENTS = self.raw = raw
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
    def _as_written(raw: str, lowered: str, after: int, low: str | None = None) -> tuple[str, int]:
        """``lowered`` (as html.parser gives a name) as ``raw`` writes it, from ``after`` on
        (``low``: ``raw.lower()``, when the caller has it)."""
        if raw.startswith(lowered, after):                  # the usual case: written in lower case
            return lowered, after + len(lowered)
        at = (raw.lower() if low is None else low).find(lowered, after)
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
        low = raw.lower()
        name, after = self._as_written(raw, tag, 1, low)
        written = []
        for key, value in attrs:
            while after < len(raw) and raw[after].isspace():
                after += 1
            key_as_written, after = self._as_written(raw, key, after, low)
            written.append((key_as_written, value))
            after = self._past_value(raw, after)
        self.tokens.append(Token("start", name, tuple(written), start, start + len(raw), "/" if closed else ""))
        if tag in self.raw and not closed:
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
def parse(text: str, opaque: tuple[str, ...] = ()) -> tuple[Token, ...]:
    """The tokens of ``text``, parsed once however many features ask (for the same text).
    The content of an element named in ``opaque`` (code, a figure's drawing, a formula: what
    the reader skips whole) is one "raw" token, as a script's is, and costs no more to read."""
    reader = _Reader(text, RAW_TEXT + tuple(opaque))
    reader.feed(text)
    reader.close()
    return tuple(reader.tokens)


#: Elements that never hold content (HTML's void elements): no end tag closes them.
VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())


@functools.lru_cache(maxsize=256)
def closers(text: str, opaque: tuple[str, ...] = ()) -> dict[int, int]:
    """For the tokens of ``text`` (`parse` with ``opaque``), the index of the token that closes each start tag's
    element: its end tag, or the start tag itself for a void or self-closed element. An element
    left open (``<p>`` before a ``</div>``) closes where its parent does."""
    tokens = parse(text, opaque)
    ends: dict[int, int] = {}
    stack: list[tuple[str, int]] = []
    for i, t in enumerate(tokens):
        if t.kind == "start":
            name = t.name.lower()
            if t.closes_itself or name in VOID:
                ends[i] = i
            else:
                stack.append((name, i))
        elif t.kind == "end":
            name = t.name.lower()
            for k in range(len(stack) - 1, -1, -1):
                if stack[k][0] == name:
                    for _, j in stack[k:]:
                        ends[j] = i
                    del stack[k:]
                    break
    for _, j in stack:                  # never closed: up to the end of the text
        ends[j] = len(tokens) - 1
    return ends


#: What the readers of a page's content (content.py) never look inside: code, a figure's
#: drawing, a formula's MathML. Read as one token each, they cost little to parse.
SKIPPED = ("pre", "svg", "math")


def read_tokens(text: str) -> tuple[tuple[Token, ...], dict[int, int]]:
    """The tokens of a page's content ``text`` (``SKIPPED`` read whole) and their `closers`."""
    return parse(text, SKIPPED), closers(text, SKIPPED)


def classes(token: Token) -> list[str]:
    """The class names of a start tag."""
    return (token.attr("class") or "").split()


def text(fragment: str) -> str:
    """The text of an HTML ``fragment`` as written, without its tags, comments or scripts
    (``a <em>b</em> &amp; c`` is ``a b &amp; c``)."""
    return "".join(t.text for t in parse(fragment) if t.kind == "text")


def elements(fragment: str, names: tuple[str, ...]) -> list[tuple[int, int]]:
    """The (start, end) of each outermost element of ``fragment`` named one of ``names``."""
    tokens, ends = parse(fragment), closers(fragment)
    found: list[tuple[int, int]] = []
    for i, t in enumerate(tokens):
        if t.kind == "start" and t.name.lower() in names and (not found or t.start >= found[-1][1]):
            found.append((t.start, tokens[ends[i]].end))
    return found


def digest(text: str) -> str:
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


_READINGS: dict[tuple[str, str], object] = {}     # this process's readings, by kind and the text's hash
_SOURCE = digest(Path(__file__).read_text(encoding="utf-8"))


def read(text: str, kind: str, reader, salt: str = "", cache=None):
    """``reader(text)`` (which reads ``parse(text)``): worked out once per text and kind in this
    process, and kept in ``cache`` (an ExecCache) between builds under the text's hash, this
    module's source and ``salt`` (the reader's own sources). A warm build, whose pages are the
    last build's, parses nothing."""
    hashed = digest(text)
    if (kind, hashed) in _READINGS:
        return _READINGS[kind, hashed]
    parts = [hashed, _SOURCE, salt]
    found = cache.get(kind, parts) if cache is not None else None
    if found is None:
        found = reader(text)
        if cache is not None:
            cache.put(kind, parts, found, {"files": {}, "dists": {}})
    if len(_READINGS) > 1000:
        _READINGS.clear()
    _READINGS[kind, hashed] = found
    return found


def facts(text: str, cache=None) -> dict:
    """What the build reads of the built page ``text`` (`_read`): one parse per page."""
    return read(text, "page-reading", lambda t: _read(parse(t)), cache=cache)


def read_site(site_dir: Path, cache) -> None:
    """Read every built page of ``site_dir`` once (from ``cache`` where it holds the page), so that
    the features that read them after (fonts, stylesheets) find their readings here."""
    for path in sorted(Path(site_dir).rglob("*.html")):
        facts(path.read_text(encoding="utf-8"), cache)
