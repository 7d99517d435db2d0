"""Report on a built site: executed blocks, checks, figures and formulas per page, and the
weight of each page (its HTML plus the CSS, JS and fonts it links to that the site ships).

    python tools/report.py SITE_DIR [--markdown]

Speed and size targets live here and in the notes, not in timed unit tests.
"""

from __future__ import annotations

import argparse
import gzip
import re
from pathlib import Path
from urllib.parse import urljoin, urlparse

ASSET = re.compile(r'<(?:link[^>]+href|script[^>]+src)="([^"#?]+)')
FONT = re.compile(r"url\(([^)]+\.woff2)\)")


def page_weight(site: Path, html_path: Path) -> tuple[int, int, int]:
    """(HTML bytes, linked same-site CSS/JS bytes, math font bytes).

    A page with formulas fetches the math font; one without fetches none."""
    text = html_path.read_text(encoding="utf-8")
    total, fonts = 0, 0
    base = "/" + html_path.relative_to(site).as_posix()
    seen = set()
    for ref in ASSET.findall(text):
        if urlparse(ref).scheme:
            continue
        path = site / urljoin(base, ref).lstrip("/")
        if path.suffix in (".css", ".js") and path.is_file() and path not in seen:
            seen.add(path)
            total += path.stat().st_size
            if "@font-face" in path.read_text(encoding="utf-8") and "<math" in text:
                fonts = sum((path.parent / f).stat().st_size for f in set(FONT.findall(path.read_text())))
    return len(text.encode()), total, fonts


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("site", type=Path)
    args = parser.parse_args()
    rows, totals = [], [0, 0, 0, 0]
    # Material's own files (bundle JS, main CSS) are shared and cached after the first page.
    for path in sorted(args.site.rglob("index.html")):
        text = path.read_text(encoding="utf-8")
        if "md-content" not in text:
            continue
        blocks = len(re.findall(r'class="tabbed-set tabbed-alternate"', text))
        checks = text.count('<div class="esm-check"')
        figures = text.count('<figure class="esm-figure"')
        formulas = text.count('class="math-display"')
        html_b, assets_b, fonts_b = page_weight(args.site, path)
        gz_b = len(gzip.compress(text.encode(), 9, mtime=0))
        for k, v in enumerate((blocks, checks, figures, formulas)):
            totals[k] += v
        rows.append((path.parent.relative_to(args.site).as_posix() or "(home)", blocks, checks, figures,
                     formulas, html_b / 1024, gz_b / 1024, assets_b / 1024, fonts_b / 1024))
    print("| page | demo blocks | checks | figures | display formulas | HTML KB | HTML gzip KB"
          " | CSS+JS KB | math font KB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]:.0f} | {r[6]:.0f} | {r[7]:.0f} | {r[8]:.0f} |")
    print(f"| **total** | {totals[0]} | {totals[1]} | {totals[2]} | {totals[3]} | | | | |")


if __name__ == "__main__":
    main()
