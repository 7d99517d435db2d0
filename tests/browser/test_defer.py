"""What ships inert until it is opened (mkdocs_esm/defer.py, learner.js): the Code tab of each
demo and the content of closed details are put back when the reader opens them, with
Material's copy button, and all of it before printing; formulas stay in the accessibility tree
as MathML."""

from __future__ import annotations

from browser.conftest import SETTLE

COUNT = "() => document.getElementsByTagName('*').length"


def test_code_tab_and_checks_come_back_when_opened_and_before_print(browser, base_url):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(base_url + "part2/positional-information/")
    page.evaluate(SETTLE)
    before = page.evaluate(COUNT)
    assert before <= 5000
    assert page.evaluate("document.querySelectorAll('template[data-esm-defer]').length") > 5
    page.locator(".tabbed-labels label", has_text="Code").first.click()
    page.evaluate(SETTLE)
    code = page.evaluate("""() => {
        const block = document.querySelectorAll('.tabbed-set')[0].querySelectorAll('.tabbed-block')[1];
        const pre = block.querySelector('pre');
        const button = block.querySelector('button[data-clipboard-target]');
        return [!!block.querySelector('pre > code'), button && document.querySelector(button.dataset.clipboardTarget) !== null,
                block.querySelector('noscript, template') === null];
    }""")
    assert code == [True, True, True]
    page.locator(".tabbed-labels label", has_text="Output").first.click()
    checks = page.locator("details.esm-checks").first
    checks.locator("summary").click()
    page.evaluate(SETTLE)
    assert checks.locator(".esm-check").count() >= 1
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    assert page.evaluate("document.querySelectorAll('template[data-esm-defer]').length") == 0
    assert page.evaluate(COUNT) > before
    page.close()


def test_the_notebooks_later_code_comes_back_near_the_screen(browser, base_url):
    page = browser.new_page(viewport={"width": 390, "height": 800})
    page.goto(base_url + "notebook/theory/")
    page.evaluate(SETTLE)
    near = "document.querySelectorAll('template[data-esm-near]').length"
    left = page.evaluate(near)
    assert left > 0
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_timeout(300)
    page.evaluate(SETTLE)
    assert page.evaluate(near) < left
    page.close()


def test_a_formula_has_an_accessible_math_node(browser, base_url):
    """Chromium's accessibility tree (what a screen reader gets): a display formula is a node of
    role math (Chromium: MathMLMath, mapped to the platform's math role), not ignored, whose subtree holds its identifiers and operators."""
    page = browser.new_page()
    page.goto(base_url + "part2/positional-information/")
    page.evaluate(SETTLE)
    cdp = page.context.new_cdp_session(page)
    root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": ".math-display math"})["nodeId"]
    tree = cdp.send("Accessibility.getPartialAXTree", {"nodeId": node, "fetchRelatives": False})["nodes"]
    math = tree[0]
    assert math["role"]["value"] in ("math", "MathMLMath") and not math.get("ignored"), math
    full = cdp.send("Accessibility.getFullAXTree")["nodes"]
    names = " ".join(str(n.get("name", {}).get("value", "")) for n in full)
    assert "PE" in names or "ω" in names
    page.close()
