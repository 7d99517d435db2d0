"""The lesson text: no paragraph is repeated from page to page, and no Markdown table row has
math split by a raw '|' (write \\lvert ... \\rvert)."""

from __future__ import annotations

import re
from collections import defaultdict

from conftest import DOCS, pages


def prose(text: str) -> str:
    return re.sub(r"```.*?```", "", text, flags=re.S)


def test_no_paragraph_is_repeated_across_or_within_pages():
    seen = defaultdict(list)
    for page in pages():
        for block in re.split(r"\n\s*\n", prose(page.read_text(encoding="utf-8"))):
            norm = " ".join(block.split())
            if len(norm) >= 80 and not norm.startswith(("|", "--8<--", "<", "!!!", "???")):
                seen[norm].append(page.relative_to(DOCS).as_posix())
    repeated = {p[:90]: locs for p, locs in seen.items() if len(locs) > 1}
    assert not repeated


def test_no_table_row_splits_math_on_a_raw_bar():
    bad = []
    for page in pages():
        for n, line in enumerate(prose(page.read_text(encoding="utf-8")).splitlines(), 1):
            if line.lstrip().startswith("|"):
                cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
                if any(c.count("$") % 2 for c in cells):
                    bad.append(f"{page.relative_to(DOCS)}:{n}")
    assert not bad
