"""What a demo printed, as a notebook shows it to a reader: written once, used twice.

The build keeps a block's printed output in its own line protocol (a check's ``PASS [label]
claim — detail``, a published value's ``value name = text  [fmt of exact]``, a folded block
``??? kind "Title"`` with indented lines), which the page renders. A notebook shows a reader
the same output in words:

- a check as ``✓ claim (detail)``;
- the values a demo publishes gathered at the end of its cell in one line, "Quoted in the text:
  name = text, ...", instead of one line each where they were printed (folded when they are many);
- no run of more than one empty line, none at the start of an output or before a figure or table;
- a figure (``<figure>``) as HTML; a Markdown table, a folded block (its title in bold above its
  text) and a fenced block with the paragraph above it (a sample of generated text and its
  label) as Markdown, each one output of its own.

The build applies it to a block's whole output (nbmake.outputs, the outputs a page notebook
ships; nbrun.reader_outputs, the theory notebook's); a reader's kernel applies it to each call
of ``print`` (the setup cell holds this module's source, nbmake.SETUP). The two agree because
every rule works line by line or, for the empty lines and the values, on the stream of
printed text in order (`Flow`), and a figure, a table or a folded block is printed in one call.

This module imports only ``re``: its source runs as it is in a reader's kernel.
"""

import re

#: a folded block's first line (pymdownx.details, or an admonition)
FOLD = re.compile(r'(?:\?\?\?|!!!)\+? [\w-]+(?: "([^"]*)")?$')
#: a Markdown table's rule, the line under its head
TABLE_RULE = re.compile(r"\|(?:\s*:?-+:?\s*\|)+[ \t]*$")
#: a check's line, and a published value's
CHECK = re.compile(r"PASS(?: \[[^\]]*\])? (.*?)(?: — (.*))?$")
VALUE = re.compile(r"value (\w+) = (.*?)(?:  \[[^\[]* of .*\])?$")
#: a cell's quoted values are listed folded when there are more than this many
FOLD_QUOTED = 8
#: under an explorable figure: what a notebook shows of it
EXPLORABLE_NOTE = ("The figure above is interactive on the book's page; a notebook shows its first view. "
                   "To see another, change the demo's settings and run it again.")


def reader_text(text: str) -> str:
    """Printed text in words, line by line: a check's line ``PASS [label] claim — detail`` as
    ``✓ claim (detail)`` (``✓ claim: detail`` after a claim that ends in a parenthesis), a value's line ``value name = text  [fmt of exact]`` as ``name = text``,
    the lone space that print's separator leaves between two such lines as nothing, a folded
    block's first line as its title and a colon, its indented lines unindented."""
    out, folded = [], False
    for line in text.split("\n"):
        if folded and (not line.strip() or line.startswith("    ")):
            line = line[4:]
        else:
            folded = False
            m = FOLD.match(line)
            if m:
                out.append(f"{m[1]}:" if m[1] else "")
                folded = True
                continue
        m = CHECK.match(line)
        if m:                   # a claim that ends in a parenthesis takes its detail after a colon
            line = f"✓ {m[1]}" + ("" if not m[2] else f": {m[2]}" if m[1].endswith(")") else f" ({m[2]})")
        else:
            m = VALUE.match(line)
            if m:
                line = f"{m[1]} = {m[2]}"
            elif line == " ":
                line = ""
        out.append(line)
    return "\n".join(out)


def pieces(text: str) -> list[tuple[str, str]]:
    """``text`` cut into ``(kind, text)`` pieces whose texts join to ``text``: ``figure`` (the
    lines from ``<figure`` to ``</figure>``), ``fold`` (a folded block's first line and the empty
    or indented lines after it), ``table`` (a Markdown table's lines), ``fenced`` (a fenced code
    block with the paragraph right above it and the empty line between), ``text`` the rest."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    if not lines[-1]:
        lines.pop()
    n, spans, i = len(lines), [], 0

    def blank(k: int) -> bool:
        return not lines[k].strip()

    while i < n:
        line = lines[i].rstrip("\n")
        j = None
        if "<figure" in line:
            j = next((k + 1 for k in range(i, n) if "</figure>" in lines[k]), None)
            kind = "figure"
        elif FOLD.match(line):
            j = i + 1
            while j < n and (blank(j) or lines[j].startswith("    ")):
                j += 1
            while j > i + 1 and blank(j - 1):
                j -= 1
            kind = "fold"
        elif line.startswith("|") and i + 1 < n and TABLE_RULE.match(lines[i + 1].rstrip("\n")):
            j = i + 2
            while j < n and lines[j].startswith("|"):
                j += 1
            kind = "table"
        elif line.startswith("```"):
            j = next((k + 1 for k in range(i + 1, n) if lines[k].startswith("```")), None)
            kind = "fenced"
            if j is not None:           # the paragraph above it (its label), and the empty line between
                start, floor = i, spans[-1][1] if spans else 0
                k = i - 1 if i - 1 >= floor and blank(i - 1) else i
                while k - 1 >= floor and not blank(k - 1) and not CHECK.match(lines[k - 1]) \
                        and not VALUE.match(lines[k - 1].rstrip("\n")):
                    k -= 1
                    start = k
                spans.append((start, j, kind))
                i = j
                continue
        if j is None:
            i += 1
            continue
        spans.append((i, j, kind))
        i = j
    out, last = [], 0
    for start, end, kind in spans:
        if start > last:
            out.append(("text", "".join(lines[last:start])))
        out.append((kind, "".join(lines[start:end])))
        last = end
    if last < n:
        out.append(("text", "".join(lines[last:])))
    return out


def bundle(kind: str, text: str) -> dict:
    """The display data of a piece that is not text: a figure as HTML, the rest as Markdown (a
    folded block's title in bold), its plain text as `reader_text` gives it."""
    block = text.rstrip("\n")
    if kind == "figure":
        if 'class="esm-explore"' in block:       # its controls are the site's script: here, its first view
            block += f"\n<p><em>{EXPLORABLE_NOTE}</em></p>"
        return {"text/html": block, "text/plain": block}
    if kind == "fold":
        title, _, body = block.partition("\n")
        m = FOLD.match(title)
        head = f"**{m[1]}**\n" if m and m[1] else ""
        body = "\n".join(line[4:] if line.startswith("    ") else line for line in body.split("\n"))
        return {"text/markdown": head + body, "text/plain": reader_text(block)}
    return {"text/markdown": block, "text/plain": block}


class Flow:
    """The text one cell prints, in order, as a reader sees it: value lines taken out (kept in
    ``values``), checks in words (`reader_text`), no empty line at the start, none before a
    figure or table (`display`), at most one in a row. A line's break is written when the next
    printed text comes, so that the breaks before a display or at the end of the cell are not."""

    def __init__(self) -> None:
        self.held, self.started, self.values = 0, False, []

    def text(self, printed: str) -> str:
        kept = []
        for line in printed.split("\n"):
            m = VALUE.match(line)
            if m:
                self.values.append((m[1], m[2]))
            else:
                kept.append(line)
        out = []
        for part in re.split(r"(\n+)", reader_text("\n".join(kept))):
            if part.startswith("\n"):
                self.held += len(part)
            elif part:
                if self.started:
                    out.append("\n" * min(self.held, 2))
                out.append(part)
                self.held, self.started = 0, True
        return "".join(out)

    def display(self) -> None:
        self.held, self.started = 0, False

    def quoted(self) -> dict | None:
        """The display data of the line that ends the cell: the values it published."""
        if not self.values:
            return None
        plain = "Quoted in the text: " + ", ".join(f"{n} = {t}" for n, t in self.values)
        listed = ", ".join(f"`{n}` = {t}" for n, t in self.values)
        if len(self.values) <= FOLD_QUOTED:
            markdown = "*Quoted in the text:* " + listed
        else:                       # a long list folded: the outputs above it are the lesson
            markdown = (f"<details><summary>Quoted in the text: {len(self.values)} values</summary>\n\n"
                        f"{listed}\n\n</details>")
        return {"text/markdown": markdown, "text/plain": plain}
