"""The KaTeX font subsets (mkdocs_esm/fonts.py) hold every character the formulas draw in them,
by an independent route: Chromium's own cascade says which face (family, weight, style)
each character of a formula is drawn in, and fontTools reads which characters the shipped
subset and the full font hold. A character the full font has must be in the subset (one it
lacks falls back to a system font either way).

The pages checked are the fewest whose formulas hold every nesting of font classes that
occurs on the site (the classes of KaTeX's stylesheet that set a font, on a character's
element and its ancestors): those classes decide the face, so these pages meet every face
choice the site makes; a face's characters are the same on every page (one subset per font
for the whole site)."""

from __future__ import annotations

import io
import re
import sys

import pytest

from browser.conftest import ROOT, page_sources, url_of

from mkdocs_esm import fonts as fonts_hook   # noqa: E402  (which classes hold which characters)

#: For each text of a formula: its element's and ancestors' font classes (outermost first,
#: as "a.b>c") and the face Chromium computes for its element ("family|weight|style").
FACES_SEEN = """
(relevant) => {
  const keep = new Set(relevant), seen = {};
  for (const root of document.querySelectorAll('.katex-html')) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    let node;
    while ((node = walker.nextNode())) {
      if (/^[ \\t\\n\\r]*$/.test(node.textContent)) continue;
      const levels = [];
      for (let el = node.parentElement; el && el !== root.parentElement; el = el.parentElement) {
        const mine = Array.from(el.classList).filter(c => keep.has(c)).sort();
        if (mine.length) levels.unshift(mine.join('.'));
      }
      const s = getComputedStyle(node.parentElement);
      const face = [s.fontFamily.split(',')[0].trim().replace(/"/g, ''), s.fontWeight, s.fontStyle].join('|');
      const kind = levels.join('>');
      seen[kind] = seen[kind] || {faces: new Set(), text: ''};
      seen[kind].faces.add(face);
      seen[kind].text += node.textContent.replace(/[ \\t\\n\\r]/g, '');
    }
  }
  return Object.fromEntries(Object.entries(seen).map(([k, v]) => [k, [Array.from(v.faces), v.text]]));
}
"""
FACE = re.compile(r"@font-face\{([^}]*)\}")


def faces(css: str) -> dict[tuple[str, str, str], str]:
    out = {}
    for body in FACE.findall(css):
        decl = dict(re.findall(r"font-(family|weight|style):\s*([^;]+)", body))
        out[(decl["family"].strip('"'), decl.get("weight", "400"), decl.get("style", "normal"))] = \
            re.search(r"url\(fonts/([^)]+\.woff2)\)", body)[1]
    return out


def cmap(data: bytes) -> set[int]:
    from fontTools.ttLib import TTFont
    return set(TTFont(io.BytesIO(data)).getBestCmap())


@pytest.fixture(scope="module")
def fonts(built):
    css = (built.dir / "assets" / "katex" / "katex.min.css").read_text(encoding="utf-8")
    full = ROOT / "node_modules" / "katex" / "dist" / "fonts"
    site = built.dir / "assets" / "katex" / "fonts"
    return {key: (name, cmap((full / name).read_bytes()), cmap((site / name).read_bytes()))
            for key, name in faces(css).items()}


def font_classes(site) -> set[str]:
    """The classes that KaTeX's stylesheet names in a rule that sets a font."""
    css = (site / "assets" / "katex" / "katex.min.css").read_text(encoding="utf-8")
    return {c for selectors, body in re.findall(r"([^{}]+)\{([^{}]*font[^{}]*)\}", css)
            for c in re.findall(r"\.([\w-]+)", selectors)}


def characters_by_kind(site) -> dict[str, dict[str, set[str]]]:
    """page -> nesting of font classes ("a.b>c", as FACES_SEEN writes it) -> its characters."""
    relevant, out = font_classes(site), {}
    for src in page_sources():
        drawn = fonts_hook.drawn((site / url_of(src) / "index.html").read_text(encoding="utf-8"))
        kinds: dict[str, set[str]] = {}
        for stack, chars in drawn.items():
            kind = ">".join(".".join(sorted(level & relevant)) for level in stack if level & relevant)
            kinds.setdefault(kind, set()).update(chars)
        out[src] = kinds
    return out


def covering_pages(kinds: dict[str, dict[str, set[str]]]) -> list[str]:
    """Greedily, the fewest pages that together hold every nesting of font classes."""
    todo, chosen = set().union(*map(set, kinds.values())), []
    while todo:
        best = max(kinds, key=lambda s: len(set(kinds[s]) & todo))
        chosen.append(best)
        todo -= set(kinds[best])
    return chosen


def test_every_character_a_formula_draws_is_in_its_font(browser, base_url, built, fonts):
    """Chromium says which face each nesting of font classes is drawn in, on the fewest pages
    that hold them all; then every character of every page must be in the subset of the face
    its nesting is drawn in."""
    kinds = characters_by_kind(built.dir)
    relevant = sorted(font_classes(built.dir))
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    face_of: dict[str, set[str]] = {}
    read_apart = []
    for src in covering_pages(kinds):
        page.goto(base_url + url_of(src), wait_until="domcontentloaded")
        seen = page.evaluate(FACES_SEEN, relevant)
        for kind, (faces_seen, text) in seen.items():
            face_of.setdefault(kind, set()).update(faces_seen)
        # the characters the hook read from the HTML are the ones the browser holds
        browser_chars = {kind: set(text) for kind, (_, text) in seen.items()}
        if browser_chars != kinds[src]:
            read_apart.append(src)
    ctx.close()
    assert not read_apart, f"the fonts hook reads other characters than the browser shows on {read_apart}"
    missing, unseen = [], []
    for src, by_kind in kinds.items():
        for kind, chars in by_kind.items():
            if kind not in face_of:
                unseen.append(f"{src}: {kind}")
            for face in face_of.get(kind, ()):
                family, weight, style = face.split("|")
                if family.startswith("KaTeX_"):
                    # a weight or style the family has no face for: the browser takes one of its faces
                    for name, full, subset in ([fonts[(family, weight, style)]] if (family, weight, style) in fonts
                                               else [v for k, v in fonts.items() if k[0] == family]):
                        missing += [f"{src}: {c!r} in {name}" for c in sorted(chars)
                                    if ord(c) in full and ord(c) not in subset]
    assert not unseen, f"nestings the browser was not asked about: {unseen[:10]}"
    assert not missing, f"drawn but cut from the subset: {missing[:20]}"
