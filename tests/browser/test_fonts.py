"""The math font subset (mkdocs_esm/fonts.py cuts Latin Modern Math to the characters of the
site's formulas) holds every character the formulas draw, by an independent route: the
formulas' text read with BeautifulSoup (not the build's regular expressions) against the
characters fontTools finds in the shipped subset and in the full font. A character the full
font has must be in the subset (one it lacks falls back to a system font either way), and the
subset keeps the OpenType MATH table (stretchy delimiters, large operators, script sizes).
Chromium then draws the formulas in it."""

from __future__ import annotations

import io

from browser.conftest import SETTLE

from mkdocs_esm import mathml


def cmap(data: bytes) -> set[int]:
    from fontTools.ttLib import TTFont
    return set(TTFont(io.BytesIO(data)).getBestCmap())


def test_every_character_a_formula_draws_is_in_the_math_font(built):
    from bs4 import BeautifulSoup
    from fontTools.ttLib import TTFont
    drawn: set[int] = set()
    for path in built.dir.rglob("*.html"):
        soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
        for math in soup.find_all("math"):
            for ann in math.find_all("annotation"):
                ann.decompose()
            drawn |= {ord(c) for c in math.get_text() if not c.isspace()}
    shipped = (built.dir / mathml.FONT_DIR / mathml.MATH_FONT.name).read_bytes()
    full, subset = cmap(mathml.MATH_FONT.read_bytes()), cmap(shipped)
    assert len(drawn) > 100
    missing = sorted(chr(c) for c in (drawn & full) - subset)
    assert not missing, f"characters of formulas missing from the math font subset: {missing}"
    assert "MATH" in TTFont(io.BytesIO(shipped))
    assert len(subset) < len(full) / 4, "the math font was not cut down"


def test_formulas_are_drawn_in_the_math_font(browser, base_url):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(base_url + "part2/positional-information/")
    page.evaluate(SETTLE)
    family, loaded = page.evaluate("""() => {
        const m = document.querySelector('.math-display math');
        return [getComputedStyle(m).fontFamily, document.fonts.check('16px "Latin Modern Math"', m.textContent)];
    }""")
    page.close()
    assert family.startswith('"Latin Modern Math"') and loaded
