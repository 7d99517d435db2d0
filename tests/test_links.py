"""Every internal link and anchor of the strict build resolves.

The built site is served on a loopback port and LinkChecker crawls it from the home page:
links Markdown wrote, links the hooks wrote into the HTML (cross-references, citations,
PASS-line equation tags, skill-check "see" links, the overview) and the templates' links.
External addresses are not requested (checkextern=0).

Anchors: LinkChecker's AnchorCheck plugin fetches and parses a page again for every
``page#fragment`` URL; on this site (pages of ~0.5 MB, thousands of fragment links) it had
not finished after 12 minutes, against 1m40s for the links alone. So the fragments of the
links LinkChecker found are checked here against the ids of the built pages (html.parser).
"""

from __future__ import annotations

import csv
import html.parser
import functools
import http.server
import io
import shutil
import subprocess
import threading
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest

pytestmark = pytest.mark.build

ROOT = Path(__file__).resolve().parents[1]
#: LinkChecker waits at least 0.1-0.6 s between two requests to one host, whatever
#: maxrequestspersecond says, unless the host's responses carry a ``LinkChecker`` header (its
#: documented way to lift the limit): the crawl of our own loopback server waited ~20 s for ~8 s
#: of work.
CONFIG = """\
[checking]
threads=4
maxrequestspersecond=1000
[filtering]
checkextern=0
ignore=
  ^data:
[output]
status=0
warnings=1
"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("LinkChecker", "maxrated")   # lifts LinkChecker's wait (see CONFIG)
        super().end_headers()


def linkchecker() -> str:
    venv = ROOT / ".venv" / "bin" / "linkchecker"
    return str(venv) if venv.exists() else shutil.which("linkchecker") or "linkchecker"


@pytest.fixture(scope="module")
def report(site, tmp_path_factory) -> list[dict]:
    handler = functools.partial(_Quiet, directory=str(site.dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    rc = tmp_path_factory.mktemp("linkchecker") / "linkcheckerrc"
    rc.write_text(CONFIG)
    try:
        done = subprocess.run([linkchecker(), "-f", str(rc), "--no-robots", "-v", "-o", "csv",
                               f"http://127.0.0.1:{server.server_address[1]}/"],
                              capture_output=True, text=True, timeout=1800)
    finally:
        server.shutdown()
    lines = [line for line in done.stdout.splitlines() if not line.startswith("#")]
    rows = list(csv.DictReader(io.StringIO("\n".join(lines)), delimiter=";"))
    assert rows, f"LinkChecker produced no report:\n{done.stderr[-3000:]}"
    return rows


def _where(row: dict) -> str:
    return f"{row['urlname']} (in {row['parentname']}, line {row['line']})"


def test_every_internal_link_resolves(report):
    broken = [f"{_where(r)}: {r['result']}" for r in report if r["valid"] != "True"]
    assert not broken, "broken links:\n" + "\n".join(broken[:50])


class _Ids(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.hrefs: list[tuple[str, int]] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("id", "name") and value:
                self.ids.add(value)
            elif name == "href" and value and tag == "a":
                self.hrefs.append((value, self.getpos()[0]))


def test_every_anchor_exists(site):
    """Every ``#fragment`` of an internal link names an id of its target page."""
    parsed: dict[Path, _Ids] = {}

    def parse(path: Path) -> _Ids:
        if path not in parsed:
            parser = _Ids()
            parser.feed(path.read_text(encoding="utf-8"))
            parsed[path] = parser
        return parsed[path]

    missing, count = [], 0
    for page in sorted(site.dir.rglob("*.html")):
        base = "http://site/" + page.relative_to(site.dir).as_posix()
        for href, line in parse(page).hrefs:
            url = urlsplit(urljoin(base, href))
            if url.netloc != "site" or not url.fragment:
                continue
            target = site.dir / unquote(url.path).lstrip("/")
            if target.is_dir() or url.path.endswith("/"):
                target = target / "index.html"
            if target.suffix != ".html" or not target.exists():
                continue   # a missing page is LinkChecker's finding
            count += 1
            if unquote(url.fragment) not in parse(target).ids:
                missing.append(f"{page.relative_to(site.dir)}:{line}: {href}")
    assert count > 1000, f"only {count} fragment links found"
    assert not missing, f"{len(missing)} links to missing anchors:\n" + "\n".join(missing[:50])


def test_every_page_was_crawled(report, site):
    checked = {r["url"].split("#")[0] for r in report}
    pages = [p.parent.relative_to(site.dir).as_posix() for p in site.dir.rglob("index.html")]
    unreached = [p for p in pages if not any(u.rstrip("/").endswith("/" + p) or (p == "." and u.count("/") == 3)
                                             for u in checked)]
    assert not unreached, f"pages no link leads to: {unreached}"


def test_no_external_address_was_requested(report):
    """External links are listed but only their syntax is checked: nothing is downloaded."""
    external = [r for r in report if r["url"].startswith("http") and "127.0.0.1" not in r["url"]]
    fetched = [r["url"] for r in external if r["dltime"] not in ("-1", "")]
    assert not fetched, fetched[:10]
