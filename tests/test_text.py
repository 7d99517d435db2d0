"""The lesson text: no paragraph is repeated from page to page, and no Markdown table row has
math split by a raw '|' (write \\lvert ... \\rvert)."""

from __future__ import annotations

import re
from collections import defaultdict

from conftest import DOCS, pages

ROOT = DOCS.parent


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


def test_no_merge_conflict_markers_in_the_sources():
    """A merge left unresolved is plain text to Markdown: the build passes and prints it."""
    marker = re.compile(r"^(<{7}|={7}|>{7})( |$)", re.M)
    roots = [ROOT / d for d in ("docs", "snippets", "src", "tests", "tools", ".github")] + [ROOT / "mkdocs.yml"]
    found = [f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}"
             for root in roots for path in ([root] if root.is_file() else sorted(root.rglob("*")))
             if path.is_file() and path.suffix in {".md", ".py", ".yml", ".yaml", ".css", ".js", ".html", ".bib", ".toml"}
             for text in [path.read_text(encoding="utf-8", errors="replace")] for m in marker.finditer(text)]
    assert not found, f"merge conflict markers: {found}"
