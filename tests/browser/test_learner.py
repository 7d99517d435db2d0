"""The learner features in a real browser: private notes (kept over a reload, never read
as HTML, 8,000-character limit, export and import), skill checks (an answer survives a
reload, a wrong one enters the practice queue), the queue's spacing, the overview page,
and set-up after Material's instant navigation (no reload between pages)."""

from __future__ import annotations

import json
import re

import pytest

from browser.conftest import lesson_sources, url_of

DAY_MS = 24 * 60 * 60 * 1000
XSS = '<img src="x-esm-probe.png" onerror="window.__esmPwned = 1">hello & <b>bold</b>'


@pytest.fixture
def lessons(built) -> list[str]:
    """The lesson pages of the nav (all of them in `make test`)."""
    found = [s for s in lesson_sources() if (built.dir / url_of(s) / "index.html").is_file()]
    assert len(found) >= 2
    return found


def skill_check_page(built) -> str:
    """A built page that shows a skill check."""
    for html in sorted(built.dir.rglob("index.html")):
        if 'class="esm-skillcheck"' in html.read_text(encoding="utf-8"):
            return html.parent.relative_to(built.dir).as_posix() + "/"
    pytest.fail("no page shows a skill check")


# ----------------------------------------------------------------------------- notes

def test_note_survives_reload_and_is_never_html(open_page, lessons):
    rel = url_of(lessons[0])
    page, traffic = open_page(rel)
    area = page.locator("#esm-notes-text")
    area.fill(XSS)
    assert page.locator("#esm-notes-count").inner_text() == f"{len(XSS)} / 8,000 characters"
    page.reload()
    traffic.settle(page)                      # an <img> made from the note would have been fetched
    assert page.locator("#esm-notes-text").input_value() == XSS
    assert page.evaluate("window.__esmPwned") is None
    assert page.locator('img[src="x-esm-probe.png"]').count() == 0
    assert page.locator(".esm-notes b").count() == 0
    assert not any("x-esm-probe" in u for u in traffic.failed + traffic.offsite)
    stored = json.loads(page.evaluate("localStorage.getItem('esm.notes.v1')"))
    assert stored[lessons[0]]["text"] == XSS
    assert traffic.problems() == []


def test_note_is_limited_to_8000_characters(open_page, lessons):
    page, _ = open_page(url_of(lessons[0]))
    area = page.locator("#esm-notes-text")
    assert area.get_attribute("maxlength") == "8000"
    area.fill("x" * 7990)
    area.press("End")
    page.keyboard.type("y" * 20)              # typing stops at the limit
    assert len(area.input_value()) == 8000
    page.evaluate("""() => {                  // a script or a paste past maxlength is cut too
        const a = document.querySelector('#esm-notes-text');
        a.value = 'z'.repeat(9000);
        a.dispatchEvent(new Event('input', {bubbles: true}));
    }""")
    assert len(area.input_value()) == 8000
    assert page.locator("#esm-notes-count").inner_text() == "8,000 / 8,000 characters"
    page.reload()
    assert page.locator("#esm-notes-text").input_value() == "z" * 8000


def test_notes_export_and_import(open_page, tmp_path, lessons, base_url):
    a, b = lessons[0], lessons[-1]
    page, traffic = open_page(url_of(a))
    page.locator("#esm-notes-text").fill("note on A: " + XSS)
    visit(page, base_url + url_of(b))
    page.locator("#esm-notes-text").fill("note on B")
    with page.expect_download() as info:
        page.get_by_role("button", name="Export all notes (JSON)").click()
    exported = tmp_path / "notes.json"
    info.value.save_as(exported)
    data = json.loads(exported.read_text())
    assert data["format"] == "embedding-space-math-notes" and data["version"] == 1
    assert data["notes"][a]["text"] == "note on A: " + XSS and data["notes"][b]["text"] == "note on B"

    # A fresh browser: nothing stored; importing the file brings both notes back.
    fresh, _ = open_page(url_of(b))
    assert fresh.locator("#esm-notes-text").input_value() == ""
    fresh.locator(".esm-notes-import").set_input_files(str(exported))
    fresh.wait_for_function("document.querySelector('.esm-notes-status').textContent.startsWith('Imported')")
    assert fresh.locator(".esm-notes-status").inner_text() == "Imported notes of 2 pages."
    assert fresh.locator("#esm-notes-text").input_value() == "note on B"
    visit(fresh, base_url + url_of(a))
    assert fresh.locator("#esm-notes-text").input_value() == "note on A: " + XSS
    assert fresh.evaluate("window.__esmPwned") is None

    # A file that is not an export changes nothing and says so.
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"notes": {a: {"text": "overwritten"}}}))
    fresh.locator(".esm-notes-import").set_input_files(str(bad))
    fresh.wait_for_function("document.querySelector('.esm-notes-status').textContent.startsWith('Not imported')")
    assert fresh.locator("#esm-notes-text").input_value() == "note on A: " + XSS
    traffic.settle(page)
    assert traffic.problems() == []


def test_notes_follow_instant_navigation(open_page, lessons, built, browser, base_url):
    """Material swaps pages without reloading: the notes panel is set up for each page.

    Instant navigation only follows links listed in sitemap.xml, which MkDocs fills only
    when `site_url` is set (the published build sets it from $SITE_URL). Here the browser
    is handed the sitemap such a build would have for this server.
    """
    locs = "".join(f"<url><loc>{base_url}{url_of(s)}</loc></url>" for s in lessons + ["index.md"])
    sitemap = f'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{locs}</urlset>'
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.route("**/sitemap.xml", lambda route: route.fulfill(status=200, content_type="application/xml", body=sitemap))
    # networkidle: instant navigation only takes over links once Material has read the sitemap
    page, traffic = open_page(url_of(lessons[0]), context=ctx, wait="networkidle")
    page.locator("#esm-notes-text").fill("first page note")
    page.evaluate("window.__sameDocument = true")
    first = page.evaluate("location.href")
    page.locator("a.md-footer__link--next").click()
    page.wait_for_load_state("networkidle")
    # The first lesson has a 'previous' link too: wait until the footer is the next page's,
    # whose 'previous' link leads back (under load the check could run before the swap).
    page.wait_for_function("(first) => { const a = document.querySelector('.md-footer__link--prev');"
                           " return a !== null && a.href === first; }", arg=first)
    assert page.evaluate("window.__sameDocument") is True, "instant navigation reloaded the page"
    if page.locator("#esm-notes-text").count():
        assert page.locator("#esm-notes-text").input_value() == ""
    page.go_back()
    page.wait_for_function("document.querySelector('#esm-notes-text') && "
                           "document.querySelector('#esm-notes-text').value === 'first page note'")
    assert page.evaluate("window.__sameDocument") is True
    traffic.settle(page)
    assert traffic.problems() == []
    ctx.close()


# ---------------------------------------------------------------------- skill checks

def visit(page, url: str) -> None:
    """Load url afresh (Material's tracking puts #anchors in the address: a plain goto to
    the same page would only move to the anchor), up to its `load` event (learner.js, a
    deferred script, has set the page up by then)."""
    page.goto("about:blank")
    page.goto(url)


def wrong_choice(fieldset) -> int:
    right = int(fieldset.get_attribute("data-answer"))
    return 1 if right == 0 else 0


def test_skill_check_answer_survives_reload_and_wrong_one_is_queued(open_page, built, base_url):
    rel = skill_check_page(built)
    page, traffic = open_page(rel)
    first = page.locator(".esm-skillcheck .esm-q").first
    qid = first.get_attribute("data-qid")
    wrong = wrong_choice(first)
    first.locator(f'input[value="{wrong}"]').check()
    first.get_by_role("button", name="Check answer").click()
    assert first.locator(".esm-q-verdict").inner_text().startswith("Not quite")
    assert first.locator(".esm-q-explain").is_visible()

    second = page.locator(".esm-skillcheck .esm-q").nth(1)
    second.locator(f'input[value="{second.get_attribute("data-answer")}"]').check()
    second.get_by_role("button", name="Check answer").click()
    assert second.locator(".esm-q-verdict").inner_text() == "Correct."
    score = page.locator(".esm-skillcheck-score").inner_text()
    assert score.startswith("Score: 1 of ") and "(2 answered)" in score

    page.reload()
    first = page.locator(f"#q-{qid}")
    assert first.locator(f'input[value="{wrong}"]').is_checked()
    assert first.locator(".esm-q-verdict").inner_text().startswith("Not quite")
    assert page.locator(".esm-skillcheck-score").inner_text() == score

    # The practice queue shows the missed question, and only it.
    visit(page, base_url + "practice/")
    due = page.locator(".esm-practice .esm-q:not([hidden])")
    assert due.count() == 1 and due.first.get_attribute("data-qid") == qid
    assert page.locator(".esm-practice-summary").inner_text() == "1 question to practise now."
    traffic.settle(page)
    assert traffic.problems() == []


def test_practice_queue_spacing(open_page, built, base_url):
    """Right answers push a missed question back 1, 3, 7, 21 days; the fifth takes it out."""
    rel = skill_check_page(built)
    page, _ = open_page(rel)
    page.clock.install()
    start = page.evaluate("Date.now()")
    q = page.locator(".esm-skillcheck .esm-q").first
    qid = q.get_attribute("data-qid")
    q.locator(f'input[value="{wrong_choice(q)}"]').check()
    q.get_by_role("button", name="Check answer").click()

    practice = base_url + "practice/"
    now = start
    for days in (1, 3, 7, 21, None):            # None: the fifth right answer
        visit(page, practice)
        item = page.locator(f"#q-{qid}")
        assert item.is_visible(), f"not due before the {days}-day step"
        item.locator(f'input[value="{item.get_attribute("data-answer")}"]').check()
        item.get_by_role("button", name="Check answer").click()
        assert item.locator(".esm-q-verdict").inner_text() == "Correct."
        rec = json.loads(page.evaluate("localStorage.getItem('esm.quiz.v1')"))[qid]
        if days is None:
            assert rec["queued"] is False and rec["due"] is None
            break
        assert rec["due"] == pytest.approx(now + days * DAY_MS, abs=60_000)
        page.clock.set_fixed_time((now + days * DAY_MS - 60_000) / 1000)   # seconds
        visit(page, practice)
        assert not page.locator(f"#q-{qid}").is_visible(), f"shown before its {days}-day wait"
        assert "back on" in page.locator(".esm-practice-later").inner_text()
        now = now + days * DAY_MS + 60_000
        page.clock.set_fixed_time(now / 1000)
    visit(page, practice)
    assert page.locator(".esm-practice .esm-q:not([hidden])").count() == 0
    assert page.locator(".esm-practice-summary").inner_text().startswith("Nothing to practise now")


def test_schedule_function(open_page, lessons):
    page, _ = open_page(url_of(lessons[0]))
    seq = page.evaluate("""() => {
        const L = window.ESMLearner; let r = null; const out = []; const t0 = 1e12;
        r = L.answer(r, 0, true, t0); out.push([r.queued, r.due]);          // right first time
        r = L.answer(r, 1, false, t0); out.push([r.queued, r.due]);         // missed: due now
        r = L.answer(r, 0, true, t0); out.push([r.queued, r.due - t0]);     // +1 day
        r = L.answer(r, 1, false, t0); out.push([r.queued, r.due - t0, r.streak]);  // reset
        r = L.answer(r, 0, true, t0); out.push([r.due - t0]);
        r = L.answer(r, 0, true, t0); out.push([r.due - t0]);
        out.push([L.isDue(r, t0 + 3 * L.DAY - 1), L.isDue(r, t0 + 3 * L.DAY)]);
        return out;
    }""")
    assert seq == [[False, None], [True, 1e12], [True, DAY_MS], [True, 0, 0], [DAY_MS], [3 * DAY_MS], [False, True]]


# -------------------------------------------------------------------------- overview

def test_overview_lists_every_page_with_time_and_headings(open_page, built, base_url):
    page, traffic = open_page("overview/")
    rows = page.locator(".esm-overview table tbody tr")
    listed = {}
    for k in range(rows.count()):
        cells = rows.nth(k).locator("td")
        href = cells.nth(0).locator("a").evaluate("a => a.href")
        listed[href.removeprefix(base_url).rstrip("/")] = (cells.nth(1).inner_text(), cells.nth(2).inner_text())
    nav = {url_of(s).rstrip("/") for s in lesson_sources() if (built.dir / url_of(s)).is_dir()}
    assert nav <= set(listed), f"missing from the overview: {sorted(nav - set(listed))}"
    for target, (minutes, headings) in listed.items():
        assert re.fullmatch(r"\d+ min", minutes)
        html = (built.dir / target / "index.html").read_text(encoding="utf-8")
        article = html[html.index("<article"):html.index("</article>")]
        for cut in ('<section class="esm-skillcheck"', '<section class="esm-notes"'):
            if cut in article:
                article = article[:article.index(cut)]
        assert int(headings) == len(re.findall(r"<h[2-6]\b", article)), target
        shown = re.search(r'class="esm-readtime">(\d+ min) read', html)
        if shown:
            assert shown[1] == minutes, target
    traffic.settle(page)
    assert traffic.problems() == []
