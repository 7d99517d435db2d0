"""Lighthouse (pinned in package.json) on one page of each type of a built site, offline.

    python tools/lighthouse.py SITE_DIR [--runs 3] [--pages part1/intuition/ ...] [--json OUT] [--reports DIR]

Serves SITE_DIR on a loopback port as a static host would (gzip for text, a 10-minute cache
lifetime like GitHub Pages), runs Lighthouse's mobile profile (simulated throttling, its
default) in Debian's chromium ($CHROME_PATH, default /usr/bin/chromium) `--runs` times per
page, and prints the median of each column: performance, accessibility, best practices, SEO,
transfer size (everything the page fetched, compressed), LCP, TBT, CLS and Lighthouse's
benchmark index of the host (its CPU power: the default 4x slowdown assumes 1500-2000).
`make lighthouse` builds the site and runs this. Not part of `make test`: scores depend on
the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from screenshot import serve  # noqa: E402  (the one static server of the tests and tools)

LIGHTHOUSE = ROOT / "node_modules" / "lighthouse" / "cli" / "index.js"
#: One page of each type: home, parts 1-3, exercises, primer, notebook, practice.
PAGES = {
    "home": "",
    "part 1": "part1/intuition/",
    "part 2": "part2/training-embeddings/",
    "part 3": "part3/attention-bridge/",
    "exercises": "part3/exercises/",
    "primer": "primer/self-attention/",
    "notebook": "notebook/theory/",
    "practice": "practice/",
}
CATEGORIES = ["performance", "accessibility", "best-practices", "seo"]


def run_once(url: str, chrome: str, multiplier: float | None = None, keep: Path | None = None) -> dict:
    if not LIGHTHOUSE.is_file():
        sys.exit("Lighthouse is not installed: run `npm ci` (make deps) first")
    with tempfile.TemporaryDirectory(prefix="esm-lh-") as tmp:
        out = Path(tmp) / "report.json"
        cmd = ["node", str(LIGHTHOUSE), url, "--quiet", "--output=json", f"--output-path={out}",
               f"--only-categories={','.join(CATEGORIES)}",
               *([f"--throttling.cpuSlowdownMultiplier={multiplier:g}"] if multiplier else []),
               "--chrome-flags=--headless=new --no-sandbox --disable-gpu --no-first-run "
               f"--disable-background-networking --disable-component-update --user-data-dir={tmp}/profile"]
        done = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, CHROME_PATH=chrome))
        if done.returncode != 0 or not out.is_file():
            raise RuntimeError(f"lighthouse failed on {url}:\n{done.stderr[-2000:]}")
        report = json.loads(out.read_text())
        if keep is not None:
            keep.parent.mkdir(parents=True, exist_ok=True)
            keep.write_text(out.read_text())
    if report.get("runtimeError"):
        raise RuntimeError(f"lighthouse on {url}: {report['runtimeError']}")
    audits = report["audits"]
    row = {c: round(100 * (report["categories"][c]["score"] or 0)) for c in CATEGORIES}
    row["kb"] = audits["total-byte-weight"]["numericValue"] / 1024
    row["lcp"] = audits["largest-contentful-paint"]["numericValue"] / 1000
    row["tbt"] = audits["total-blocking-time"]["numericValue"]
    row["cls"] = audits["cumulative-layout-shift"]["numericValue"]
    row["cpu"] = report["environment"]["benchmarkIndex"]
    row["failed"] = sorted(k for c in CATEGORIES for ref in report["categories"][c]["auditRefs"]
                           if ref["weight"] and (audits[k := ref["id"]].get("score") is not None)
                           and audits[k]["score"] < 0.9)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pages", nargs="*", help="site-relative URLs (default: one of each type)")
    parser.add_argument("--json", type=Path, help="also write every run's numbers here")
    parser.add_argument("--reports", type=Path,
                        help="keep each run's full Lighthouse report here (DIR/<page>-<run>.json: diagnostics)")
    parser.add_argument("--cpu-multiplier", type=float,
                        help="Lighthouse's CPU slowdown (default 4, meant for a host with a benchmark index of "
                             "1500-2000; docs/throttling.md of Lighthouse suggests less on a slower or loaded host)")
    args = parser.parse_args()
    chrome = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
    if not Path(chrome).is_file():
        sys.exit(f"chromium not found at {chrome}: as root run `apt-get install -y chromium`, or set CHROME_PATH")
    pages = {p or "home": p for p in args.pages} if args.pages else PAGES
    server, base = serve(args.site, max_age=600)   # GitHub Pages' cache lifetime
    load = os.getloadavg()[0]
    runs: dict[str, list[dict]] = {}
    try:
        for name, rel in pages.items():
            runs[name] = []
            for k in range(args.runs):
                keep = args.reports / f"{rel.strip('/').replace('/', '-') or 'home'}-{k + 1}.json" if args.reports else None
                runs[name].append(run_once(base + rel, chrome, args.cpu_multiplier, keep))
                r = runs[name][-1]
                print(f"{name} run {k + 1}: performance {r['performance']}, TBT {r['tbt']:.0f} ms, "
                      f"{r['kb']:.0f} KiB", file=sys.stderr, flush=True)
    finally:
        server.shutdown()
    print(f"Lighthouse mobile, simulated throttling (CPU x{args.cpu_multiplier or 4:g}), median of {args.runs}; "
          f"load average {load:.1f} at start")
    print("| page | URL | performance | accessibility | best practices | SEO | transfer KiB | LCP s | TBT ms"
          " | CLS | CPU index | audits < 0.9 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, rows in runs.items():
        med = {k: statistics.median(r[k] for r in rows) for k in ("kb", "lcp", "tbt", "cls", "cpu", *CATEGORIES)}
        failed = sorted({a for r in rows for a in r["failed"]})
        print(f"| {name} | /{pages[name]} | {med['performance']:.0f} | {med['accessibility']:.0f} | "
              f"{med['best-practices']:.0f} | {med['seo']:.0f} | {med['kb']:.0f} | {med['lcp']:.1f} | "
              f"{med['tbt']:.0f} | {med['cls']:.3f} | {med['cpu']:.0f} | {', '.join(failed) or '-'} |")
    if args.json:
        args.json.write_text(json.dumps(runs, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
