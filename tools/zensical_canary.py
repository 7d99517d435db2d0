"""`make zensical-canary`: build the site with the current Zensical release and report.

    python3 tools/zensical_canary.py

Makes ``.zensical-venv/`` (Zensical plus what the demos import; never the project's .venv),
runs ``zensical build`` on mkdocs.yml into ``zensical-site/``, and prints what works and what
does not: pages, executed demos (markdown-exec), math rendering and equation numbers
(mkdocs_esm/mathml.py), cross-references and citations (mkdocs_esm/xref.py, mkdocs_esm/cite.py, autorefs),
the theory notebook (mkdocs-jupyter), search, learner features (mkdocs_esm/skillchecks.py, notes.py, reading.py). Not part
of `make test`: it reports, it does not fail on what Zensical lacks.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".zensical-venv"
SITE = ROOT / "zensical-site"
CHECK, MATH, RAW, EQ = 'class="esm-check', '<math', 'class="arithmatex"', 'id="eq-'
XREF, CITE = r"\[[^\]]*#[^\]]*\]\[[a-z]", r"\[-?@[a-z]"
PACKAGES = ["zensical", "markdown-exec", "pymdown-extensions", "numpy", "matplotlib"]


def run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], cwd=ROOT, capture_output=True, text=True, **kw)


def main() -> int:
    if not (VENV / "bin" / "python").exists():
        run([sys.executable, "-m", "venv", VENV]).check_returncode()
    done = run([VENV / "bin" / "pip", "install", "--quiet", "--upgrade", *PACKAGES])
    if done.returncode:
        print(done.stderr[-2000:])
        return 1
    version = run([VENV / "bin" / "python", "-c", "import importlib.metadata as m; print(m.version('zensical'))"]).stdout.strip()
    # Zensical's YAML loader knows neither `!relative` nor `!ENV` (mkdocs.yml uses both): build
    # from a copy with those two values written out, and report it.
    source = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    tags = sorted(set(re.findall(r"!(relative|ENV)\b", source)))
    config = ROOT / ".zensical-mkdocs.yml"
    written = re.sub(r"!ENV \[\w+, ([^\]]*)\]", r"\1", source)      # each variable's default
    config.write_text(re.sub(r"!relative \$config_dir/", "", written), encoding="utf-8")
    start = time.perf_counter()
    build = run([VENV / "bin" / "zensical", "build", "--clean", "-f", config.name],
                env={"PATH": f"{VENV / 'bin'}:/usr/bin:/bin", "HOME": str(Path.home()),
                     "PYTHONPATH": str(ROOT / "snippets"), "MPLBACKEND": "Agg",
                     "NO_COLOR": "1"})
    seconds = time.perf_counter() - start
    log = re.sub(r"\x1b\[[0-9;]*m", "", build.stdout + build.stderr)
    built = ROOT / "site"
    if built.is_dir():   # Zensical writes site_dir (site/): move it aside so `make build` owns site/
        if SITE.exists():
            subprocess.run(["rm", "-rf", str(SITE)], check=True)
        built.rename(SITE)
    pages = sorted(SITE.rglob("index.html")) if SITE.is_dir() else []
    html = {p.relative_to(SITE).as_posix(): p.read_text(encoding="utf-8", errors="replace") for p in pages}
    text = "\n".join(html.values())
    plain_checks = len(re.findall(r"(?m)^PASS\b", text))

    def page(name: str) -> str:
        return html.get(name, "")

    rows = [
        ("mkdocs.yml read as it is", not tags, f"YAML tags {', '.join('!' + t for t in tags)} not understood; "
         "built from .zensical-mkdocs.yml with them written out" if tags else ""),
        ("build exits 0", build.returncode == 0, f"rc {build.returncode}, {seconds:.0f} s"),
        ("pages written", len(pages) > 20, f"{len(pages)} index.html"),
        # the demos print plain PASS lines; the esm plugin makes them check lines (class esm-check)
        ("executed demos (markdown-exec)", plain_checks + text.count(CHECK) > 0,
         f"{plain_checks} PASS lines printed, {text.count(CHECK)} made check lines (the esm plugin's work)"),
        ("math rendered to MathML at build time (mkdocs_esm/mathml.py)", MATH in text,
         f"{text.count(MATH)} MathML formulas, {text.count(RAW)} raw arithmatex"),
        ("equation numbers and anchors", 'id="eq-' in text, f"{text.count(EQ)} #eq- anchors"),
        ("cross-references numbered (mkdocs_esm/xref.py + autorefs)", "autorefs-internal" in text,
         f"{len(re.findall(XREF, text))} unresolved [..#..][label] left as text"),
        ("citations and bibliography (mkdocs_esm/cite.py)", "references/index.html" in html,
         f"{len(re.findall(CITE, text))} raw [@key] left"),
        ("theory notebook page (mkdocs-jupyter)", "notebook/theory/index.html" in html, ""),
        ("search index", any(SITE.glob("search*/*.json")) or (SITE / "search.json").exists(), ""),
        ("learner features (mkdocs_esm/notes.py, skillchecks.py)", "esm-notes" in text, ""),
        ("Temml's CSS and the math font shipped", (SITE / "assets/math/temml.min.css").exists(), ""),
        ("failed blocks fail the build (mkdocs_esm/execution.py)", False,
         "hooks are not run: a failing demo would be published"),
    ]
    print(f"# Zensical canary: zensical {version or '?'}\n")
    for name, ok, detail in rows:
        print(f"- [{'x' if ok else ' '}] {name}" + (f": {detail}" if detail else ""))
    warnings = sorted({line.strip() for line in log.splitlines() if re.match(r"\s*(Warning|Error)\b", line)})
    counts = {w: log.count(w) for w in warnings}
    print("\nZensical's own warnings:\n\n" + "\n".join(f"- {w} ({n})" for w, n in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
