"""The plugin's options, as ``mkdocs.yml`` sets them under ``plugins: - esm:``."""

from __future__ import annotations

from mkdocs.config import base
from mkdocs.config import config_options as c

_OFF = {"0", "off", "no", "false", ""}


class Switch(c.BaseConfigOption[bool]):
    """On or off, written as YAML or by an environment variable through ``!ENV``: ``true``,
    ``1``, ``on`` and ``yes`` are on; ``false``, ``0``, ``off``, ``no`` and the empty string
    are off (``!ENV [ESM_CACHE, true]`` with ``ESM_CACHE=0`` turns it off)."""

    def __init__(self, default: bool) -> None:
        super().__init__()
        self.default = default

    def run_validation(self, value: object) -> bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, (int, str)):
            return str(value).strip().lower() not in _OFF
        raise base.ValidationError(f"expected on or off, got {value!r}")


class EsmConfig(base.Config):
    #: reuse executed output, rendered formulas, search entries and the purged stylesheet
    #: between builds while their inputs are unchanged (the execution cache)
    cache = Switch(default=True)
    #: where the execution cache lives (relative paths: to the folder of mkdocs.yml)
    cache_dir = c.Type(str, default=".cache/esm-exec")
    #: where the subsets of the math font are kept between builds
    font_cache_dir = c.Type(str, default=".cache/esm-fonts")
    #: worker processes that run uncached blocks ahead of the pages (0: one per CPU; 1: none)
    jobs = c.Type(int, default=0)
    #: `mkdocs serve` rebuilds an edited page alone when no other page can change
    fast_serve = Switch(default=True)
    #: folders the executed blocks import their helpers from (``from esm import ...``),
    #: relative to the folder of mkdocs.yml, put first on the import path during a build
    python_path = c.ListOfItems(c.Type(str), default=["snippets"])
    #: feed mkdocs-print-site-plugin the pages as served (the PDF build, mkdocs-pdf.yml)
    print_site = Switch(default=False)
