"""The lesson prose teaches; the checks folded under each demo verify (issue 47).

Two rules, on the Markdown of the book's pages (docs/**/*.md but docs/dev/) outside fenced code
blocks and HTML comments, read paragraph by paragraph (blocks between blank lines; an indented
block of an admonition or a list item is a paragraph of its own):

1. **Verification stays in the folds.** The prose and the figure captions of Parts 1-3 and the
   front pages name no tolerance, no rounding-level agreement, no test file and no tool of the
   harness: the checks printed under each demo (folded in its Output tab) say which routes were
   compared and within what bound. `VERIFICATION_TALK` below is the explicit list of what that
   means, each pattern with its reason; captions are read from what each demo printed.
2. **One point per paragraph.** A paragraph that quotes many computed values (`{{name}}`,
   mkdocs_esm/glue.py) recites a demo instead of making a point. Every paragraph of the whole site
   is counted (`paragraph_counts`; a display formula is not a paragraph: a matrix worked by hand,
   7.1's $S=QK^\top$, shows its entries where they stand); in Parts 1-3 and the front pages no paragraph quotes more
   than `MAX_VALUES` and at most `MAX_DENSE` paragraphs quote `DENSE` or more. The primer is held
   to the same two limits on its own (`PRIMER`: its dense paragraphs are counted apart from
   those of Parts 1-3, issue 48); the theory notebook is counted and reported, not yet held to them.
   Rule 1 covers the primer's chapters too (`VERIFIED`); its exercises page names the helpers a
   reader calls (`esm.tiny_gpt`, ...), which there is instruction, not harness talk.
"""

from __future__ import annotations

import re

from conftest import DOCS, page_includes
from conftest import pages as book_pages

#: The pages held to both rules: Parts 1-3 and the front pages.
ENFORCED = ("part1/", "part2/", "part3/", "index.md", "overview.md", "notation.md", "notation-full.md", "practice.md")
#: The primer's pages: held to rule 2's limits, its dense paragraphs counted on their own (issue 48).
PRIMER = ("primer/",)
#: No paragraph of the enforced pages quotes more computed values than this.
MAX_VALUES = 8
#: A paragraph quoting this many values or more is dense; the enforced pages keep at most MAX_DENSE.
DENSE = 6
MAX_DENSE = 10
NOTEBOOK = DOCS / "notebook" / "theory.py"

#: What verification talk looks like in prose. Each pattern is matched case-insensitively on one
#: paragraph with its line breaks turned into spaces; inline code and math are kept, because a
#: test path (`tests/...`), a harness name (`esm.attention`) or a tolerance ($10^{-12}$) is
#: usually written in them.
VERIFICATION_TALK: dict[str, str] = {
    # a test file or the test runner: the reader does not run the suite
    r"\btests?/|\btest_\w+\.py\b|\bpytest\b": "names a test file or the test runner",
    # a helper of the book's package: the demos' Code tab shows which helper computes what
    r"\besm\.\w": "names a function of the esm helpers",
    # two routes agreeing to a bound: the check line under the demo states the bound
    # (a fit's error is a finding, not a tolerance: "reproduces ... within" is not listed)
    r"\b(?:agree|agrees|match|matches)\b[^.;]{0,80}?"
    r"\b(?:to|within|up to)\s+(?:about\s+|at most\s+)?(?:\$10\^|\{\{|\d)": "states a tolerance of an agreement",
    r"\bto rounding\b|\brounding[- ]level\b|\bup to the differences' own error\b":
        "states an agreement at rounding level",
    r"\bto about\s+(?:\{\{|\$?\d[^ ]*(?:×|\\times)\s*10)": "quotes a tolerance",
    r"×10⁰|\\times\s*10\^\{?0\}?(?!\d)": "quotes a measured zero in scientific notation",
    # the checks' own bookkeeping
    r"\bchecks? of the\b": "describes what a check covers",
}
_VERIFICATION = [(re.compile(p, re.I), why) for p, why in VERIFICATION_TALK.items()]

_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,}).*?^\1\2[ \t]*$", re.M | re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_VALUE = re.compile(r"\{\{[^{}\n]*\}\}")
_CAPTION = re.compile(r"<figcaption>(.*?)</figcaption>", re.S)


def paragraphs(text: str) -> list[tuple[int, str]]:
    """The paragraphs of a page's Markdown with their first line: blocks between blank lines,
    fenced code and HTML comments taken out (their lines kept blank, so line numbers hold)."""
    def blank(m: re.Match) -> str:
        return "\n" * m.group(0).count("\n")
    text = _COMMENT.sub(blank, _FENCE.sub(blank, text))
    out, start, lines = [], None, []
    for n, line in enumerate(text.split("\n") + [""], 1):
        if line.strip():
            start = start or n
            lines.append(line)
        elif lines:
            out.append((start, "\n".join(lines)))
            start, lines = None, []
    return out


def notebook_markdown() -> str:
    """The theory notebook's markdown cells as Markdown (a jupytext percent file)."""
    cells = re.split(r"^# %%", NOTEBOOK.read_text(encoding="utf-8"), flags=re.M)
    return "\n\n".join("\n".join(line[2:] if line.startswith("# ") else line.lstrip("#")
                                 for line in cell.split("\n")[1:])
                       for cell in cells if cell.startswith(" [markdown]"))


def paragraph_counts() -> dict[str, list[tuple[int, int]]]:
    """Every page of the site (and the theory notebook's markdown): (line, computed values)
    for each paragraph that quotes at least one."""
    sources = {p.relative_to(DOCS).as_posix(): p.read_text(encoding="utf-8") for p in book_pages()}
    sources["notebook/theory.py"] = notebook_markdown()
    return {page: [(line, n) for line, block in paragraphs(text)
                   if not block.lstrip().startswith("$$") and (n := len(_VALUE.findall(block)))]
            for page, text in sources.items()}


def enforced(page: str) -> bool:
    return page.startswith(ENFORCED)


#: The pages held to rule 1: the enforced pages and the primer's chapters.
def verified(page: str) -> bool:
    return enforced(page) or (page.startswith(PRIMER) and page != "primer/exercises.md")


def verification_talk(text: str) -> list[str]:
    flat = " ".join(text.split())
    return [f"{why}: ...{flat[max(0, m.start() - 40):m.end() + 40]}..."
            for pattern, why in _VERIFICATION for m in pattern.finditer(flat)]


def test_no_paragraph_recites_more_than_the_limit():
    counts = paragraph_counts()
    too_many = [f"{page}:{line}: {n} computed values" for page, rows in counts.items()
                if enforced(page) or page.startswith(PRIMER) for line, n in rows if n > MAX_VALUES]
    assert not too_many, f"paragraphs quoting more than {MAX_VALUES} computed values:\n" + "\n".join(too_many)


def test_few_paragraphs_are_dense():
    counts = paragraph_counts()
    dense = sorted((n, f"{page}:{line}") for page, rows in counts.items() if enforced(page)
                   for line, n in rows if n >= DENSE)
    # reported for the pages not yet held to the limits (the theory notebook)
    for page, rows in sorted(counts.items()):
        if not enforced(page) and not page.startswith(PRIMER) and any(n >= DENSE for _, n in rows):
            worst = max(n for _, n in rows)
            print(f"not enforced yet: {page}: {sum(n >= DENSE for _, n in rows)} paragraphs with "
                  f"{DENSE}+ computed values, the most {worst}")
    assert len(dense) <= MAX_DENSE, (f"{len(dense)} paragraphs quote {DENSE} or more computed values "
                                     f"(at most {MAX_DENSE}):\n" + "\n".join(f"{w}: {n}" for n, w in dense))


def test_few_primer_paragraphs_are_dense():
    """The primer's own budget of dense paragraphs, the same limit as Parts 1-3's (issue 48)."""
    dense = sorted((n, f"{page}:{line}") for page, rows in paragraph_counts().items() if page.startswith(PRIMER)
                   for line, n in rows if n >= DENSE)
    assert len(dense) <= MAX_DENSE, (f"{len(dense)} paragraphs of the primer quote {DENSE} or more computed values "
                                     f"(at most {MAX_DENSE}):\n" + "\n".join(f"{w}: {n}" for n, w in dense))


def test_prose_leaves_verification_to_the_folds():
    found = [f"{p.relative_to(DOCS)}:{line}: {hit}"
             for p in book_pages() if verified(p.relative_to(DOCS).as_posix())
             for line, block in paragraphs(p.read_text(encoding="utf-8")) for hit in verification_talk(block)]
    assert not found, "\n".join(found)


def test_captions_leave_verification_to_the_folds(demo_output):
    found = []
    for page in book_pages():
        if not verified(page.relative_to(DOCS).as_posix()):
            continue
        for demo in page_includes(page):
            for caption in _CAPTION.findall(demo_output(demo)):
                found += [f"{demo.relative_to(DOCS.parent)}: {hit}" for hit in verification_talk(caption)]
    assert not found, "\n".join(found)


def test_the_counter_reads_paragraphs_as_a_reader_does():
    text = ("Intro {{a}} and {{b:.1%}}.\n\n```python\nprint('{{not_counted}}')\n```\n"
            "<!-- {{nor_this}} -->\nSecond {{c}} line\nstill second {{d}}.\n\n"
            "??? success \"Solution\"\n    - **(a)** {{e}}, {{f}}\n\n    - **(b)** {{g}}\n")
    got = [(line, len(_VALUE.findall(block))) for line, block in paragraphs(text)]
    assert got == [(1, 2), (7, 2), (10, 2), (13, 1)]


def test_the_word_list_catches_what_issue_47_quoted_and_spares_teaching():
    caught = [
        "Central finite differences agree with the formula to about {{fd_err}}.",
        "it matches `esm.attention` with the causal mask to 0×10⁰",
        "checked against stored outputs (`tests/test_minilm_reference.py`)",
        "a check of the formula's bookkeeping: tied head, positions",
        "the shuffled rows equal the shuffled output to rounding",
        "Loop and closed form agree to $10^{-12}$.",
    ]
    spared = [
        "The Gram route has a catch. Its rounding error is of the order of $\\varepsilon$.",
        "rounding to the nearest integer step can miss by at most half a step",
        "the top-5 by cosine equals the top-5 by dot product once rows are normalised",
        "The checks under the demo give the gaps.",
        "Finite differences confirm that a batch gives gradient 0 to every row it does not read.",
        "The closed form agrees: the four unit vectors sum to $\\mathbf 0$.",
        "if all scores were equal, the weights would be proportional to {{w_last}}",
        "the fit then reproduces $\\log\\#_{ij}$ within {{fit_err}} in this draw",
    ]
    assert all(verification_talk(t) for t in caught), [t for t in caught if not verification_talk(t)]
    assert not any(verification_talk(t) for t in spared), [verification_talk(t) for t in spared]


def test_enforced_pages_exist():
    rels = {p.relative_to(DOCS).as_posix() for p in book_pages()}
    for prefix in ENFORCED:
        assert any(r.startswith(prefix) for r in rels), prefix
    assert any(r.startswith("primer/") for r in rels)   # counted, reported, enforced when its issue lands
