"""The theme override's two load-time savings (overrides/main.html), in a real browser: the
stylesheet links are made absolute and <html> gets the classes Material's bundle gives it
before <body> exists (so neither instant navigation nor the bundle restyles the whole page
again), and the palette does not touch
<body> on a load whose colours do not change; the palette toggle still switches colours,
with Material's transition guard set and removed. The page's colour-scheme meta holds the
header's computed colour scheme (what Material sets it from) from before <body> exists, and
follows the toggle."""

from __future__ import annotations

import pytest

from browser.conftest import lesson_sources, url_of

#: Records, from the start of the document, changes of stylesheet hrefs and body colours.
WATCH = """
window.__esmMutations = [];
new MutationObserver(list => list.forEach(m => window.__esmMutations.push({
  tag: m.target.tagName, rel: m.target.getAttribute('rel'), attr: m.attributeName,
  body: document.body ? document.body.childElementCount : -1, value: m.target.getAttribute(m.attributeName),
  old: m.oldValue
}))).observe(document, {subtree: true, attributes: true, attributeOldValue: true,
  attributeFilter: ['href', 'class', 'data-js-focus-visible', 'data-md-color-switching', 'data-md-color-scheme']});
"""


def test_load_restyles_nothing_and_the_toggle_still_switches(browser, base_url):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light")
    ctx.add_init_script(WATCH)
    page = ctx.new_page()
    page.goto(base_url + url_of(lesson_sources()[0]), wait_until="networkidle")
    page.wait_for_timeout(300)
    seen = page.evaluate("window.__esmMutations")
    sheets = [m for m in seen if m["tag"] == "LINK" and m["rel"] == "stylesheet"]
    assert sheets, "the stylesheet links were not made absolute"
    assert all(m["body"] == -1 and m["value"].startswith(base_url) for m in sheets), sheets
    assert [m for m in seen if m["tag"] == "BODY"] == [], "the palette touched <body> on a plain load"
    # The bundle still sets them (a mutation record each), to the value they already have.
    root = [m for m in seen if m["tag"] == "HTML"]
    changed = [m for m in root if m["body"] != -1 and m["old"] != m["value"]]
    assert root and not changed, f"<html>'s class changed after <body> existed: {changed}"
    assert page.evaluate("document.documentElement.className") == "js js-focus-visible"

    before = page.evaluate("getComputedStyle(document.body).backgroundColor")
    page.locator("form[data-md-component=palette] label:visible").first.click()
    page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
    page.wait_for_function("!document.body.hasAttribute('data-md-color-switching')")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != before
    switching = [m for m in page.evaluate("window.__esmMutations") if m["attr"] == "data-md-color-switching"]
    assert [m["value"] for m in switching] == ["", None], "transitions were not held while colours changed"
    ctx.close()


#: Records, from the start of the document, every colour-scheme meta put in the document and
#: every change of its content, with whether <body> existed then.
WATCH_SCHEME = """
window.__esmScheme = [];
new MutationObserver(list => list.forEach(m => {
  const metas = m.type === "childList" ? [...m.addedNodes] : [m.target];
  for (const n of metas)
    if (n.nodeName === "META" && n.getAttribute("name") === "color-scheme")
      window.__esmScheme.push({body: !!document.body, content: n.getAttribute("content")});
})).observe(document, {subtree: true, childList: true, attributes: true, attributeFilter: ["content"]});
"""

#: The page's colour-scheme metas, and the header's computed colour scheme (Material's source).
SCHEME = """() => ({
  metas: [...document.querySelectorAll('meta[name="color-scheme"]')].map(m => m.content),
  header: getComputedStyle(document.querySelector('[data-md-component=header]')).colorScheme,
})"""


@pytest.mark.parametrize("preference", ["light", "dark"])
def test_the_colour_scheme_meta_is_right_before_the_body_and_follows_the_toggle(browser, base_url, preference):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=preference)
    ctx.add_init_script(WATCH_SCHEME)
    page = ctx.new_page()
    url = base_url + url_of(lesson_sources()[0])
    other = "dark" if preference == "light" else "light"
    for want in (preference, other):             # a first visit, then a reload after the toggle
        if want == preference:
            page.goto(url, wait_until="networkidle")
        else:
            page.reload(wait_until="networkidle")
        page.wait_for_timeout(300)
        now = page.evaluate(SCHEME)
        assert now == {"metas": [want], "header": want}, now
        late = [m for m in page.evaluate("window.__esmScheme") if m["body"]]
        assert late == [], f"the colour-scheme meta changed after <body> existed: {late}"
        if want == preference:
            page.locator("form[data-md-component=palette] label:visible").first.click()
            page.wait_for_function("!document.body.hasAttribute('data-md-color-switching')")
            page.wait_for_timeout(100)
            assert page.evaluate(SCHEME) == {"metas": [other], "header": other}
    ctx.close()
