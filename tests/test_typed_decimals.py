"""Typed decimals: the prose quotes computed numbers by name ({{name}}, mkdocs_esm/glue.py), so a
decimal number typed by hand into a page's prose, tables, captions or formulas is a number
nothing checks. Each one left must be in tests/typed_decimals.toml with its reason (a figure
quoted from a cited source, a constant of a definition), and each part of the book has a cap.

Counted: numbers with a decimal point in the Markdown of docs/ (not docs/dev/, the
maintainers' docs, which are not part of the book), in the markdown cells of the theory
notebook and in the text of the skill checks (docs/skill-checks/*.yml: each question's
prompt, choices and explanation, which quote computed values as {{page.md#name}},
mkdocs_esm/skillchecks.py), outside code fences, inline code, HTML comments and {{references}}. A
skill check counts with its part: part1.yml and part2.yml with parts 1-2, part3.yml with
part 3, primer-*.yml with the primer.
Not counted: section and equation numbers (a heading's own number; "section 2.4",
"sections 1.1 and 1.2", "exercise 10.1", "mistake 9.10", "the demo of 4.1", "(2.3)"), which
are references.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from pathlib import Path

import yaml
from conftest import DOCS, ROOT
from conftest import pages as book_pages

ALLOW = ROOT / "tests" / "typed_decimals.toml"
NOTEBOOK = DOCS / "notebook" / "theory.py"
SKILL_CHECKS = DOCS / "skill-checks"

#: The parts of the book and the most typed decimals each may keep.
GROUPS = {
    "parts 1-2": (("part1/", "part2/", "index.md", "notation.md", "notation-full.md", "overview.md", "practice.md",
                   "skill-checks/part1.yml", "skill-checks/part2.yml"), 8),
    "part 3 and the notebook": (("part3/", "notebook/", "skill-checks/part3.yml"), 8),
    "primer": (("primer/", "skill-checks/primer-"), 8),
}

_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,}).*?^\1\2[ \t]*$", re.M | re.S)
_STRIP = re.compile(r"<!--.*?-->|`[^`\n]*`|\{\{[^{}\n]*\}\}", re.S)
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*\.\d+(?![\w.]*\d)")
_REF_WORD = re.compile(
    r"(?:sections?|§|subsections?|exercises?|mistakes?|equations?|eqs?\.|chapters?|parts?|figures?|"
    r"tables?|(?:the\s+)?demos?\s+of)\s+(?:\(?\d+\.\d+[a-z]?\)?(?:\s*(?:,|and|or|to|-|–|and\s+in)\s*))*\(?$", re.I)
_SECTION_LIKE = re.compile(r"\d{1,2}\.\d{1,2}")
#: A TeX command written against a number ($e^2\approx7.39$): the number is still typed.
_TEX_COMMAND = re.compile(r"(\\[A-Za-z]+)(?=\d)")


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


def skill_check_prose(path: Path) -> str:
    """The text a reader sees of one skill check: every question's prompt, choices and
    explanation, one per line (the YAML's folded lines joined), {{references}} removed."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    fields = [str(f) for q in data["questions"] for f in (q["prompt"], *q["choices"], q["explain"])]
    return _STRIP.sub(" ", "\n".join(" ".join(f.split()) for f in fields))


def typed_decimals(text: str) -> list[str]:
    found = []
    text = _TEX_COMMAND.sub(r"\1 ", text)
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
    out = {p.relative_to(DOCS).as_posix(): typed_decimals(prose_of(p)) for p in book_pages()}
    out["notebook/theory.py"] = typed_decimals(prose_of(NOTEBOOK))
    for path in sorted(SKILL_CHECKS.glob("*.yml")):
        out[path.relative_to(DOCS).as_posix()] = typed_decimals(skill_check_prose(path))
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
            "mistake 9.10; | 4.1 | arXiv:1706.03762; `0.123` {{x}} cosine 0.781, mean -0.004, $d^{-0.5}$, 50,257.5 and 2.2 shows; the demo of 4.1 and demos of 7.2 and 7.4; $e^2\\approx7.39$")
    assert typed_decimals(_STRIP.sub(" ", text)) == ["0.781", "-0.004", "-0.5", "50,257.5", "2.2", "7.39"]


def test_the_lint_reads_skill_checks(tmp_path):
    """Prompt, choices and explanation are counted; {{page.md#name}} references, inline code
    and "the demo of 4.1" are not; the title is not shown as question text."""
    path = tmp_path / "check.yml"
    path.write_text(
        'title: "Part 9.5"\npage: part1/\nquestions:\n'
        "  - id: q\n    prompt: >-\n      In the demo of 4.1 the cosine is\n      0.781 and\n"
        "      {{part2/geometry-of-meaning.md#cos_queen:.2f}} for queen.\n"
        "    choices:\n      - \"about 38.6 MB\"\n      - '$e^2\\approx7.39$ times'\n"
        "      - \"{{part1/intuition.md#gpt2_mb_fp16}} MB, see `0.5`\"\n"
        "    answer: 2\n    explain: >-\n      See the demos of 7.2 and 7.4 and section 3.3; p = 0.005.\n",
        encoding="utf-8")
    assert typed_decimals(skill_check_prose(path)) == ["0.781", "38.6", "7.39", "0.005"]


def test_skill_checks_count_with_their_part():
    assert group_of("skill-checks/part1.yml") == group_of("skill-checks/part2.yml") == "parts 1-2"
    assert group_of("skill-checks/part3.yml") == "part 3 and the notebook"
    assert group_of("skill-checks/primer-4-softmax-and-scores.yml") == "primer"
