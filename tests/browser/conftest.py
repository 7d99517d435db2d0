"""Browser fixtures: the session's strict build (tests/conftest.py's `site`) served on a
loopback port as a host serves it (text gzip-compressed: screenshot.serve), and Debian's
chromium driven by Python playwright (no browser download).

Chromium is looked for in $CHROMIUM, then Debian's chromium-headless-shell, then chromium on
PATH, then /usr/bin/chromium (screenshot.find_chromium); `make test` installs both packages with
apt-get when missing. A missing browser fails these tests: it never skips them.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from screenshot import CHROMIUM_ARGS, find_chromium, serve

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


#: After a load or a change: web fonts that are loading have arrived, their `loadingdone`
#: handlers have run, and the page's scripts have had two frames (learner.js marks the
#: overflowing boxes the browser lays out from a ResizeObserver, after the next layout; axe's
#: scrollable-region-focusable rule reads those marks).
SETTLE = """
async () => {
  await document.fonts.ready;
  await new Promise((done) => setTimeout(done, 0));
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
}
"""


def chromium_path() -> str:
    found = find_chromium(headless_shell=True)
    if found:
        return found
    pytest.fail("chromium not found: run `make test` (it installs Debian's chromium-headless-shell and "
                "chromium as root) or point $CHROMIUM at a Chromium")


def page_sources() -> list[str]:
    """Every page of the nav in mkdocs.yml, in reading order, as docs-relative sources."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)   # !relative, !ENV
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader)

    def walk(items) -> list[str]:
        out: list[str] = []
        for item in items:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            if isinstance(value, list):
                out += walk(value)
            elif isinstance(value, str) and "://" not in value:
                out.append(value)
        return out

    return walk(config["nav"])


def url_of(src: str) -> str:
    """docs-relative source -> site-relative URL (use_directory_urls)."""
    stem = src.rsplit(".", 1)[0]           # page.md, notebook.ipynb, notebook.py
    if stem == "index":
        return ""
    return stem.removesuffix("/index") + "/"


def lesson_sources() -> list[str]:
    return [s for s in page_sources() if "/" in s]


@pytest.fixture(scope="session")
def built(request):
    """The session's strict build; ESM_SITE=/path/to/site reuses a build made before
    (for iterating on these tests only: `make test` always uses the session build)."""
    if os.environ.get("ESM_SITE"):
        from conftest import Site
        return Site(Path(os.environ["ESM_SITE"]), "", 0.0)
    return request.getfixturevalue("site")


@pytest.fixture(scope="session")
def base_url(built):
    server, base = serve(built.dir)
    yield base
    server.shutdown()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield b
        b.close()


@dataclass
class Traffic:
    """What a browser context did: console errors, failed and off-site requests, bytes."""
    base: str
    errors: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    offsite: list[str] = field(default_factory=list)
    bytes: int = 0                 # received from the site: compressed bodies and headers
    requests: int = 0
    in_flight: set = field(default_factory=set)
    unsized: list[str] = field(default_factory=list)   # finished, but no sizes: the page was closed

    def watch_page(self, page) -> None:
        page.on("console", lambda m: self.errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))

    def watch_context(self, ctx) -> None:
        ctx.on("request", self._request)
        # A request the browser itself cancels because the test navigates on (a reload, the next
        # page) ends as net::ERR_ABORTED: a race with the test, not a fault of the site. A missing
        # file is still an HTTP error below, and every other network failure is still counted.
        ctx.on("requestfailed", self._failed)
        ctx.on("response", lambda r: self.failed.append(f"{r.url} (HTTP {r.status})") if r.status >= 400 else None)
        ctx.on("requestfinished", self._finished)

    def settle(self, page, timeout: float = 30.0) -> None:
        """Wait until the page's traffic is complete: Playwright's 'networkidle' (no request
        for 500 ms; it fires once per load, so a test that worked for a while after the load
        finds it already passed) and no request still in flight, whenever it started."""
        page.wait_for_load_state("networkidle")
        deadline = time.monotonic() + timeout
        while self.in_flight:
            if time.monotonic() > deadline:
                pytest.fail(f"requests still in flight after {timeout:.0f} s: {sorted(self.in_flight)}")
            page.wait_for_timeout(50)      # lets Playwright deliver the requests' events

    def _request(self, r) -> None:
        self.requests += 1
        self.in_flight.add(r)
        if not r.url.startswith((self.base, "data:", "blob:")):
            self.offsite.append(r.url)

    def _failed(self, r) -> None:
        self.in_flight.discard(r)
        if r.failure != "net::ERR_ABORTED":
            self.failed.append(f"{r.url} ({r.failure})")

    def _finished(self, r) -> None:
        self.in_flight.discard(r)
        if not r.url.startswith(self.base):
            return
        try:
            sizes = r.sizes()
            self.bytes += sizes["responseBodySize"] + sizes["responseHeadersSize"]
        except Exception:   # the page was closed before the sizes were known
            self.unsized.append(r.url)

    def problems(self) -> list[str]:
        return ([f"error: {e}" for e in self.errors] + [f"failed: {f}" for f in self.failed]
                + [f"left the site: {u}" for u in self.offsite])


@pytest.fixture
def open_page(browser, base_url):
    """open_page(rel, scheme="light") -> (page, traffic): a fresh context (fresh storage), the
    page loaded (its `load` event: the deferred scripts have run, so learner.js has set the
    page up). Requests may still be under way: `traffic.settle(page)` before reading it."""
    contexts = []

    def _open(rel: str, scheme: str = "light", *, context=None, wait: str = "load"):
        ctx = context or browser.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 900},
                                             accept_downloads=True)
        if context is None:
            contexts.append(ctx)
        if os.environ.get("ESM_SITE") and not (Path(os.environ["ESM_SITE"]) / rel / "index.html").is_file():
            pytest.skip(f"{rel} is not in the site at $ESM_SITE")
        traffic = Traffic(base_url)
        traffic.watch_context(ctx)
        page = ctx.new_page()
        traffic.watch_page(page)
        page.goto(base_url + rel, wait_until=wait)
        return page, traffic

    yield _open
    for ctx in contexts:
        ctx.close()
