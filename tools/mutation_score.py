"""The score of `make mutate`: killed / total mutants of the helper package snippets/esm/, read
from mutmut's results (mutants/snippets/esm/<module>.py.meta), the survivors listed with their diffs.

A survivor whose mutated line is listed in tests/mutation_equivalent.toml (function and the
mutated line, with the reason it cannot change any result) is reported as judged equivalent;
every other survivor is a gap in the tests. Exits 1 when the score is below 90 % or a mutant
was not checked.

    python tools/mutation_score.py [--all]     # --all: list the equivalent ones too
    python tools/mutation_score.py --gaps      # the mutmut names of the unreviewed survivors (none before a run)
    python tools/mutation_score.py --sample '*7'   # only the mutants whose name matches (fnmatch)

`make mutate` checks a sample (MUTATE_SAMPLE, default ``*7``: every mutant whose number ends in
7, about a tenth of each function's mutants): all 5,000 take hours on two cores, a tenth about
40 minutes. The score then says it is a sample's, with how many of how many.
"""

from __future__ import annotations

import ast
import difflib
import fnmatch
import json
import sys
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "mutants" / "snippets" / "esm"     # mutmut's copy of snippets/esm/, mutated
EQUIVALENT = ROOT / "tests" / "mutation_equivalent.toml"
TARGET = 0.90

STATUS = {1: "killed", 3: "killed", 0: "survived", None: "not checked", 5: "no tests", 33: "no tests",
          36: "timeout", 24: "timeout", -24: "timeout", 152: "timeout", 255: "timeout"}


def mutant_diffs() -> dict[str, tuple[str, str]]:
    """mutmut's key of each mutant (``snippets.esm.<module>.<mangled function>__mutmut_<n>``: two
    modules may have a function of the same name) -> (original line, mutated line), from mutmut's
    mutated modules."""
    funcs = {}
    for path in sorted(PACKAGE.glob("*.py")):
        module = ".".join(path.relative_to(PACKAGE.parents[1]).with_suffix("").parts)
        src = path.read_text(encoding="utf-8")
        lines = src.splitlines()
        tree = ast.parse(src).body
        nodes = tree + [m for c in tree if isinstance(c, ast.ClassDef) for m in c.body]   # methods too
        funcs |= {f"{module}.{n.name}": lines[n.lineno - 1:n.end_lineno]
                  for n in nodes if isinstance(n, ast.FunctionDef)}
    out = {}
    for key, body in funcs.items():
        if "__mutmut_" not in key or key.endswith("__mutmut_orig"):
            continue
        module, _, name = key.rpartition(".")
        base = name.rpartition("__mutmut_")[0]
        orig = funcs[f"{module}.{base}__mutmut_orig"]
        # compare the def lines too (a mutated default value), under one name
        func = base.removeprefix("x_")
        orig = [orig[0].replace(base + "__mutmut_orig(", func + "(", 1)] + orig[1:]
        body = [body[0].replace(name + "(", func + "(", 1)] + body[1:]
        diff = [d for d in difflib.unified_diff(orig, body, lineterm="", n=0)
                if d[:1] in "+-" and d[:3] not in ("+++", "---")]
        minus = " / ".join(d[1:].strip() for d in diff if d[0] == "-")
        plus = " / ".join(d[1:].strip() for d in diff if d[0] == "+")
        out[key] = (minus, plus)
    return out


def main() -> int:
    metas = sorted(PACKAGE.glob("*.py.meta"))
    if not metas:
        if "--gaps" in sys.argv:         # no earlier run: no survivor to examine again
            return 0
        print("no results: run `make mutate` (mutmut run) first")
        return 1
    codes = {key: code for meta in metas
             for key, code in json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"].items()}
    everything = len(codes)
    sample = sys.argv[sys.argv.index("--sample") + 1] if "--sample" in sys.argv else ""
    if sample:
        codes = {key: code for key, code in codes.items() if fnmatch.fnmatch(key, sample)}
    status = {key: STATUS.get(code, "suspicious") for key, code in codes.items()}
    reviewed = tomllib.loads(EQUIVALENT.read_text(encoding="utf-8"))["equivalent"] if EQUIVALENT.exists() else []
    diffs = mutant_diffs()

    def equivalent(key: str) -> str | None:
        func = key.rpartition(".")[2].split("__mutmut_")[0].removeprefix("x_")
        for entry in reviewed:
            if entry["function"] == func and entry["mutant"] == diffs[key][1]:
                return entry["reason"]
        return None

    counts = Counter(status.values())
    total = len(status)
    killed = counts["killed"] + counts["timeout"]
    survivors = sorted((n for n, s in status.items() if s not in ("killed", "timeout")),
                       key=lambda n: (n.split("__mutmut_")[0], int(n.rpartition("_")[2])))
    judged = {n: equivalent(n) if status[n] == "survived" else None for n in survivors}
    gaps = [n for n in survivors if not judged[n]]
    show_all = "--all" in sys.argv
    if "--gaps" in sys.argv:
        # mutmut keeps a survivor's verdict until its function changes: after tests were added,
        # `mutmut run $(python tools/mutation_score.py --gaps)` examines these again.
        print("\n".join(n for n in gaps if status[n] == "survived"))
        return 0
    for name in survivors:
        if judged[name] and not show_all:
            continue
        minus, plus = diffs[name]
        tag = "equivalent" if judged[name] else status[name]
        print(f"{tag:12} {name.removeprefix('snippets.esm.')}\n    - {minus}\n    + {plus}")
        if judged[name]:
            print(f"    why: {judged[name]}")
    score = killed / total if total else 0.0
    n_eq = sum(1 for n in survivors if judged[n])
    if sample:
        print(f"\nA SAMPLE: the {total} mutants of {everything} whose name matches {sample!r}; the score is the sample's")
    print(f"\nmutants of snippets/esm/: {total}; killed {killed} ({counts['timeout']} by timeout); "
          f"survived {counts['survived']}, of which {n_eq} judged equivalent; not checked {counts['not checked']}")
    print(f"mutation score: {killed}/{total} = {score:.1%} killed "
          f"({killed}/{total - n_eq} = {killed / max(total - n_eq, 1):.1%} of the non-equivalent ones)")
    if counts["not checked"] or score < TARGET:
        print(f"FAIL: the target is {TARGET:.0%} killed with every mutant checked")
        return 1
    if gaps:
        print(f"{len(gaps)} survivors are not reviewed as equivalent: add a test that kills them "
              "or list them in tests/mutation_equivalent.toml with the reason")
    return 0


if __name__ == "__main__":
    sys.exit(main())
