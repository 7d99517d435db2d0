"""Lighthouse (pinned in package.json) on one page of each type of a built site, offline.

    python tools/lighthouse.py SITE_DIR [SITE_DIR ...] [--runs 3] [--pages part1/intuition/ ...]
                               [--cpu-multiplier auto|N] [--json OUT] [--reports DIR]

Serves SITE_DIR on a loopback port as a static host would (gzip for text, a 10-minute cache
lifetime like GitHub Pages), runs Lighthouse's mobile profile (simulated throttling, its
default) in Debian's chromium ($CHROME_PATH, default /usr/bin/chromium) `--runs` times per
page, and prints the median of each column: performance, accessibility, best practices, SEO,
transfer size (everything the page fetched, compressed), LCP, TBT, CLS and Lighthouse's
benchmark index of the host (its CPU power).

Calibration (the default, `--cpu-multiplier auto`): Lighthouse's 4x CPU slowdown is meant to
turn a host of benchmark index 1500-2000 (its "high-end desktop" class) into a mid-tier phone;
its throttling guide (docs/throttling.md, "Calibrating the CPU slowdown") says to take a higher
multiplier on a faster host and a lower one on a slower host. A first round of runs on the home
page reads the host's index (median of three); the multiplier is then 4 x index / 1750 (the
middle of the range), so that the simulated device is the one the default stands for. The index
and the multiplier are printed with every table, and each row keeps the index of its own runs.

Several sites (variants of one build) are measured side by side: runs are interleaved, run k of
every page of every site before run k + 1, so that the host's load falls on them alike.
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

import measurements

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from screenshot import serve  # noqa: E402  (the one static server of the tests and tools)

LIGHTHOUSE = ROOT / "node_modules" / "lighthouse" / "cli" / "index.js"
#: One page of each type: home, parts 1-3, exercises, primer, notebook, practice, a reference
#: page (the full notation table: long tables of formulas) and the not-found page (a template).
PAGES = {
    "home": "",
    "part 1": "part1/intuition/",
    "part 2": "part2/training-embeddings/",
    "part 3": "part3/attention-bridge/",
    "exercises": "part3/exercises/",
    "primer": "primer/self-attention/",
    "notebook": "notebook/theory/",
    "practice": "practice/",
    "reference": "notation-full/",
    "not found": "404.html",
}
CATEGORIES = ["performance", "accessibility", "best-practices", "seo"]
#: The middle of the benchmark index range that Lighthouse's default 4x slowdown is calibrated for.
CALIBRATED_INDEX, DEFAULT_MULTIPLIER = 1750, 4.0


def multiplier_for(index: float) -> float:
    """The CPU slowdown that puts a host of this benchmark index where 4x puts a host of 1750."""
    return round(max(1.0, DEFAULT_MULTIPLIER * index / CALIBRATED_INDEX), 1)


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


def calibrate(base: str, chrome: str, runs: int = 3) -> tuple[float, float]:
    """The host's benchmark index (median of ``runs`` default runs of ``base``) and its multiplier."""
    indices = []
    for _ in range(runs):
        indices.append(run_once(base, chrome)["cpu"])
        print(f"calibration: benchmark index {indices[-1]:.0f}", file=sys.stderr, flush=True)
    index = statistics.median(indices)
    return index, multiplier_for(index)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sites", type=Path, nargs="+", help="built sites, measured side by side")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pages", nargs="*", help="site-relative URLs (default: one of each type)")
    parser.add_argument("--json", type=Path, help="also write every run's numbers here")
    parser.add_argument("--reports", type=Path,
                        help="keep each run's full Lighthouse report here (DIR/<page>-<run>.json: diagnostics)")
    parser.add_argument("--cpu-multiplier", default="auto",
                        help="Lighthouse's CPU slowdown: 'auto' (the default) calibrates it from the host's "
                             "benchmark index, 4 x index / 1750; a number sets it")
    args = parser.parse_args()
    chrome = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
    if not Path(chrome).is_file():
        sys.exit(f"chromium not found at {chrome}: as root run `apt-get install -y chromium`, or set CHROME_PATH")
    pages = {p or "home": p for p in args.pages} if args.pages else PAGES
    names = [s.name if len(args.sites) > 1 else "" for s in args.sites]
    served = [serve(site, max_age=600) for site in args.sites]   # GitHub Pages' cache lifetime
    load = os.getloadavg()[0]
    runs: dict[tuple[str, str], list[dict]] = {(n, page): [] for page in pages for n in names}
    try:
        if args.cpu_multiplier == "auto":
            index, multiplier = calibrate(served[0][1], chrome)
        else:
            index, multiplier = None, float(args.cpu_multiplier)
        for k in range(args.runs):
            for page, rel in pages.items():
                for name, (_, base) in zip(names, served):
                    slug = "-".join(x for x in (name, rel.strip("/").replace("/", "-") or "home") if x)
                    keep = args.reports / f"{slug}-{k + 1}.json" if args.reports else None
                    r = run_once(base + rel, chrome, multiplier, keep)
                    runs[(name, page)].append(r)
                    print(f"{name + ' ' if name else ''}{page} run {k + 1}: performance {r['performance']}, "
                          f"TBT {r['tbt']:.0f} ms, {r['kb']:.0f} KiB, index {r['cpu']:.0f}", file=sys.stderr, flush=True)
    finally:
        for server, _ in served:
            server.shutdown()
    calibration = (f"host benchmark index {index:.0f} (median of 3 calibration runs), CPU multiplier "
                   f"{multiplier:g} = 4 x {index:.0f} / {CALIBRATED_INDEX}" if index is not None
                   else f"CPU multiplier {multiplier:g} (given)")
    print(f"Lighthouse mobile, simulated throttling; {calibration}; median of {args.runs}; "
          f"load average {load:.1f} at start, {os.getloadavg()[0]:.1f} at end")
    variant = "variant | " if len(args.sites) > 1 else ""
    print(f"| {variant}page | URL | performance | accessibility | best practices | SEO | transfer KiB | LCP s | TBT ms"
          " | CLS | CPU index | audits < 0.9 |")
    print("|---" * (12 + bool(variant)) + "|")
    for (name, page), rows in runs.items():
        med = {k: statistics.median(r[k] for r in rows) for k in ("kb", "lcp", "tbt", "cls", "cpu", *CATEGORIES)}
        failed = sorted({a for r in rows for a in r["failed"]})
        print(f"| {name + ' | ' if variant else ''}{page} | /{pages[page]} | {med['performance']:.0f} | "
              f"{med['accessibility']:.0f} | {med['best-practices']:.0f} | {med['seo']:.0f} | {med['kb']:.0f} | "
              f"{med['lcp']:.1f} | {med['tbt']:.0f} | {med['cls']:.3f} | {med['cpu']:.0f} | {', '.join(failed) or '-'} |")
    measurements.record("lighthouse", " ".join(str(s) for s in args.sites), {
        "runs": args.runs, "multiplier": multiplier,
        "pages": {f"{n} {p}".strip(): {k: statistics.median(r[k] for r in rows)
                                      for k in ("kb", "lcp", "tbt", "cls", "cpu", *CATEGORIES)}
                  for (n, p), rows in runs.items()}},
        cpu_index=index, load_start=round(load, 2))
    if args.json:
        args.json.write_text(json.dumps({"index": index, "multiplier": multiplier,
                                         "runs": {f"{n} {p}".strip(): r for (n, p), r in runs.items()}}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
