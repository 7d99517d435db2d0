"""Wide tables and display formulas scroll sideways; docs/javascripts/learner.js makes each one
that overflows focusable (tabindex 0, so keyboard users can scroll it: WCAG 2.1.1) and no
other. It measures with a ResizeObserver, after the browser's own layout: checked here at a
phone's width, after the window widens, and after it narrows again."""

from __future__ import annotations

from browser.conftest import url_of

BOXES = """
() => Array.from(document.querySelectorAll('.md-typeset__scrollwrap, .md-typeset .math-display')).map(el => ({
  overflows: el.scrollWidth > el.clientWidth + 1, focusable: el.getAttribute('tabindex') === '0',
  what: (el.id || el.className) + ': ' + el.textContent.slice(0, 40)
}))
"""


def marked_as_they_overflow(page) -> list[dict]:
    page.wait_for_timeout(300)          # ResizeObserver callbacks run after the next layout
    return page.evaluate(BOXES)


def test_exactly_the_boxes_that_overflow_take_focus(browser, base_url):
    ctx = browser.new_context(viewport={"width": 360, "height": 800})
    page = ctx.new_page()
    page.goto(base_url + url_of("part2/positional-information.md"), wait_until="load")
    for width in (360, 1280, 360):
        page.set_viewport_size({"width": width, "height": 800})
        boxes = marked_as_they_overflow(page)
        wrong = [b for b in boxes if b["overflows"] != b["focusable"]]
        assert boxes and not wrong, f"at {width} px: {wrong[:5]}"
        if width == 360:
            assert any(b["overflows"] for b in boxes), "nothing overflows at 360 px: the test checks nothing"
    ctx.close()
