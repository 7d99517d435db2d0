"""Measurements are data: the tools that measure append them, one JSON line each, to
``.cache/measurements.jsonl`` (kept out of git with the rest of ``.cache/``; ``MEASUREMENTS=path``
moves it, ``MEASUREMENTS=`` with no path turns it off).

    python tools/measurements.py              # the latest line of each tool and label, as text
    python tools/measurements.py --all bench  # every line of one tool

Each line holds ``tool`` (bench, lighthouse, timed, portable), ``label`` (what was measured:
``make test``, a page, ...), ``time`` (UTC), ``commit`` (``git describe --always --dirty``),
``host`` (CPUs, load average at the end; the CPU index where the tool measured it) and the
tool's own figures. docs/dev/budgets.md names the figure each budget reads; a figure that moves
is written there by hand, with the line it came from.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / ".cache" / "measurements.jsonl"


def path() -> Path | None:
    where = os.environ.get("MEASUREMENTS")
    if where is None:
        return DEFAULT
    return Path(where) if where else None


def _commit() -> str:
    done = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else "unknown"


def record(tool: str, label: str, figures: dict, **host) -> dict | None:
    """Append one measurement; return it (None when measurements are turned off)."""
    target = path()
    if target is None:
        return None
    line = {"tool": tool, "label": label,
            "time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "commit": _commit(),
            "host": {"cpus": os.cpu_count(), "load": round(os.getloadavg()[0], 2), **host},
            **figures}
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line, sort_keys=False) + "\n")
    return line


def read(source: Path | None = None) -> list[dict]:
    """Every measurement of ``source`` (default: where ``record`` writes), oldest first; a line
    that is not JSON (a run cut short while writing) is skipped."""
    source = source or path()
    if source is None or not source.is_file():
        return []
    out = []
    for text in source.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(text))
        except json.JSONDecodeError:
            continue
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", metavar="TOOL", help="every line of TOOL, not only the latest of each label")
    parser.add_argument("--file", type=Path, help="another measurements file (a CI artifact)")
    args = parser.parse_args()
    lines = read(args.file)
    if args.all:
        chosen = [m for m in lines if m.get("tool") == args.all]
    else:
        latest: dict[tuple, dict] = {}
        for m in lines:
            latest[(m.get("tool"), m.get("label"))] = m
        chosen = list(latest.values())
    if not chosen:
        print(f"no measurements in {args.file or path()}", file=sys.stderr)
        return 1
    for m in chosen:
        print(json.dumps(m))
    return 0


if __name__ == "__main__":
    sys.exit(main())
