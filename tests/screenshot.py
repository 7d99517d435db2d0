"""Screenshots of built pages in Debian's chromium, light and dark, to look at.

    python tests/screenshot.py SITE_DIR part1/intuition/ [more pages] -o /tmp/shots

Serves SITE_DIR on a free loopback port, opens each page in headless chromium (through
Python playwright, no browser download) in both colour schemes, and writes full-page PNGs.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import io
import os
import shutil
import threading
from pathlib import Path
from urllib.parse import urlsplit


def find_chromium(*, headless_shell: bool = False) -> str | None:
    """The Chromium the tests and tools drive: $CHROMIUM, else chromium on PATH, else Debian's
    /usr/bin/chromium (what `make test` installs); None when there is none. With
    ``headless_shell`` (the browser tests), Debian's chromium-headless-shell comes before
    chromium: the same Blink and V8 without the full browser (Playwright's own default for
    headless runs), it loads a page with less than half the CPU (README, Tests)."""
    shells = (shutil.which("chromium-headless-shell"), "/usr/bin/chromium-headless-shell") if headless_shell else ()
    for candidate in (os.environ.get("CHROMIUM"), *shells, shutil.which("chromium"), "/usr/bin/chromium"):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


#: The files served gzip-compressed: text, as static hosts compress it.
COMPRESSIBLE = (".html", ".css", ".js", ".json", ".svg", ".xml", ".txt", ".ipynb", ".map")


def serve(site: Path, *, max_age: int | None = None) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve ``site`` on a free loopback port much as a static host does: HTTP/1.1 keep-alive,
    "dir" redirected to "dir/", text gzip-compressed at level 6 (each file once) for a browser
    that asks for gzip, so the bytes a browser counts are compressed ones (a host's compression
    level and headers differ); with ``max_age``, a cache lifetime in seconds (GitHub Pages
    gives 600). The browser tests, the screenshots and `make lighthouse` use it."""
    cache: dict[Path, bytes] = {}

    class Host(http.server.SimpleHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def end_headers(self):
            if max_age is not None:
                self.send_header("Cache-Control", f"max-age={max_age}")
            super().end_headers()

        def send_head(self):
            path = Path(self.translate_path(self.path))
            if path.is_dir():   # the base class redirects "dir" to "dir/" (as hosts do) or lists it
                if not urlsplit(self.path).path.endswith("/"):
                    return super().send_head()
                path = path / "index.html"
            # Chromium asks for "gzip, deflate, br" (no q-values to weigh)
            wants = "gzip" in self.headers.get("Accept-Encoding", "")
            if not (wants and path.suffix in COMPRESSIBLE and path.is_file()):
                return super().send_head()
            if path not in cache:
                cache[path] = gzip.compress(path.read_bytes(), 6, mtime=0)
            body = cache[path]
            self.send_response(200)
            self.send_header("Content-Type", self.guess_type(str(path)))
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Vary", "Accept-Encoding")
            self.end_headers()
            return io.BytesIO(body)

    handler = functools.partial(Host, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def launch(playwright):
    return playwright.chromium.launch(executable_path=find_chromium(), args=CHROMIUM_ARGS)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("site", type=Path)
    parser.add_argument("pages", nargs="+")
    parser.add_argument("-o", "--out", type=Path, default=Path("/tmp/shots"))
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--full", action="store_true", help="whole page, not just the first screen")
    parser.add_argument("--element", help="CSS selector: shoot only the first element matching it")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright
    args.out.mkdir(parents=True, exist_ok=True)
    server, base = serve(args.site)
    with sync_playwright() as p:
        browser = launch(p)
        for scheme in ("light", "dark"):
            page = browser.new_page(viewport={"width": args.width, "height": 900}, color_scheme=scheme)
            for rel in args.pages:
                page.goto(base + rel)
                page.wait_for_load_state("networkidle")
                name = rel.strip("/").replace("/", "_") or "index"
                path = args.out / f"{name}-{scheme}.png"
                if args.element:
                    page.locator(args.element).first.screenshot(path=str(path))
                else:
                    page.screenshot(path=str(path), full_page=args.full)
                print(path)
            page.close()
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    main()
