"""Typed decimals: the prose quotes computed numbers by name ({{name}}, hooks/glue.py), so a
decimal number typed by hand into a page's prose, tables, captions or formulas is a number
nothing checks. Each one left must be in tests/typed_decimals.toml with its reason (a figure
quoted from a cited source, a constant of a definition), and each part of the book has a cap.

Counted: numbers with a decimal point in the Markdown of docs/ and in the markdown cells of
the theory notebook, outside code fences, inline code, HTML comments and {{references}}.
Not counted: section and equation numbers (a heading's own number; "section 2.4",
"sections 1.1 and 1.2", "exercise 10.1", "mistake 9.10", "(2.3)"), which are references.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from pathlib import Path

from conftest import DOCS, ROOT

ALLOW = ROOT / "tests" / "typed_decimals.toml"
NOTEBOOK = DOCS / "notebook" / "theory.py"

#: The parts of the book and the most typed decimals each may keep.
GROUPS = {
    "parts 1-2": (("part1/", "part2/", "index.md", "notation.md", "overview.md", "practice.md"), 8),
    "part 3 and the notebook": (("part3/", "notebook/"), 8),
    "primer": (("primer/",), 8),
}

_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,}).*?^\1\2[ \t]*$", re.M | re.S)
_STRIP = re.compile(r"<!--.*?-->|`[^`\n]*`|\{\{[^{}\n]*\}\}", re.S)
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*\.\d+(?![\w.]*\d)")
_REF_WORD = re.compile(
    r"(?:sections?|§|subsections?|exercises?|mistakes?|equations?|eqs?\.|chapters?|parts?|figures?|"
    r"tables?)\s+(?:\(?\d+\.\d+[a-z]?\)?(?:\s*(?:,|and|or|to|-|–|and\s+in)\s*))*\(?$", re.I)
_SECTION_LIKE = re.compile(r"\d{1,2}\.\d{1,2}")


def prose_of(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":   # the notebook: its markdown cells only
        cells = re.split(r"^# %%", text, flags=re.M)
        text = "\n".join(
            "\n".join(line[2:] if line.startswith("# ") else line.lstrip("#")
                      for line in cell.split("\n")[1:])
            for cell in cells if cell.startswith(" [markdown]"))
    text = _FENCE.sub("", text)
    return _STRIP.sub(" ", text)


def typed_decimals(text: str) -> list[str]:
    found = []
    for line in text.split("\n"):
        heading = re.match(r"\s*#+\s+(\d+(?:\.\d+)*)", line)
        for m in _NUMBER.finditer(line):
            s = m.group(0)
            if re.search(r"(?:arxiv[: ]?|/)$", line[:m.start()], re.I):
                continue   # an arXiv identifier or a path, not a quantity
            if heading and m.start() == heading.start(1):
                continue
            if _SECTION_LIKE.fullmatch(s):
                before, after = line[:m.start()], line[m.end():]
                if _REF_WORD.search(before) or (before.endswith("(") and after.startswith(")")) \
                        or (before.endswith("[") and after.startswith("]")) \
                        or (before.rstrip().endswith("|") and after.lstrip().startswith("|")):
                    continue
            found.append(s)
    return found


def pages() -> dict[str, list[str]]:
    out = {p.relative_to(DOCS).as_posix(): typed_decimals(prose_of(p)) for p in sorted(DOCS.rglob("*.md"))}
    out["notebook/theory.py"] = typed_decimals(prose_of(NOTEBOOK))
    return {k: v for k, v in out.items() if v}


def allowances() -> tuple[dict[str, Counter], dict[str, int]]:
    data = tomllib.loads(ALLOW.read_text(encoding="utf-8"))
    allowed: dict[str, Counter] = {}
    for entry in data.get("allow", []):
        assert entry.get("reason", "").strip(), f"allowance without a reason: {entry}"
        allowed.setdefault(entry["page"], Counter())[entry["number"]] += entry.get("count", 1)
    return allowed, data.get("pending", {})


def group_of(page: str) -> str:
    return next(g for g, (prefixes, _) in GROUPS.items() if page.startswith(prefixes))


def test_every_typed_decimal_is_reviewed():
    allowed, pending = allowances()
    problems = []
    for page, numbers in pages().items():
        extra = Counter(numbers) - allowed.get(page, Counter())
        n_extra = sum(extra.values())
        if n_extra > pending.get(page, 0):
            problems.append(f"{page}: {n_extra} typed decimals not in tests/typed_decimals.toml "
                            f"(pending allowance {pending.get(page, 0)}): {sorted(extra.elements())}")
    assert not problems, "\n".join(problems)


def test_each_part_keeps_within_its_cap():
    allowed, pending = allowances()
    found = pages()
    for group, (prefixes, cap) in GROUPS.items():
        if any(p.startswith(prefixes) for p in pending):
            continue   # still being converted: the pending counts above may only go down
        count = sum(len(v) for p, v in found.items() if p.startswith(prefixes))
        assert count <= cap, f"{group}: {count} typed decimals, at most {cap}"


def test_allowances_are_used():
    """An allowance for a number that is no longer typed is stale: remove it."""
    allowed, pending = allowances()
    found = {p: Counter(v) for p, v in pages().items()}
    stale = [f"{p}: {sorted((c - found.get(p, Counter())).elements())}" for p, c in allowed.items()
             if c - found.get(p, Counter())]
    stale += [f"{p}: pending {n} but {sum(found.get(p, Counter()).values())} typed" for p, n in pending.items()
              if n > sum(found.get(p, Counter()).values())]
    assert not stale, "\n".join(stale)


def test_the_lint_sees_numbers_and_skips_references():
    text = ("## 2.4 Tied tables\nSection 2.4 and 2.5 say; sections 1.1, 1.2 and 1.3; (2.3) holds; "
            "mistake 9.10; | 4.1 | arXiv:1706.03762; `0.123` {{x}} cosine 0.781, mean -0.004, $d^{-0.5}$, 50,257.5 and 2.2 shows")
    assert typed_decimals(_STRIP.sub(" ", text)) == ["0.781", "-0.004", "-0.5", "50,257.5", "2.2"]
