"""Search in a real browser: the index and the search worker are not fetched until the reader
opens search, then once; results come up, styled by no rule the build's purge took out; after instant navigation to a result the learner features are set up
and the index is not fetched again. The index holds each formula once and no code."""

from __future__ import annotations

import json

from browser.conftest import Traffic, lesson_sources, page_sources, url_of
from browser.test_pages import REMOVED_RULES, sheets_of

INDEX = "search/search_index.json"


def index_requests(page, name: str = INDEX) -> list[str]:
    return [e for e in page.evaluate("performance.getEntriesByType('resource').map(e => e.name)") if name in e]


def test_index_waits_for_search_then_is_fetched_once(open_page, browser, base_url, built):
    """Instant navigation only follows links listed in sitemap.xml, which MkDocs fills only when
    `site_url` is set: the browser is handed the sitemap such a build would have (as in
    test_learner.test_notes_follow_instant_navigation)."""
    lessons = lesson_sources()
    locs = "".join(f"<url><loc>{base_url}{url_of(s)}</loc></url>" for s in page_sources())
    sitemap = ('<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/'
               f'sitemap/0.9">{locs}</urlset>')
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.route("**/sitemap.xml", lambda route: route.fulfill(status=200, content_type="application/xml", body=sitemap))
    # networkidle: instant navigation (below) only takes over links once Material has read the
    # sitemap; and the index must not have been fetched by a page that has been quiet a while
    page, traffic = open_page(url_of(lessons[0]), context=ctx, wait="networkidle")
    page.wait_for_timeout(500)
    assert index_requests(page) == [], "the search index was fetched before search was opened"
    assert index_requests(page, "/workers/search.") == [], "the search worker started before search was opened"

    page.keyboard.press("/")                      # Material's shortcut: focus the search field
    page.keyboard.type("embedding")               # Material searches on keyup, not on input
    results = page.locator(".md-search-result__item")
    results.first.wait_for(timeout=15_000)
    assert len(index_requests(page)) == 1
    # the results, made by Material's script: no rule the build took out of the sheets styles them
    removed = page.evaluate(REMOVED_RULES, sheets_of(str(built.dir)))
    assert removed["matched"] == [] and removed["unparsed"] == [], removed
    page.keyboard.press("Escape")

    # Instant navigation (no reload): the learner script sets the new page up, search still works.
    page.evaluate("window.__sameDocument = true")
    here = page.url
    title = page.title()
    page.locator("a.md-footer__link").first.click()
    # the URL changes before the new page is in place: wait for its title, then two frames
    page.wait_for_function("([u, t]) => location.href !== u && document.title !== t", arg=[here, title])
    page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    page.wait_for_load_state("networkidle")
    assert page.evaluate("window.__sameDocument") is True, "instant navigation reloaded the page"
    page.keyboard.press("/")
    page.keyboard.type("vector")
    page.locator(".md-search-result__item").first.wait_for(timeout=15_000)
    assert len(index_requests(page)) == 1, "the index was fetched again"
    traffic.settle(page)
    assert traffic.problems() == []
    ctx.close()


def test_search_link_with_query_loads_the_index(browser, base_url):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    traffic = Traffic(base_url)
    traffic.watch_context(ctx)
    page = ctx.new_page()
    traffic.watch_page(page)
    page.goto(base_url + "?q=embedding")
    page.locator(".md-search-result__item").first.wait_for(timeout=15_000)
    assert len(index_requests(page)) == 1
    traffic.settle(page)
    assert traffic.problems() == []
    ctx.close()


def test_index_is_small_and_holds_no_code(built):
    docs = json.loads((built.dir / INDEX).read_text(encoding="utf-8"))["docs"]
    text = " ".join(d["text"] for d in docs)
    assert "import numpy" not in text and "def " not in text, "code reached the search index"
    assert "\\mathbf" not in text and "\\frac" not in text, "TeX source reached the search index"
