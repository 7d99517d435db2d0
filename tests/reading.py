"""What a reader meets on the built site, counted: check lines left unfolded, prose sentences that
recite three or more decimals, and the pages that state an idea whose home is elsewhere.

    python tests/reading.py SITE_DIR [-v]

prints each count per page (``-v``: the sentences too). tests/test_reading.py holds the limits.
"""

from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from pathlib import Path

#: a number written with a decimal point (0.227, −1.5, 75.3); not a version, not a section number
#: inside a reference: those are in links to headings, which are skipped with the math
DECIMAL = re.compile(r"(?<![\w.])[−-]?\d[\d,]*\.\d+(?![\w.])")
#: elements whose text is not prose: code, math, figures, the folded checks and the Code/Output
#: tabs of demos (what a demo prints is output, not a sentence of the text), tables, links (a
#: reference "(6.1)" is a number of a section, not a decimal)
_NOT_PROSE_TAGS = {"code", "pre", "script", "style", "math", "svg", "template", "table", "details", "nav",
                   "header", "footer", "a"}
_NOT_PROSE_CLASSES = ("esm-check", "tabbed-set", "md-sidebar", "md-header", "md-footer",
                      "esm-skillcheck", "esm-notes", "esm-practice", "md-nav", "esm-nb-output")
_PROSE_TAGS = {"p", "li", "dd", "figcaption", "blockquote"}
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _Prose(HTMLParser):
    """The text of a page's prose elements, one string per element, outside everything above;
    with ``links``, the text of links too, and each element's links (``hrefs``) and the id of the
    heading above it (``headings``)."""

    def __init__(self, links: bool = False) -> None:
        super().__init__(convert_charrefs=True)
        self.not_prose = _NOT_PROSE_TAGS - {"a"} if links else _NOT_PROSE_TAGS
        self.stack: list[tuple[str, bool, bool]] = []     # (tag, skips, is prose)
        self.skip = 0
        self.paras: list[list[str]] = []
        self.hrefs: list[list[str]] = []
        self.headings: list[str] = []
        self.heading = ""
        self.open = 0

    def handle_starttag(self, tag, attrs):
        if tag in _VOID:
            return
        a = dict(attrs)
        cls = a.get("class") or ""
        skips = tag in self.not_prose or any(c in cls.split() or cls.startswith(c) for c in _NOT_PROSE_CLASSES)
        prose = not skips and not self.skip and tag in _PROSE_TAGS and not self.open
        self.stack.append((tag, skips, prose))
        self.skip += skips
        if tag in ("h1", "h2", "h3") and a.get("id") and not self.skip:
            self.heading = a["id"]
        if prose:
            self.open += 1
            self.paras.append([])
            self.hrefs.append([])
            self.headings.append(self.heading)
        if tag == "a" and self.open and not self.skip and a.get("href"):
            self.hrefs[-1].append(a["href"])

    def handle_endtag(self, tag):
        if tag in _VOID:
            return
        while self.stack:
            t, skips, prose = self.stack.pop()
            self.skip -= skips
            self.open -= prose
            if t == tag:
                break

    def handle_data(self, data):
        if self.open and not self.skip:
            self.paras[-1].append(data)


def prose_sentences(html: str) -> list[str]:
    """The sentences of the page's prose (the article only)."""
    start = html.find("<article")
    end = html.rfind("</article>")
    parser = _Prose()
    parser.feed(html[start:end] if start >= 0 else html)
    out = []
    for para in parser.paras:
        text = " ".join("".join(para).split())
        out += [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(\"“])", text) if s]
    return out


def prose_blocks(html: str) -> list[tuple[str, str, list[str]]]:
    """The article's prose elements in reading order (paragraphs, list items, captions), each as
    (id of the heading above it, its text with its links' text, the addresses of its links)."""
    start = html.find("<article")
    end = html.rfind("</article>")
    parser = _Prose(links=True)
    parser.feed(html[start:end] if start >= 0 else html)
    return [(h, " ".join("".join(para).split()), hrefs)
            for h, para, hrefs in zip(parser.headings, parser.paras, parser.hrefs)]


def decimal_sentences(html: str) -> list[str]:
    """Prose sentences reciting three or more decimal numbers."""
    return [s for s in prose_sentences(html) if len(DECIMAL.findall(s)) >= 3]


def check_lines(html: str) -> tuple[int, int]:
    """(all check lines, those outside a folded ``details.esm-checks``) of a page."""
    total = html.count('<div class="esm-check"')
    folded = sum(m[0].count('<div class="esm-check"')
                 for m in re.finditer(r'<details class="success esm-checks">.*?</details>', html, re.S))
    return total, total - folded


def pages(site: Path):
    """(page path relative to the site, its HTML) for every page of the book."""
    for path in sorted(site.rglob("index.html")):
        rel = path.relative_to(site).parent.as_posix()
        if rel.startswith(("search", "assets", "print_page")):
            continue
        yield rel, path.read_text(encoding="utf-8")


def main(argv: list[str]) -> int:
    site, verbose = Path(argv[0]), "-v" in argv
    total = unfolded = decimals = 0
    for rel, html in pages(site):
        found = decimal_sentences(html)
        checks, shown = check_lines(html)
        total, unfolded, decimals = total + checks, unfolded + shown, decimals + len(found)
        if found or shown:
            print(f"{rel or '(home)'}: {len(found)} decimal sentences, {shown} of {checks} checks unfolded")
            if verbose:
                for s in found:
                    print("    -", s[:240])
    print(f"total: {decimals} decimal sentences; {unfolded} of {total} check lines unfolded")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
