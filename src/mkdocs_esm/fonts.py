"""The math font cut down to the characters of the site's formulas (fontTools).

Formulas are MathML (mathml.py, Temml), drawn in Latin Modern Math, which the site ships as
one woff2 file (``assets/math/fonts/latinmodern-math.woff2``, shared by every page). The full
font is 392 KB; after the build it is subset, with its layout features and MATH table kept
(stretchy delimiters, large operators, script sizes), to every character of every formula of
the site's pages (about 54 KB). tests/browser/test_fonts.py checks the subset against the
formulas' text read by another parser.

The file keeps its name, so pages and the stylesheet are unchanged; Material's instant
navigation shares it across pages. `mkdocs serve` ships the full font: the subset would add to
every rebuild. A subset is kept between builds, keyed on the font, the characters and the code
(fontcache.py).
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError

from . import fontcache, markup
from .mathml import FONT_DIR, MATH_FONT

def mathml_chars(text: str) -> set[int]:
    """The characters of the MathML formulas in one page's HTML (drawn in the math font; the
    page read by markup.py)."""
    return set(markup.facts(text)["math_chars"])


def subset_fonts(site: Path, cache) -> None:
    """Cut the math font of the built ``site`` to the characters of its pages' formulas."""
    path = site / FONT_DIR / MATH_FONT.name
    if not path.is_file():
        raise PluginError(f"fonts: no math font in the site at {FONT_DIR} (mathml.on_files adds it)")
    chars = set().union(*(mathml_chars(p.read_text(encoding="utf-8")) for p in site.rglob("*.html")))
    # A space keeps the subset a valid font with at least one glyph besides .notdef.
    path.write_bytes(fontcache.cached_subset(path.read_bytes(), chars | {0x20}, cache))
