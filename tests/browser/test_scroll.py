"""Wide tables, display formulas and code scroll sideways; docs/javascripts/learner.js makes
each one that overflows focusable (tabindex 0, so keyboard users can scroll it: WCAG 2.1.1)
and no other. It measures with a ResizeObserver, after the browser's own layout, each box the
browser lays out; a box in a block it skips (content-visibility) when the block is shown, and
every box when a keyboard user tabs. Checked at a phone's width, after the window widens, and
after it narrows again: first the boxes laid out, then, after Tabs, all of them, among them
boxes off screen that overflow. Code blocks follow Material's rule (focusable where the screen
has hover and the code is wider than its box): Material sets each up when it first shows
(content.lazy) and learner.js must agree with it."""

from __future__ import annotations

import pytest

from browser.conftest import SETTLE, url_of

#: Every box, with its overflow measured on the whole page laid out (a box in a block the browser
#: skips has no width of its own): in one task, so no observer sees the page laid out.
BOXES = """
() => {
  const els = Array.from(document.querySelectorAll('.md-typeset__scrollwrap, .md-typeset .math-display, .md-typeset pre > code'));
  const boxes = els.map((el) => ({
    shown: (el.firstElementChild || el).checkVisibility({contentVisibilityAuto: true}),
    focusable: el.getAttribute('tabindex') === '0',
    what: (el.id || el.className) + ': ' + el.textContent.slice(0, 40)
  }));
  const shown = document.createElement('style');
  shown.textContent = '.md-typeset * { content-visibility: visible !important; }';
  document.head.appendChild(shown);
  // Code blocks: Material's rule (focusable on a screen with hover, when wider than the box).
  const hover = matchMedia('(hover)').matches;
  els.forEach((el, k) => {
    boxes[k].overflows = el.tagName === 'CODE' ? hover && el.scrollWidth > el.offsetWidth
                                               : el.scrollWidth > el.clientWidth + 1;
  });
  shown.remove();
  return boxes;
}
"""


def boxes_after_layout(page) -> list[dict]:
    page.wait_for_timeout(300)          # ResizeObserver callbacks run after the next layout
    page.evaluate(SETTLE)
    return page.evaluate(BOXES)


@pytest.mark.parametrize("src", ["part2/positional-information.md",   # formulas and tables
                                 "notebook/theory.py"])                # code cells
def test_exactly_the_boxes_that_overflow_take_focus(browser, base_url, src):
    ctx = browser.new_context(viewport={"width": 360, "height": 800})
    page = ctx.new_page()
    page.goto(base_url + url_of(src), wait_until="load")
    for width in (360, 1280, 360):
        page.set_viewport_size({"width": width, "height": 800})
        boxes = boxes_after_layout(page)
        shown = [b for b in boxes if b["shown"]]
        wrong = [b for b in shown if b["overflows"] != b["focusable"]]
        assert shown and not wrong, f"at {width} px, boxes laid out: {wrong[:5]}"
        if width == 360:
            assert any(b["overflows"] and not b["shown"] for b in boxes), \
                "no box off screen overflows at 360 px: the Tab is not tested"
        # The reader tabs on: the first Tab measured the page (fetching the fonts of blocks not
        # shown yet), the next after those fonts arrived measures it again.
        page.keyboard.press("Tab")
        page.evaluate(SETTLE)
        page.keyboard.press("Tab")
        boxes = boxes_after_layout(page)
        wrong = [b for b in boxes if b["overflows"] != b["focusable"]]
        assert not wrong, f"at {width} px, after a Tab: {wrong[:5]}"
        if width == 360:
            assert any(b["overflows"] for b in boxes), "nothing overflows at 360 px: the test checks nothing"
    ctx.close()


def test_code_is_not_marked_where_material_unmarks_it(browser, base_url):
    """On a touch screen without hover Material takes the tabindex off a code block it sets up;
    learner.js leaves such blocks alone, so the two never disagree on a block that has focus."""
    ctx = browser.new_context(viewport={"width": 360, "height": 800}, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.goto(base_url + url_of("notebook/theory.py"), wait_until="load")
    assert not page.evaluate("matchMedia('(hover)').matches"), "the emulated phone has hover"
    page.keyboard.press("Tab")
    page.evaluate(SETTLE)
    page.keyboard.press("Tab")
    wide, marked = page.evaluate("""() => {
      const code = Array.from(document.querySelectorAll('.md-typeset pre > code'));
      return [code.filter((el) => el.scrollWidth > el.offsetWidth).length,
              code.filter((el) => el.hasAttribute('tabindex')).length];
    }""")
    assert wide, "no code block is wider than its box at 360 px: the test checks nothing"
    assert marked == 0, f"{marked} code blocks focusable on a screen without hover"
    ctx.close()
