"""What executed code prints, turned into the page's markup: check lines and published values.

The helpers (snippets/esm) print one plain format wherever they run (a build, a notebook, a
terminal):

- a check: ``PASS [label] claim — detail`` (the ``[label]`` names the display formula the check
  verifies, if any; the claim holds no " — "); a failing check raises instead of printing;
- a published value: ``value name = text  [fmt of json]``, where ``text`` is the value as its
  format prints it and ``json`` the exact value (``{{name:other}}`` in the prose formats it again).

The plugin does not read those lines back: each helper also raises a record (the audit events
``esm.check`` and ``esm.value``: ``RECORD_EVENTS``, ``record``), which the build hears with the
place its line was printed: a block's runner with the ``print`` that wrote it
(execution.run_block), the theory notebook's kernel as an output of its own, in order with the
printed text (nbmake.RECORDER, nbrun.text_areas); the cache keeps the records with the output.
One pairing serves both: ``find_line`` finds a record's line in what was printed, ``place``
gives it the index of the output line it stands on, ``arrange`` says where each goes (a record
printed nowhere whole still counts: a check joins the output's folded checks, a value gets its
marker at the end). Each check record becomes the site's check line (a ``div.esm-check`` whose
equation tag mathml.py numbers and links) and each value record the marker that glue.py reads
and takes out of the page (``@@glue:<hex of JSON>@@``), in place of the line it was printed on:
``for_page`` for a block, nbpage.outputs for the theory notebook (its readable value text kept).
Everything else is left as printed: the lines esm prints are for a reader (a notebook, a
terminal), and the build never reads them back (tests/printed.py does, to compare the routes).

The check lines of one output are folded (``fold``): they stand together, where the first of
them stood, in a ``<details class="success esm-checks">`` (Material's green tick) closed by default, whose summary says how many
passed and which formulas they verify ("9 checks passed: (6.1), (6.3)"). A reader sees the
demo's output and one line; the lines are one click away, and a failing check still fails the
build (it raises before anything is printed).
"""

from __future__ import annotations

import html
import json

#: the audit events esm's helpers raise for a passed check and a published value (snippets/esm/),
#: with the names of their arguments
RECORD_EVENTS = {"esm.check": ("line", "claim", "detail", "eq"), "esm.value": ("line", "name", "value", "fmt", "text")}


def record(event: str, args) -> dict:
    """The record of one of those events: its arguments by name, and its kind (check, value)."""
    return dict(zip(RECORD_EVENTS[event], args), kind=event[4:])


def find_line(text: str, line: str, start: int, taken: set[int], base: int = 0) -> int | None:
    """Where a record's ``line`` stands in ``text``, from ``start`` on, at an offset (``base`` +
    its index in ``text``) that no other record took; None if nowhere."""
    i = text.find(line, start)
    while i >= 0 and base + i in taken:
        i = text.find(line, i + 1)
    return None if i < 0 else base + i


def place(output: str, records: list[dict], at: dict[int, int]) -> list[dict]:
    """The records, each with the index of the line of ``output`` it stands on in place of its
    own line's text (None: not printed whole). ``at``: by record index, the offset in ``output``
    where that record's line was printed (``find_line``)."""
    lines = output.split("\n")
    out = []
    for k, rec in enumerate(records):
        text = rec["line"]
        line = None
        if k in at:
            lead = len(text) - len(text.lstrip("\n"))
            n = output.count("\n", 0, at[k]) + lead
            if n < len(lines) and lines[n] == text.strip("\n"):
                line = n
        out.append({**rec, "line": line})
    return out


def arrange(lines: list, records: list[dict]) -> tuple[list[tuple], int | None, list[tuple[int | None, dict]]]:
    """Where an output's records go (``place``d on its ``lines``, which this edits): each check
    line taken out (None) and its check, ``(claim, detail, eq)``, returned in the output's order
    with the index where the first stood (None when none was printed whole), then the checks
    printed nowhere; and each value record with the index of its line, in the output's order,
    then those printed nowhere (index None). A line is one record's: the first to name it."""
    taken: set[int] = set()
    checks: list[tuple] = []
    values: list[tuple[int | None, dict]] = []
    first = None
    for r in sorted((r for r in records if r["line"] is not None), key=lambda r: r["line"]):
        k = r["line"]
        if k in taken:
            continue
        taken.add(k)
        if r["kind"] == "check":
            checks.append((r["claim"], r["detail"], r["eq"]))
            first = k if first is None else first
            lines[k] = None
        else:
            values.append((k, r))
    checks += [(r["claim"], r["detail"], r["eq"]) for r in records if r["line"] is None and r["kind"] == "check"]
    values += [(None, r) for r in records if r["line"] is None and r["kind"] == "value"]
    return checks, first, values


def _literal(text: str) -> str:
    """Escape text for HTML that Markdown may still parse (inside tabs): ``a*b*c`` and
    backticks stay literal instead of turning into emphasis or code."""
    return html.escape(text).replace("*", "&#42;").replace("_", "&#95;").replace("`", "&#96;")


def check_html(claim: str, detail: str, eq: str | None) -> str:
    """The site's line for a passed check."""
    ref = data = ""
    if eq:
        # mathml.py replaces the text of .esm-eqref with the formula's number.
        ref = f' <a class="esm-eqref" href="#eq-{html.escape(eq)}">[{html.escape(eq)}]</a>'
        data = f' data-eq="{html.escape(eq)}"'
    tail = f": <code>{_literal(detail)}</code>" if detail else ""
    return f'<div class="esm-check"{data}><strong>PASS</strong>{ref} {_literal(claim)}{tail}</div>\n'


def fold(checks: list[tuple[str, str, str | None]]) -> str:
    """The check lines of one output, ``(claim, detail, eq)`` each, as one closed ``<details>``:
    its summary counts them and names each formula they verify once, in order of first mention
    (mathml.py writes its number; plain text, since a link inside the summary, itself a control,
    would be a control nested in another; the lines inside link their formulas)."""
    eqs = list(dict.fromkeys(eq for _, _, eq in checks if eq))
    refs = ", ".join(f'<span class="esm-eqref" data-eq="{html.escape(eq)}">[{html.escape(eq)}]</span>' for eq in eqs)
    n = len(checks)
    head = f"{n} check{'s' if n != 1 else ''} passed" + (f": {refs}" if refs else "")
    lines = "".join(check_html(*c) for c in checks)
    return (f'<details class="success esm-checks"><summary>{head}</summary>\n'
            f'<div class="esm-checks-body">\n{lines}</div>\n</details>\n')


def marker(name: str, value, fmt: str) -> str:
    """The marker glue.py reads: the value under its name, with its format."""
    payload = json.dumps({"name": name, "value": value, "fmt": fmt}, sort_keys=True)
    return f"@@glue:{payload.encode().hex()}@@"


def value_line(name: str, text: str, value, fmt: str, readable: bool) -> str:
    """A value line as the page holds it: the marker (and, ``readable``, the text before it)."""
    mark = marker(name, value, fmt)
    return f"value {name} = {text}\n\n{mark}" if readable else mark


def for_page(output: str, records: list[dict]) -> str:
    """``output`` with its check lines folded into one ``<details>`` where the first stood
    (``fold``) and its value lines as markers, from ``records``: the checks and values the build's
    runner heard while the block ran (execution.run_block), each with the output line it was
    printed on (``place``). The printed lines are never read back. Those lines are replaced, in
    the output's order. A record printed nowhere whole is not lost (``arrange``): a check joins
    the block's folded checks (which stand at the end of the output if none was printed), a value
    is published by a marker at the end of the output."""

    if not records:
        return output
    lines: list[str | None] = output.split("\n")
    checks, first, values = arrange(lines, records)
    tail = []
    for k, r in values:
        if k is None:
            tail.append(marker(r["name"], r["value"], r["fmt"]))
        else:
            lines[k] = value_line(r["name"], r["text"], r["value"], r["fmt"], False)
    if checks:
        if first is None:
            lines.append(fold(checks))
        else:
            lines[first] = fold(checks)
    if tail:
        lines.append("\n".join(tail) + "\n")
    return "\n".join(line for line in lines if line is not None)
