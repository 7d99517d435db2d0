"""`make pdf`: the whole book as one PDF, with an outline and page numbers.

    python tools/pdf.py                    # builds with mkdocs-pdf.yml, writes book.pdf
    python tools/pdf.py --site DIR -o X.pdf  # print an existing mkdocs-pdf.yml build

mkdocs-print-site-plugin assembles every page of the nav into ``print_page/`` (math already
rendered to MathML, figures inline SVG); Debian's Chromium, driven by Playwright, prints it
with the print stylesheet and an outline from the headings, part by part (see _CHUNKS),
then numbers the pages "N / M".
The page is served on a loopback port: nothing is fetched from outside.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from screenshot import find_chromium  # noqa: E402  (the tests' one lookup: $CHROMIUM, PATH, Debian's)
FOOTER = ('<div style="font-size:8px;width:100%;text-align:center;color:#666">'
          '<span class="pageNumber"></span> / <span class="totalPages"></span></div>')


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def build(site: Path) -> None:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    cmd = [str(ROOT / ".venv" / "bin" / "mkdocs"), "build", "--strict", "--clean",
           "-f", str(ROOT / "mkdocs-pdf.yml"), "-d", str(site)]
    subprocess.run(cmd, cwd=ROOT, check=True, env=env)


def check(site: Path) -> None:
    """The print page holds every formula whole: each MathML formula with its content (a hook
    that held it out of page.content and never put it back printed a book without formulas)."""
    html = (site / "print_page" / "index.html").read_text(encoding="utf-8")
    formulas = html.count("<math")
    visual = len(re.findall(r"<math\b[^>]*>\s*<(?!/math)", html))
    if "<esm-x " in html or formulas == 0 or visual != formulas:
        raise SystemExit(f"the print page is incomplete: {formulas} formulas, {visual} with their content, "
                         f"{html.count('<esm-x ')} placeholders of mkdocs_esm/search.py left")


#: Chromium stops printing a very long document early (the ~420-page book ended at page 223,
#: mid-primer): print it part by part, hiding the others, and join the parts with pypdf.
_CHUNKS = """() => {
  const all = [...document.querySelectorAll('section.print-page')];
  const chunks = [[]];
  for (const s of all) {
    if (s.parentElement.closest('section.print-page:not(.md-section)')) continue;
    if ((s.classList.contains('md-section') || s.id === 'notebook-theory') && chunks.at(-1).length) chunks.push([]);
    chunks.at(-1).push(s);
  }
  window.__esmChunks = chunks;
  return chunks.length;
}"""
_SHOW = """(k) => {
  window.__esmChunks.forEach((chunk, i) => chunk.forEach(s => { s.style.display = i === k ? '' : 'none'; }));
}"""


def render(site: Path, out: Path) -> None:
    from playwright.sync_api import sync_playwright
    from pypdf import PdfReader, PdfWriter
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    margin = {"top": "16mm", "bottom": "18mm", "left": "14mm", "right": "14mm"}
    work = Path(tempfile.mkdtemp(prefix="esm-pdf-parts-"))
    writer = PdfWriter()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=find_chromium())
            page = browser.new_page()
            outside = []
            page.on("request", lambda r: outside.append(r.url) if not r.url.startswith((base, "data:")) else None)
            page.goto(base + "print_page/", wait_until="networkidle", timeout=300_000)
            chunks = page.evaluate(_CHUNKS)
            page.evaluate(_SHOW, 0)          # before print media: the others are not restyled for it
            page.emulate_media(media="print")
            for k in range(chunks):
                page.evaluate(_SHOW, k)
                part = work / f"part{k:02d}.pdf"
                page.pdf(path=str(part), format="A4", print_background=True, outline=True, tagged=True,
                         margin=margin)
                writer.append(str(part), import_outline=True)
            # page numbers: one blank page per book page, numbered by Chromium, laid over the book
            total = len(writer.pages)
            numbers = work / "numbers.pdf"
            page.set_content("<style>div{break-after:page;height:1px}</style>" + "<div></div>" * total)
            page.pdf(path=str(numbers), format="A4", display_header_footer=True,
                     header_template="<span></span>", footer_template=FOOTER, margin=margin)
            browser.close()
        if outside:
            raise SystemExit(f"the print page requested addresses outside the site: {outside[:5]}")
        for book_page, number in zip(writer.pages, PdfReader(str(numbers)).pages):
            book_page.merge_page(number)
        writer.write(str(out))
    finally:
        server.shutdown()
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="an existing build made with mkdocs-pdf.yml")
    parser.add_argument("-o", "--out", type=Path, default=ROOT / "book.pdf")
    args = parser.parse_args()
    # the print build (~20 MB) is not kept
    with contextlib.nullcontext() if args.site else tempfile.TemporaryDirectory(prefix="esm-pdf-") as tmp:
        site = args.site or Path(tmp)
        if not args.site:
            build(site)
        check(site)
        render(site, args.out)
    from pypdf import PdfReader
    reader = PdfReader(str(args.out))
    print(f"{args.out}: {len(reader.pages)} pages, {len(reader.outline)} top-level outline entries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
