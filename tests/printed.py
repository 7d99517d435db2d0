"""The lines esm prints, read back from the text: a second route to the records the build hears.

The build never reads printed lines (mkdocs_esm/output.py takes the records esm raises as audit
events). The tests read them here, to make a page from what a helper printed without running it
under the build's runner, and to compare the two routes (tests/test_records.py).
"""

from __future__ import annotations

import json
import re

from mkdocs_esm import output

#: ``PASS [label] claim — detail``. The claim ends at the first " — " (a claim holds none).
CHECK = re.compile(r"^PASS(?: \[(?P<eq>[^\]]+)\])? (?P<claim>.*?) — (?P<detail>.*)$")
#: ``value name = text  [fmt of json]``: the name; the rest is split by ``parse_value``
VALUE = re.compile(r"^value (?P<name>[A-Za-z][A-Za-z0-9_]*) = (?P<rest>.*\])$")
_BRACKET = re.compile(r"(?P<fmt>[^\]]*?) of (?P<json>.*)\]")


def _formatted(value, fmt: str) -> str:
    if isinstance(value, list):
        return "(" + ", ".join(format(x, fmt) for x in value) + ")"
    return format(value, fmt)


def parse_value(line: str) -> tuple[str, str, object, str] | None:
    """(name, text, value, fmt) of a value line, or None. The text may hold anything, so the
    bracket is the last ``"  ["`` whose inside is a format and a JSON value that prints as the text."""
    m = VALUE.match(line)
    if m is None:
        return None
    rest = m["rest"]
    at = rest.rfind("  [")
    while at >= 0:
        b = _BRACKET.fullmatch(rest, at + 3)
        if b is not None:
            try:
                value = json.loads(b["json"])
                if _formatted(value, b["fmt"]) == rest[:at]:
                    return m["name"], rest[:at], value, b["fmt"]
            except (ValueError, TypeError):
                pass
        at = rest.rfind("  [", 0, at)
    return None


def records_of(printed: str) -> list[dict]:
    """The records of the check and value lines of ``printed``, each on the line it stands on."""
    records = []
    for k, line in enumerate(printed.split("\n")):
        if line.startswith("PASS") and (m := CHECK.match(line)):
            records.append({"kind": "check", "line": k, "claim": m["claim"], "detail": m["detail"], "eq": m["eq"]})
        elif line.startswith("value ") and (v := parse_value(line)):
            name, text, value, fmt = v
            records.append({"kind": "value", "line": k, "name": name, "value": value, "fmt": fmt, "text": text})
    return records


def for_page(printed: str) -> str:
    """The page's markup of ``printed`` (output.for_page), its records read from its lines."""
    return output.for_page(printed, records_of(printed))
