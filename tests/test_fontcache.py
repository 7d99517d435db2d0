"""mkdocs_esm/fontcache.py: a font subset is reused only for the same font, characters, code and
versions; a damaged entry is made again, never served; ESM_CACHE=0 turns the cache off."""

from __future__ import annotations

import hashlib
import importlib
import io
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHARS = set(range(0x20, 0x7F))


def _hook(name: str):
    """The plugin's module ``name``."""
    return importlib.import_module(f"mkdocs_esm.{name}")


@pytest.fixture(scope="module")
def fontcache():
    return _hook("fontcache")


_made: dict[tuple, bytes] = {}


@pytest.fixture
def cache(fontcache, tmp_path, monkeypatch):
    """A cache of its own; ``subset``, a pure function of the font's bytes and the characters,
    is made once a test run for each pair (the tests of the cache count its entries, which
    ``cached_subset`` makes and serves; the subset itself is a second of fontTools a call)."""
    real = fontcache.subset

    def subset(data: bytes, chars: set[int]) -> bytes:
        key = (hashlib.sha256(data).digest(), frozenset(chars))
        if key not in _made:
            _made[key] = real(data, chars)
        return _made[key]

    monkeypatch.setattr(fontcache, "subset", subset)
    return fontcache.execcache.ExecCache(tmp_path / "fonts")


def font() -> bytes:
    """The math font the site ships (Latin Modern Math, whole)."""
    from mkdocs_esm.mathml import MATH_FONT
    return MATH_FONT.read_bytes()


def cmap(data: bytes) -> set[int]:
    from fontTools.ttLib import TTFont
    return set(TTFont(io.BytesIO(data)).getBestCmap())


def test_a_subset_keeps_the_characters_asked_for_and_drops_the_others(fontcache):
    full = font()
    out = fontcache.subset(full, CHARS)
    assert ord("A") in cmap(out) and 0x393 not in cmap(out)     # Gamma: in the font, not asked for
    assert 0x393 in cmap(fontcache.subset(full, CHARS | {0x393}))
    assert len(out) < len(full)


def test_a_cached_subset_is_the_same_bytes_and_made_once(fontcache, cache):
    made = fontcache.subset(font(), CHARS)
    assert fontcache.cached_subset(font(), CHARS, cache) == made
    assert cache.stats["stored"] == 1 and cache.stats["hit"] == 0
    assert fontcache.cached_subset(font(), CHARS, cache) == made
    assert cache.stats["hit"] == 1 and cache.stats["stored"] == 1


def test_other_characters_or_another_font_are_other_entries(fontcache, cache):
    fontcache.cached_subset(font(), CHARS, cache)
    wider = fontcache.cached_subset(font(), CHARS | {0x393}, cache)
    assert 0x393 in cmap(wider) and cache.stats["hit"] == 0
    another = fontcache.subset(font(), CHARS | {0x394})          # other bytes: another font
    other = fontcache.cached_subset(another, CHARS, cache)
    assert other == fontcache.subset(another, CHARS) and cache.stats["hit"] == 0
    assert cache.stats["stored"] == 3


def test_the_key_holds_the_code_and_the_versions(fontcache, cache, monkeypatch):
    fontcache.cached_subset(font(), CHARS, cache)
    monkeypatch.setattr(fontcache, "_versions", lambda: "fonttools 0.0")
    fontcache.cached_subset(font(), CHARS, cache)
    assert cache.stats["hit"] == 0 and cache.stats["stored"] == 2


def test_a_damaged_entry_is_made_again_never_served(fontcache, cache):
    made = fontcache.cached_subset(font(), CHARS, cache)
    (entry,) = cache.dir.rglob("*.json")
    text = entry.read_text(encoding="utf-8")
    for damaged in ("garbage", text[: len(text) // 2], text.replace('"value": "', '"value": "AAAA', 1)):
        entry.write_text(damaged, encoding="utf-8")
        assert fontcache.cached_subset(font(), CHARS, cache) == made
    assert cache.stats["discarded"] == 3 and cache.stats["hit"] == 0


def test_a_cache_switched_off_subsets_afresh(fontcache, cache, tmp_path):
    off = fontcache.execcache.ExecCache(None)
    assert fontcache.cached_subset(font(), CHARS, off) == fontcache.subset(font(), CHARS)
    assert not (tmp_path / "fonts").exists()


def test_a_subset_keeps_the_math_table_and_warns_of_nothing(fontcache, caplog):
    """The MATH table (stretchy delimiters, large operators) stays; FontForge's FFTM table, which
    fontTools cannot subset, is dropped by name, without the warning it printed in every build."""
    import logging
    from fontTools.ttLib import TTFont
    assert "FFTM" in TTFont(io.BytesIO(font()))
    with caplog.at_level(logging.INFO, logger="fontTools"):
        out = TTFont(io.BytesIO(fontcache.subset(font(), CHARS)))
    assert "MATH" in out and "FFTM" not in out
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text


def test_the_math_subset_keeps_the_radical_sign_the_browser_draws():
    """<msqrt> holds only its radicand: the radical sign (U+221A) is drawn by the browser from the
    math font, so a subset cut to the formulas' text alone dropped it (every square root vanished)."""
    from mkdocs_esm.fonts import mathml_chars
    assert 0x221A in mathml_chars("<p><math><msqrt><mn>17</mn></msqrt></math></p>")
    assert 0x221A not in mathml_chars("<p><math><mn>17</mn></math></p>")
