"""docs/overview.md describes how mkdocs_esm/reading.py computes reading time. Those numbers are the
hook's constants, not values of an executed block, so the glue mechanism cannot quote them:
this test ties the prose to the code instead (change one, and it fails until the other follows)."""

from __future__ import annotations

import re
import sys

from conftest import DOCS, ROOT

from mkdocs_esm import reading  # noqa: E402


def test_reading_time_rule_in_the_overview_is_the_hooks_rule():
    text = " ".join((DOCS / "overview.md").read_text(encoding="utf-8").split())
    m = re.search(r"at (\d+) words a minute, plus (\d+) seconds for each display formula and each figure", text)
    assert m, "overview.md no longer states the reading-time rule in the expected words"
    assert int(m.group(1)) == reading.WORDS_PER_MINUTE
    assert int(m.group(2)) == reading.SECONDS_PER_FORMULA == reading.SECONDS_PER_FIGURE
