"""Turn the plain-text cross-references of docs/ into labelled ones (mkdocs_esm/xref.py).

    python tools/convert_xrefs.py          # rewrite docs/**/*.md in place
    python tools/convert_xrefs.py --check  # list what would change, exit 1 if anything

Re-runnable and idempotent: it reads the section numbers from the headings as they are now,
so run it again on merged sources. It converts, outside code, math and headings:

    section 2.4 / Section 1 / sections 6.3 to 6.5   -> [section #][sec-...] (words kept)
    mistake 9.9 / exercise 10.4                      -> [mistake #][mistake-...]
    (3.2) / (anisotropic, 4.3)                        -> [(#)][sec-...] / (anisotropic, [#][sec-...])
    [chapter P3](self-attention.md), [P1](token-embeddings.md), chapter P1, table cell P6
                                                      -> [chapter #][chapter-self-attention] ...
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
from mkdocs_esm import page as pagemodel, xref  # noqa: E402

NUM = r"\d+(?:\.\d+)?"
MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$|`+[^`\n]*`+|\[[^\[\]\n]*#[^\[\]\n]*\]\[[^\]\n]+\]", re.S)
SKIP_LINE = re.compile(r"^\s*(#|\$\$|\\label|<)|such as \(")   # headings, math, HTML; an example


def label_maps() -> tuple[dict[str, str], dict[str, str]]:
    """Section number -> label, and primer page stem / chapter number -> label."""
    numbers, chapters = {}, {}
    for path in sorted(DOCS.rglob("*.md")):
        page = pagemodel.read(path.read_text(encoding="utf-8"))
        meta = page.meta
        kind = meta.get("xref_kind", "sec")
        for h in page.headings:
            if m := xref.NUMBERED.match(h.text):
                numbers[m["num"]] = xref.heading_label(kind, m["title"])
            elif h.level == 1 and "eq_prefix" in meta:
                label = xref.heading_label("chapter", h.text)
                chapters[path.stem] = chapters[str(meta["eq_prefix"])] = label
    return numbers, chapters


def convert_text(seg: str, numbers: dict[str, str], chapters: dict[str, str]) -> str:
    def sec(num: str) -> str | None:
        return numbers.get(num)

    # primer chapters written as links to their page
    def chapter_link(m: re.Match) -> str:
        label = chapters.get(m["page"])
        if not label:
            return m[0]
        words = m["words"] or ""
        rest = m["rest"] or ""
        if m["to"]:   # [chapters P3 to P5](self-attention.md)
            last = chapters.get(f"P{m['to']}")
            return f"{words}[#][{label}] to [#][{last}]" if last else m[0]
        return f"[{words}#{rest}][{label}]"
    seg = re.sub(r"\[(?P<words>chapters? )?P\d(?: to P(?P<to>\d))?(?P<rest> [^\]]*)?\]\((?P<page>[\w-]+)\.md\)",
                 chapter_link, seg)
    seg = re.sub(r"\bchapters P(\d) to P(\d)\b",
                 lambda m: (f"chapters [#][{chapters[f'P{m[1]}']}] to [#][{chapters[f'P{m[2]}']}]"
                            if f"P{m[1]}" in chapters and f"P{m[2]}" in chapters else m[0]), seg)
    seg = re.sub(r"\b([Cc]hapter) P(\d)\b",
                 lambda m: f"[{m[1]} #][{chapters[f'P{m[2]}']}]" if f"P{m[2]}" in chapters else m[0], seg)
    seg = re.sub(r"(?<=\| )P(\d)(?= \|)",
                 lambda m: f"[#][{chapters[f'P{m[1]}']}]" if f"P{m[1]}" in chapters else m[0], seg)

    # sections, exercises, mistakes with their word
    def ranged(m: re.Match) -> str:
        a, b = sec(m[2]), sec(m[3])
        return f"{m[1]} [#][{a}] to [#][{b}]" if a and b else m[0]
    seg = re.sub(rf"\b([Ss]ections|[Ee]xercises|[Mm]istakes) ({NUM}) to ({NUM})\b", ranged, seg)

    def worded(m: re.Match) -> str:
        label = sec(m[2])
        return f"[{m[1]} #][{label}]" if label else m[0]
    seg = re.sub(rf"\b([Ss]ection|[Ee]xercise|[Mm]istake) ({NUM})\b(?!\.\d)", worded, seg)

    # bare numbers in parentheses: (3.2), (anisotropic, 4.3)
    seg = re.sub(r"\((\d+\.\d+)\)",
                 lambda m: f"[(#)][{sec(m[1])}]" if sec(m[1]) else m[0], seg)
    seg = re.sub(r"(\([^()\n]*?, )(\d+\.\d+)\)",
                 lambda m: f"{m[1]}[#][{sec(m[2])}])" if sec(m[2]) else m[0], seg)
    return seg


def convert(text: str, numbers: dict[str, str], chapters: dict[str, str]) -> str:
    out = []
    front = re.match(r"---\n.*?\n---\n", text, re.S)
    head = front[0] if front else ""
    body = text[len(head):]
    # a range broken across two lines: "sections 6.3 to\n6.5"
    body = re.sub(rf"\b([Ss]ections|[Ee]xercises|[Mm]istakes) ({NUM}) to\n({NUM})\b",
                  lambda m: (f"{m[1]} [#][{numbers[m[2]]}] to\n[#][{numbers[m[3]]}]"
                             if m[2] in numbers and m[3] in numbers else m[0]), body)
    lines = body.split("\n")
    code = {i for f in pagemodel.parse(body).fences for i in range(f.start, f.end + 1)}
    for i, line in enumerate(lines):
        if i in code:
            out.append(line)
            continue
        if SKIP_LINE.search(line):
            out.append(line)
            continue
        pieces, last = [], 0
        for k in MATH.finditer(line):   # leave math, code and converted references alone
            pieces.append(convert_text(line[last:k.start()], numbers, chapters))
            pieces.append(k[0])
            last = k.end()
        pieces.append(convert_text(line[last:], numbers, chapters))
        out.append("".join(pieces))
    return head + "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if something would")
    args = parser.parse_args()
    numbers, chapters = label_maps()
    changed = 0
    for path in sorted(DOCS.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        new = convert(text, numbers, chapters)
        if new != text:
            changed += 1
            n = sum(a != b for a, b in zip(text.split("\n"), new.split("\n")))
            print(f"{path.relative_to(ROOT)}: {n} lines")
            if not args.check:
                path.write_text(new, encoding="utf-8")
    return 1 if (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
