"""The math font subset to a set of characters (fontTools), each subset kept between builds.

The result depends only on the font's bytes, the characters, the options below and the code
that makes it. So a subset is stored under a key made of all of
these: the SHA-256 of the font, the sorted code points, this file's source (the options), the
versions of fontTools and of the compressors it writes woff2 with (brotli) and the Python
version. A changed font, character, option or version is a different key: nothing stale is
served. Entries are execution-cache entries (execcache.py: an entry that is unreadable, cut
short or altered is deleted and the subset made again).

Where: the plugin's ``font_cache_dir`` (``.cache/esm-fonts/``); ``cache: false`` turns it off
with the execution cache (every font is subset afresh).
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata as metadata
import io
from pathlib import Path

from . import execcache

_DISTRIBUTIONS = ("fonttools", "brotli", "brotlicffi", "zopfli")


def _versions() -> str:
    out = []
    for name in _DISTRIBUTIONS:
        try:
            out.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            out.append(f"{name} absent")
    return ", ".join(out)


def subset(data: bytes, chars: set[int]) -> bytes:
    """``data`` (a woff2 font) cut to ``chars`` with its layout features, as woff2."""
    from fontTools import subset as ft_subset
    from fontTools.ttLib import TTFont

    options = ft_subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]
    options.hinting = False
    options.desubroutinize = True
    options.notdef_outline = True
    # FontForge's timestamps (FFTM), which fontTools cannot subset: dropped by name, as before
    # by default, without its warning "FFTM NOT subset; don't know how to subset; dropped".
    options.drop_tables = [*options.drop_tables, "FFTM"]
    font = TTFont(io.BytesIO(data), recalcTimestamp=False)   # same bytes every build
    subsetter = ft_subset.Subsetter(options)
    subsetter.populate(unicodes=chars)
    subsetter.subset(font)
    out = io.BytesIO()
    font.flavor = "woff2"
    font.save(out)
    return out.getvalue()


def cached_subset(data: bytes, chars: set[int], cache: execcache.ExecCache) -> bytes:
    """``subset(data, chars)``, from ``cache`` when this font, these characters, this code and
    these versions made it before; stored when made."""
    parts = [hashlib.sha256(data).hexdigest(), ",".join(map(str, sorted(chars))),
             Path(__file__).read_text(encoding="utf-8"), _versions()]
    stored = cache.get("font-subset", parts)
    if isinstance(stored, str):
        return base64.b64decode(stored)
    out = subset(data, chars)
    cache.put("font-subset", parts, base64.b64encode(out).decode("ascii"), {"files": {}, "dists": {}})
    return out
