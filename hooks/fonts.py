"""KaTeX's woff2 fonts cut down to the characters the site uses (fontTools).

The full fonts cost a math page about 130 KB, more than its HTML: KaTeX_AMS is shipped for
the few symbols such as the blackboard R, KaTeX_Main-Bold for a handful of bold letters. After
the build, every woff2 that hooks/katex.py added to the site is subset to the characters that
occur in the site's HTML pages (all of them, not only the math: a superset, so no glyph a
formula draws can be missing) with its layout features kept. The files keep their names, so
pages and the stylesheet are unchanged; Material's instant navigation shares them across
pages. `mkdocs serve` ships the full fonts: the subset would add to every rebuild. A subset is
kept between builds, keyed on the font, the characters and the code (hooks/fontcache.py).
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError

import fontcache     # hooks/ is on sys.path while mkdocs loads a hook


_command = "build"


def on_startup(command, dirty, **kwargs):
    global _command
    _command = command


def _characters(site: Path) -> set[int]:
    chars = set(range(0x20, 0x7F))
    for page in site.rglob("*.html"):
        chars.update(map(ord, page.read_text(encoding="utf-8")))
    return chars


def on_post_build(config, **kwargs):
    if _command == "serve":
        return
    site = Path(config.site_dir)
    fonts = sorted((site / "assets" / "katex" / "fonts").glob("*.woff2"))
    if not fonts:
        raise PluginError("fonts hook: no KaTeX fonts in the site (is hooks/katex.py listed before it?)")
    chars = _characters(site)
    cache = fontcache.store(Path(config.config_file_path).parent)
    for path in fonts:
        path.write_bytes(fontcache.cached_subset(path.read_bytes(), chars, cache))
