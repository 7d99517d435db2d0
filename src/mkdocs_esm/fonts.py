"""KaTeX's woff2 fonts cut down to the characters each one draws on the site (fontTools).

The full fonts cost a math page about 130 KB, more than its HTML: KaTeX_AMS is shipped for
the few symbols such as the blackboard R, KaTeX_Main-Bold for a handful of bold letters. After
the build, every woff2 that katex.py added to the site is subset, with its layout
features kept, to the characters that the formulas of the site's pages can draw in it:

- Only the text of KaTeX's HTML (``.katex-html``) is drawn in KaTeX's fonts; prose, code and
  the hidden MathML are not.
- Which font a character is drawn in follows from KaTeX's stylesheet: ``.katex`` sets
  KaTeX_Main, and rules such as ``.katex .mathbf`` set a family, weight or style, inherited
  by the elements inside. For each of the three, the character's element and then its
  ancestors are searched for the nearest one that a rule setting it matches (a rule matches
  when its last compound's classes are on the element and its other classes on ancestors);
  where several rules there set it, every value counts (the cascade picks one of them), and
  a weight or style that the family has no face for counts for all the family's faces: a
  superset of what the browser draws. tests/browser/test_fonts.py checks the subsets against
  the fonts Chromium's own cascade chooses.

The files keep their names, so pages and the stylesheet are unchanged; Material's instant
navigation shares them across pages. `mkdocs serve` ships the full fonts: the subset would add
to every rebuild. A subset is kept between builds, keyed on the font, the characters and the
code (fontcache.py).
"""

from __future__ import annotations

import hashlib
import html as htmllib
import itertools
import re
from collections import defaultdict
from pathlib import Path

from mkdocs.exceptions import PluginError

from . import fontcache

_SOURCE = Path(__file__).read_text(encoding="utf-8")

_FACE = re.compile(r"@font-face\{([^}]*)\}")
_RULE = re.compile(r"([^{}@]+)\{([^{}]*)\}")
_DECL = re.compile(r"font-(family|weight|style):\s*([^;}]+)")
_SRC = re.compile(r"url\(fonts/([^)]+\.woff2)\)")
_CLASS = re.compile(r"\.([A-Za-z0-9_-]+)")
_TOKEN = re.compile(r"<(/?)([a-zA-Z][\w-]*)([^>]*?)(/?)>|([^<]+)")
_CLASS_ATTR = re.compile(r'\bclass="([^"]*)"')
_VOID = {"br", "img", "hr", "wbr", "input", "meta", "link", "col", "area", "base", "source"}
_WEIGHTS = {"normal": "400", "bold": "700"}


def _declarations(body: str) -> dict[str, str]:
    found = {k: v.strip() for k, v in _DECL.findall(body)}
    if "family" in found:
        found["family"] = found["family"].split(",")[0].strip().strip("\"'")
    if "weight" in found:
        found["weight"] = _WEIGHTS.get(found["weight"], found["weight"])
    return found


def faces_and_rules(css: str) -> tuple[dict[tuple[str, str, str], str], list[tuple[frozenset, frozenset, dict]]]:
    """KaTeX's stylesheet read as ``(family, weight, style) -> woff2 file`` and, for every rule
    under ``.katex`` that sets a font property, ``(classes of its last compound, classes of
    the compounds before it, font declarations)``."""
    faces = {}
    for body in _FACE.findall(css):
        d = _declarations(body)
        src = _SRC.search(body)
        if src and "family" in d:
            faces[(d["family"], d.get("weight", "400"), d.get("style", "normal"))] = src[1]
    rules = []
    for selectors, body in _RULE.findall(_FACE.sub("", css)):
        d = _declarations(body)
        if not d:
            continue
        for selector in selectors.split(","):
            compounds = re.split(r"\s*[>+~]\s*|\s+", selector.strip())
            last, before = frozenset(_CLASS.findall(compounds[-1])), frozenset(_CLASS.findall(" ".join(compounds[:-1])))
            if "katex" in before:
                rules.append((last, before - {"katex"}, d))
    return faces, rules


def _resolve(stack: tuple[frozenset, ...], rules) -> dict[str, set[str]]:
    """The values each font property can take in the innermost element of ``stack`` (the
    class sets from the ``.katex-html`` element inwards)."""
    out: dict[str, set[str]] = {}
    for depth in range(len(stack) - 1, -1, -1):
        above = frozenset().union(*stack[:depth])
        for last, before, decls in rules:
            if last <= stack[depth] and before <= above:
                for prop, value in decls.items():
                    if prop not in out or out[prop][1] == depth:
                        out.setdefault(prop, (set(), depth))[0].add(value)
    return {prop: values for prop, (values, _) in out.items()}


def drawn(text: str) -> dict[tuple[frozenset, ...], set[str]]:
    """The characters of the formulas in one page's HTML, by the class sets of their element
    and its ancestors from the ``.katex-html`` element inwards."""
    out: dict[tuple, set[str]] = defaultdict(set)
    for start in (m.start() for m in re.finditer(r'<span class="katex-html"', text)):
        stack: list[frozenset] = []
        tags: list[str] = []
        for m in _TOKEN.finditer(text, start):
            if m[5] is not None:
                chars = set(htmllib.unescape(m[5])) - set(" \t\n\r")
                if stack and chars:
                    out[tuple(stack)] |= chars
                continue
            closing, tag, attrs, selfclosing = m[1], m[2].lower(), m[3], m[4]
            if closing:
                if not tags or tags.pop() != tag:
                    raise PluginError(f"fonts: </{tag}> closes no open <{tag}> in a formula at {m.start()}")
                stack.pop()
                if not stack:
                    break
            elif not selfclosing and tag not in _VOID:
                c = _CLASS_ATTR.search(attrs)
                stack.append(frozenset(c[1].split()) if c else frozenset())
                tags.append(tag)
    return out


def drawn_cached(text: str, cache) -> dict[tuple[frozenset, ...], set[str]]:
    """``drawn(text)``, from ``cache`` (fontcache.py's store) when this page's HTML was
    read by this code before: a warm build reads no page again (all pages: about 1.3 s)."""
    parts = [hashlib.sha256(text.encode("utf-8")).hexdigest(), _SOURCE]
    stored = cache.get("font-drawn", parts)
    if isinstance(stored, list):
        return {tuple(frozenset(level) for level in stack): set(chars) for stack, chars in stored}
    found = drawn(text)
    cache.put("font-drawn", parts, [[[sorted(level) for level in stack], "".join(sorted(chars))]
                                    for stack, chars in found.items()], {"files": {}, "dists": {}})
    return found


def characters_by_font(pages, css: str) -> dict[str, set[int]]:
    """woff2 file name -> the characters the formulas can draw in it; ``pages`` holds, for
    each page, ``drawn(its HTML)``."""
    faces, rules = faces_and_rules(css)
    families = defaultdict(list)
    for key, name in faces.items():
        families[key[0]].append(name)
    # Only the classes that some rule names can change a face: the others are left out, and a
    # run of levels left empty becomes one empty level (a rule's last compound may name no
    # class, as in `.delimsizing.mult .delim-size4>span`: an empty level still matches it).
    named = frozenset().union(*(last | before for last, before, _ in rules))
    chars_by_stack: dict[tuple, set[str]] = defaultdict(set)
    for page in pages:
        for stack, chars in page.items():
            levels = [level & named for level in stack]
            kept = tuple(lv for k, lv in enumerate(levels) if lv or k == len(levels) - 1 or levels[k + 1])
            chars_by_stack[kept] |= chars
    out: dict[str, set[int]] = {name: set() for name in faces.values()}
    for stack, chars in chars_by_stack.items():
        values = _resolve(stack, rules)
        codes = set(map(ord, chars))
        for key in itertools.product(values.get("family", {"KaTeX_Main"}), values.get("weight", {"400"}),
                                     values.get("style", {"normal"})):
            for name in ([faces[key]] if key in faces else families.get(key[0], [])):
                out[name] |= codes
    return out


_MATHML = re.compile(r"<math\b.*?</math>", re.S)
_ANNOTATION = re.compile(r"<annotation\b.*?</annotation>", re.S)


def mathml_chars(text: str) -> set[int]:
    """The characters of the MathML formulas in one page's HTML (drawn in the math font)."""
    out: set[int] = set()
    for m in _MATHML.finditer(text):
        inner = re.sub(r"<[^>]*>", "", _ANNOTATION.sub("", m[0]))
        out |= set(map(ord, htmllib.unescape(inner)))
    if "<msqrt" in text or "<mroot" in text:
        out.add(0x221A)        # the radical sign: the browser draws it, no formula's text holds it
    return out - {10, 13, 9}


def subset_fonts(site: Path, cache) -> None:
    """Cut every KaTeX woff2 of the built ``site`` to the characters its pages draw in it."""
    fonts = sorted((site / "assets" / "katex" / "fonts").glob("*.woff2"))
    if not fonts:
        raise PluginError("fonts: no KaTeX fonts in the site (katex.on_files adds them)")
    css = (site / "assets" / "katex" / "katex.min.css").read_text(encoding="utf-8")
    texts = [p.read_text(encoding="utf-8") for p in site.rglob("*.html")]
    chars = characters_by_font((drawn_cached(text, cache) for text in texts), css)
    # The MathML formulas' font (katex.py, Temml): every character of every formula.
    chars["latinmodern-math.woff2"] = set().union(*(mathml_chars(text) for text in texts))
    for path in fonts:
        # A space keeps each subset a valid font with at least one glyph besides .notdef.
        path.write_bytes(fontcache.cached_subset(path.read_bytes(), chars.get(path.name, set()) | {0x20}, cache))
