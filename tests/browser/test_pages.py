"""Every page of the built site in a real browser (Debian's chromium), in light and dark (one
visit: the reader's preference turned to dark in place):
it loads with no console error, no failed request and no request leaving the site; every
formula is rendered to MathML (no raw TeX, no `.arithmatex` left); every figure is visible
(it has a size and enough pixels that stand out from the background); axe-core finds no
serious or critical accessibility violation; at a phone's width the page is no wider than the
window; it costs its reader at most PAGE_BUDGET, compressed as a host serves it, everything it
fetched from the site while laid out whole included; lesson pages show reading time, previous
and next links. The page weights are written to page-weights.txt (and .json) next to the built
site, by every worker."""

from __future__ import annotations

import base64
import functools
import io
import json
import math
import os
import re
import sys
from pathlib import Path

import pytest

from browser.conftest import AXE, ROOT, SETTLE, lesson_sources, page_sources, url_of

PAGES = page_sources()
#: Largest transfer of one page, in bytes as the browser received them from a server that gzips
#: text (tests/screenshot.py's): everything the page fetched from the site while the test laid
#: all of it out, light scheme, desktop width, its favicon included (HTML, CSS, scripts, the
#: fonts its formulas use; the search index only once the reader opens search). A reader's first
#: load fetches at most that. 200 KB in the smaller of the two units: 200,000 bytes (195.3 KiB,
#: in the unit `make lighthouse` prints).
PAGE_BUDGET = 200_000

#: The page's icon, which a browser that shows tabs fetches (the headless shell does not).
FAVICON = "() => document.querySelector('link[rel~=icon]')?.href ?? null"
FETCH = "async (url) => { await (await fetch(url)).arrayBuffer(); }"

RAW_TEX = r"""
() => {
  const root = document.querySelector("article") || document.body;
  const skip = (el) => !el || el.closest("pre, code, math, script, style, textarea, .highlight");
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const tex = /\\[()[\]]|\$\$|\\(?:frac|mathbf|mathbb|mathcal|lvert|rvert|lVert|sum|top|sqrt|label|operatorname|text|cdot|times|in|le|ge|alpha|theta)\b|\$[^$\s]{1,40}\$/;
  const bad = [];
  let node;
  while ((node = walker.nextNode())) {
    if (skip(node.parentElement)) continue;
    if (tex.test(node.textContent)) bad.push(node.textContent.trim().slice(0, 100));
  }
  return {
    raw: bad,
    arithmatex: document.querySelectorAll(".arithmatex").length,
    errors: document.querySelectorAll("merror").length,
  };
}
"""

#: The figures a page is checked for, in document order.
FIGURES = "article .esm-figure svg, article img"

#: Open the <details> that hold figure k, as a reader would; say whether a tab holding it is
#: not the selected one (then the test clicks its label, as a reader would).
OPEN_DETAILS = """
(k) => {
  const el = document.querySelectorAll(FIGURES)[k];
  for (let d = el.closest("details"); d; d = d.parentElement.closest("details")) d.open = true;
  for (let block = el.closest(".tabbed-block"); block; block = block.parentElement.closest(".tabbed-block")) {
    const blocks = Array.from(block.parentElement.children).filter((c) => c.classList.contains("tabbed-block"));
    const set = block.closest(".tabbed-set");
    const label = set.querySelectorAll(":scope > .tabbed-labels > label")[blocks.indexOf(block)];
    if (label && !(label.control && label.control.checked)) return true;
  }
  return false;
}
""".replace("FIGURES", repr(FIGURES))

REVEAL = r"""
(el) => {
  // The labels of the tabs that hold this figure, outermost first.
  const labels = [];
  let block = el.closest(".tabbed-block");
  while (block) {
    const set = block.closest(".tabbed-set");
    const blocks = Array.from(block.parentElement.children).filter((c) => c.classList.contains("tabbed-block"));
    const index = blocks.indexOf(block);
    const label = set.querySelectorAll(":scope > .tabbed-labels > label")[index];
    if (label) labels.push(label);
    block = set.parentElement ? set.parentElement.closest(".tabbed-block") : null;
  }
  return labels.reverse();
}
"""

#: Bring figure k into the middle of the window and wait, as Playwright's element screenshot
#: does, until it is rendered (figures are `content-visibility: auto`: skipped while far from
#: the window), its fonts are loaded and its box has stopped moving; then its box in page
#: coordinates and whether it is visible.
PLACE = """
async (k) => {
  const el = document.querySelectorAll(FIGURES)[k];
  const frame = () => new Promise((done) => requestAnimationFrame(done));
  el.scrollIntoView({block: "center", inline: "nearest", behavior: "instant"});
  let last = null;
  for (let n = 0; n < 60; n++) {
    await frame();
    await document.fonts.ready;
    const r = el.getBoundingClientRect();
    const now = [r.x, r.y, r.width, r.height].join();
    if (now === last && el.checkVisibility({contentVisibilityAuto: true})) break;
    last = now;
  }
  const r = el.getBoundingClientRect();
  return {x: r.x + window.scrollX, y: r.y + window.scrollY, width: r.width, height: r.height,
          inWindow: r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth,
          visible: el.checkVisibility({visibilityProperty: true})};
}
""".replace("FIGURES", repr(FIGURES))

#: All of axe's rules in the light scheme; in the dark one only those colours can break.
AXE_RUN = """
async ([colourOnly, context]) => {
  const options = { resultTypes: ["violations"] };
  if (colourOnly) options.runOnly = ["color-contrast", "link-in-text-block"];
  const result = await axe.run(context, options);
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
  }));
}
"""


#: The document is no wider than a phone's window (a mobile browser zooms a wider page out): its
#: width, the window's, and the outermost boxes that reach past the window with no ancestor
#: that clips them.
TOO_WIDE = """
() => {
  const root = document.documentElement;
  if (root.scrollWidth <= root.clientWidth) return {scroll: root.scrollWidth, window: root.clientWidth, boxes: []};
  const clipped = (el) => {
    for (let p = el.parentElement; p && p !== root; p = p.parentElement)
      if (getComputedStyle(p).overflowX !== "visible") return true;
    return false;
  };
  const out = [];
  for (const el of document.body.querySelectorAll("*")) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > root.clientWidth + 0.5 && !clipped(el) &&
        !(el.parentElement && out.some((o) => o.el.contains(el))))
      out.push({el, what: `${el.tagName.toLowerCase()}.${String(el.className.baseVal ?? el.className).split(" ")[0]}`
                          + ` ${Math.round(r.left)}-${Math.round(r.right)} px`});
  }
  return {scroll: root.scrollWidth, window: root.clientWidth, boxes: out.slice(0, 3).map((o) => o.what)};
}
"""
#: matplotlib styles its SVG with one rule, *{stroke-linejoin: round; stroke-linecap: butt}; the
#: figures carry it as their root's presentation attributes instead (snippets/esm/). The rule's
#: meaning, checked against the browser's cascade: every element of a figure draws the cap and
#: join its own style attribute gives it, and otherwise butt and round. Elements that differ.
STROKES = r"""
() => {
  const own = (el, prop) => (el.getAttribute("style") || "").match(new RegExp(`(?:^|;)\\s*${prop}\\s*:\\s*([a-z]+)`))?.[1];
  const bad = [];
  for (const el of document.querySelectorAll(".esm-svg, .esm-svg *")) {
    const css = getComputedStyle(el);
    for (const [prop, rule] of [["stroke-linecap", "butt"], ["stroke-linejoin", "round"]]) {
      const want = own(el, prop) ?? rule;
      if (css.getPropertyValue(prop) !== want)
        bad.push(`${el.tagName} ${prop} ${css.getPropertyValue(prop)}, not ${want}`);
    }
  }
  return {checked: document.querySelectorAll(".esm-svg *").length, bad: bad.slice(0, 3)};
}
"""
#: `mkdocs build` takes out of Material's and Temml's sheets the rules that no page uses
#: (mkdocs_esm/stylesheets.py, PurgeCSS reading the pages' tags and the scripts' words). Checked here
#: by the browser's own selector engine, on the page as its scripts left it: no selector taken
#: out (those of the whole third-party sheets that the purged part of the bundle lacks, one by
#: one, as Chromium parses them: it drops a -moz- one from both) matches an element, once
#: :not(), :has(), the parts that depend on a state (:hover, :checked, ...) and those that style
#: no element of their own (::before, ...) are taken off it, which can only widen it. What only an
#: interaction makes (a tooltip, the copy dialog) is not on the page; test_search checks a page
#: with search results. The selectors taken out that match, and those unreadable once widened.
REMOVED_RULES = r"""
(texts) => {
  // The individual selectors of every style rule of a sheet's text, as Chromium reads them.
  const selectors = (text) => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(text);
    const out = new Set();
    const walk = (rules) => {
      for (const rule of rules) {
        if (rule.selectorText !== undefined) {
          let depth = 0, start = 0; const s = rule.selectorText;
          for (let i = 0; i <= s.length; i++) {
            const ch = s[i];
            if (ch === "(" || ch === "[") depth++;
            else if (ch === ")" || ch === "]") depth--;
            else if ((ch === "," && depth === 0) || i === s.length) { out.add(s.slice(start, i).trim()); start = i + 1; }
          }
        }
        if (rule.cssRules) walk(rule.cssRules);
      }
    };
    walk(sheet.cssRules);
    return out;
  };
  const kept = selectors(texts.purged);
  const removed = [...selectors(texts.whole)].filter((s) => !kept.has(s));
  // Take away what depends on a state or draws no element of its own, and every :not() and
  // :has() (each only filters): what is left matches every element the selector can ever style
  // (and more). Attribute selectors (their quoted values) and escaped characters are set aside
  // meanwhile, untouched.
  const STATE = /::?(?:before|after|marker|placeholder-shown|placeholder|selection|first-letter|first-line|backdrop|-webkit-[\w-]+|hover|focus-visible|focus-within|focus|active|visited|link|target|checked|disabled|enabled|indeterminate|invalid|valid|popover-open|modal|open|closed|autofill|default|fullscreen)(?![\w-])(?:\([^()]*\))?/g;
  const loose = (s) => {
    const aside = [];
    let t = s.replace(/\[(?:"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|[^\]"'])*\]|\\./g,
                      (m) => `\uE000${aside.push(m) - 1}\uE001`);
    for (let at; (at = t.search(/:(?:not|has)\(/)) >= 0;) {
      let end = t.indexOf("(", at), depth = 0;
      for (; end < t.length; end++) {
        if (t[end] === "(") depth++;
        else if (t[end] === ")" && --depth === 0) break;
      }
      t = t.slice(0, at) + t.slice(end + 1);
    }
    // combinators without spaces, then "*" for a compound left empty
    t = t.replace(STATE, "").replace(/\s*([>+~,])\s*/g, "$1").replace(/\s+/g, " ").trim()
      .replace(/(^|[>+~ (,])(?=[>+~ ),]|$)/g, "$1*");
    return t.replace(/\uE000(\d+)\uE001/g, (_, k) => aside[k]) || "*";
  };
  const matched = [], unparsed = [];
  for (const s of removed) {
    try { if (document.querySelector(loose(s))) matched.push(s); }
    catch (e) { unparsed.push(`${s} -> ${loose(s)}`); }
  }
  return {removed: removed.length, matched: matched.slice(0, 5), unparsed: unparsed.slice(0, 5),
          loose: texts.probe ? texts.probe.map(loose) : null};
}
"""
#: The phone width it is checked at (test_scroll's smallest window), and the desktop one (conftest's open_page).
PHONE = {"width": 360, "height": 800}
DESKTOP = {"width": 1280, "height": 900}


def background_rgb(page) -> tuple[int, int, int]:
    color = page.evaluate("getComputedStyle(document.body).backgroundColor")
    parts = [int(float(x)) for x in color[color.index("(") + 1:color.index(")")].split(",")[:3]]
    return tuple(parts)


def visible_fraction(png: bytes, bg: tuple[int, int, int]) -> float:
    """Share of pixels whose luminance differs clearly from the page background."""
    import numpy as np
    from PIL import Image

    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=float)
    weights = np.array([0.2126, 0.7152, 0.0722])
    far = np.abs(rgb @ weights - np.array(bg, dtype=float) @ weights) > 60
    return float(far.mean()) if far.size else 0.0


@functools.cache
def sheets_of(site: str) -> dict[str, str]:
    """The third-party sheets whole (as mkdocs_esm/stylesheets.py merges them) and what the purge left
    of them in the bundle the pages link (which the site's own sheets, whole, close)."""
    from mkdocs_esm import stylesheets
    root = Path(site)
    text = (root / "index.html").read_text(encoding="utf-8")
    bundle = re.search(r'<link rel="stylesheet" href="(assets/stylesheets/site\.[0-9a-f]{8}\.css)">', text)
    assert bundle, "the home page links no stylesheet bundle"
    # 404.html, a template no page event sees, links the sheets one by one, in the bundle's order
    links = re.findall(r'<link rel="stylesheet" href="/([^"]+)">', (root / "404.html").read_text(encoding="utf-8"))
    third = [link for link in links if link.endswith(".min.css")]
    assert len(third) == 3 and links[:3] == third, links
    # the site's own sheets close the bundle, whole; the rest is what the purge left of the others
    bundle_text = (root / bundle[1]).read_text(encoding="utf-8")
    own = "".join(stylesheets._parts(root, links[3:]))
    assert own and bundle_text.endswith(own), "the site's own sheets are not whole at the end of the bundle"
    return {"whole": stylesheets._merged(root, third), "purged": bundle_text[:-len(own)]}


@functools.cache
def axe_source() -> str:
    return AXE.read_text(encoding="utf-8") + "\n//# sourceURL=axe.min.js\n"


def enclosing_pixels(box: dict) -> dict:
    """The whole pixels that cover a CSS box (as Playwright's element screenshot takes them)."""
    x, y = math.floor(box["x"] + 1e-3), math.floor(box["y"] + 1e-3)
    right, bottom = math.ceil(box["x"] + box["width"] - 1e-3), math.ceil(box["y"] + box["height"] - 1e-3)
    return {"x": x, "y": y, "width": right - x, "height": bottom - y, "scale": 1}


def figure_problems(page, scheme: str) -> list[str]:
    """Each figure, revealed (its tab selected, its <details> open) and in the window, has a
    size of at least 40 x 40 px, is visible, and at least 0.4 % of its pixels stand out
    from the page background. One evaluate places a figure and one capture of its box
    (Chromium's Page.captureScreenshot) takes it: Playwright's locator calls (click on an
    already selected tab, scroll, box, visibility, element screenshot with its own waits and
    a caret-hiding style put in and taken out) took about twice the time and CPU."""
    problems: list[str] = []
    bg = background_rgb(page)
    cdp = page.context.new_cdp_session(page)
    for k in range(page.locator(FIGURES).count()):
        if page.evaluate(OPEN_DETAILS, k):
            fig = page.locator(FIGURES).nth(k)
            for label in page.evaluate_handle(REVEAL, fig.element_handle()).get_properties().values():
                label.as_element().click()
        box = page.evaluate(PLACE, k)
        if box["width"] < 40 or box["height"] < 40 or not box["visible"]:
            problems.append(f"figure {k + 1} is not visible ({box})")
            continue
        if box["inWindow"]:
            # Blocks above that the browser lays out late (content-visibility) can still move the
            # figure (scroll anchoring) between placing and capture: capture until it stayed put.
            for _ in range(5):
                shot = cdp.send("Page.captureScreenshot", {"format": "png", "clip": enclosing_pixels(box),
                                                           "optimizeForSpeed": True})
                again = page.evaluate(PLACE, k)
                if (again["x"], again["y"], again["width"], again["height"]) == \
                        (box["x"], box["y"], box["width"], box["height"]):
                    break
                box = again
            else:
                problems.append(f"figure {k + 1} kept moving: {box}")
            png = base64.b64decode(shot["data"])
        else:   # larger than the window: Playwright enlarges the window for the capture
            png = page.locator(FIGURES).nth(k).screenshot()
        share = visible_fraction(png, bg)
        if share < 0.004:
            problems.append(f"figure {k + 1} barely stands out in {scheme} mode ({share:.2%} of pixels)")
    cdp.detach()
    return problems


def record_weight(record, src: str, weight: int) -> None:
    """Add a page's weight to the record beside the site (.json, and .txt to read), which every
    pytest-xdist worker adds to: read, merged and written under a lock."""
    from filelock import FileLock

    with FileLock(f"{record}.lock"):
        weights = json.loads(record.read_text()) if record.exists() else {}
        weights[src] = weight
        record.write_text(json.dumps(weights, indent=1, sort_keys=True))
        record.with_suffix(".txt").write_text("".join(f"{w:>10,d}  {s}\n" for s, w in sorted(weights.items())))


#: The palette of the dark preference's media query, selected as Material selects it at a load
#: under that preference (its inputs' change event); what a reader who preferred dark gets.
TO_DARK = """
() => {
  const input = document.querySelector("input[data-md-color-media='(prefers-color-scheme: dark)']");
  if (!matchMedia(input.getAttribute("data-md-color-media")).matches) throw new Error("dark is not preferred");
  input.checked = true;
  input.dispatchEvent(new Event("change", {bubbles: true}));
}
"""


def wait_for_scheme(page, src: str, scheme: str) -> None:
    """Material's palette component applies the scheme the media query (the reader's preference)
    selects, at load and when the preference changes."""
    want = "slate" if scheme == "dark" else "default"
    try:
        page.wait_for_function("w => document.body.getAttribute('data-md-color-scheme') === w"
                               " && !document.body.hasAttribute('data-md-color-switching')", arg=want, timeout=10_000)
    except Exception:
        got = page.evaluate("document.body.getAttribute('data-md-color-scheme')")
        pytest.fail(f"{src}: colour scheme {got!r}, expected {want!r}")
    page.evaluate(SETTLE)


def colour_problems(page, built, scheme: str) -> list[str]:
    """What the scheme can change besides axe's colour rules: each figure stands out from the
    background, and no rule the build took out of the sheets applies (a rule can be scheme-specific)."""
    problems = figure_problems(page, scheme)
    removed = page.evaluate(REMOVED_RULES, sheets_of(str(built.dir)))
    problems += [f"a rule taken out of the stylesheets applies: {s}" for s in removed["matched"]]
    problems += [f"a selector taken out of the stylesheets, unreadable widened: {s}" for s in removed["unparsed"]]
    return problems


#: Material's chrome: the header (with the search dialog), the navigation and the footer, the same
#: on every page but for which link is the current one. axe checks it once
#: (test_materials_chrome_in_browser), and every page without it; the table of contents, which is
#: the page's own, is checked on each page.
CHROME = [".md-header", ".md-sidebar--primary", ".md-footer"]


def axe_problems(page, colour_only: bool, *, chrome: bool = False) -> list[str]:
    """axe's serious or critical violations: of the page without Material's chrome, or (``chrome``)
    of the chrome alone."""
    context = {"include": [[c] for c in CHROME]} if chrome else {"exclude": [[c] for c in CHROME]}
    return [f"axe {v['impact']}: {v['id']} ({v['help']}) at {v['nodes']}"
            for v in page.evaluate(AXE_RUN, [colour_only, context]) if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("src", PAGES)
def test_page_in_browser(open_page, built, src):
    """One visit a page: everything in the light scheme at a desktop width, then at a phone's
    width, then the reader's preference turned to dark in place (the page is not loaded again)
    and what a scheme can change checked again: the figures, the rules taken out, axe's colour
    rules; the traffic of the whole visit, the weight of its light load."""
    rel = url_of(src)
    page, traffic = open_page(rel, "light", wait="load")   # the traffic is awaited at the end
    problems: list[str] = []
    wait_for_scheme(page, src, "light")

    # Formulas: all rendered, none left as TeX (the same in either scheme).
    tex = page.evaluate(RAW_TEX)
    if tex["arithmatex"]:
        problems.append(f"{tex['arithmatex']} .arithmatex elements left")
    if tex["errors"]:
        problems.append(f"{tex['errors']} MathML errors (merror)")
    problems += [f"raw TeX visible: {t!r}" for t in tex["raw"]]

    # Figures: each has a size and visibly stands out from the background in this scheme; those
    # in content shipped inert until opened (mkdocs_esm/defer.py) too, put back as on printing.
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    problems += [f"light: {p}" for p in colour_problems(page, built, "light")]

    # Accessibility: no serious or critical violation.
    # Blocks that content-visibility:auto skips off screen are left "incomplete" by axe's
    # colour-contrast rule (about 50 text nodes of the exercises page): lay them all out first.
    page.add_style_tag(content=".md-typeset * { content-visibility: visible !important; }")
    page.evaluate(SETTLE)               # learner.js measures the boxes now laid out
    page.add_script_tag(content=axe_source())
    problems += [f"light: {p}" for p in axe_problems(page, colour_only=False)]

    strokes = page.evaluate(STROKES)
    problems += [f"figure stroke: {b}" for b in strokes["bad"]]
    # On a phone, every block laid out (the style above): the page is no wider than the window.
    page.set_viewport_size(PHONE)
    page.evaluate(SETTLE)
    wide = page.evaluate(TOO_WIDE)
    if wide["scroll"] > wide["window"]:
        problems.append(f"the page is {wide['scroll']} px wide in a {wide['window']} px window: {wide['boxes']}")
    icon = page.evaluate(FAVICON)
    if icon is None:
        problems.append("no <link rel=icon>")
    else:   # counted once its request has finished (the load's network idle is long past)
        with page.expect_request_finished(lambda r: r.url == icon):
            page.evaluate(FETCH, icon)
    traffic.settle(page)
    record_weight(built.dir.parent / "page-weights.json", src, traffic.bytes)
    if traffic.unsized:
        problems.append(f"requests of unknown size: {traffic.unsized[:3]}")
    if traffic.bytes > PAGE_BUDGET:
        problems.append(f"page weight {traffic.bytes:,d} bytes > budget {PAGE_BUDGET:,d}")

    # The reader's preference turns to dark, in place, at a desktop width again. Material picks
    # the palette whose media query matches once, at load (then keeps it in localStorage): its
    # palette input of the dark query is selected as that load would select it.
    page.set_viewport_size(DESKTOP)
    page.emulate_media(color_scheme="dark")
    page.evaluate(TO_DARK)
    wait_for_scheme(page, src, "dark")
    problems += [f"dark: {p}" for p in colour_problems(page, built, "dark")]
    problems += [f"dark: {p}" for p in axe_problems(page, colour_only=True)]

    traffic.settle(page)
    problems += traffic.problems()
    assert not problems, f"{src}:\n  " + "\n  ".join(problems)


def test_materials_chrome_in_browser(open_page):
    """Material's chrome, the same on every page, checked by axe once, on a lesson page (a current
    link in the navigation, a section open): all rules in light, the colour rules in dark."""
    page, traffic = open_page(url_of("part1/intuition.md"), "light", wait="load")
    wait_for_scheme(page, "part1/intuition.md", "light")
    assert page.locator(".md-sidebar--primary .md-nav__link--active").count() > 0
    page.add_script_tag(content=axe_source())
    problems = [f"light: {p}" for p in axe_problems(page, colour_only=False, chrome=True)]
    page.emulate_media(color_scheme="dark")
    page.evaluate(TO_DARK)
    wait_for_scheme(page, "part1/intuition.md", "dark")
    problems += [f"dark: {p}" for p in axe_problems(page, colour_only=True, chrome=True)]
    traffic.settle(page)
    problems += traffic.problems()
    assert not problems, "Material's chrome:\n  " + "\n  ".join(problems)


def built_html(built, src: str) -> str:
    return (built.dir / url_of(src) / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("src", lesson_sources())
def test_lesson_page_shows_reading_time_and_notes(built, src):
    if os.environ.get("ESM_SITE") and not (built.dir / url_of(src)).is_dir():
        pytest.skip("not in the site at $ESM_SITE")
    html = built_html(built, src)
    assert 'class="esm-readmeta"' in html and " min read" in html, f"{src}: no reading time"
    assert 'class="esm-notes"' in html, f"{src}: no notes panel"


def test_previous_and_next_links(built):
    """Material's footer links: only the first page lacks 'previous', only the last 'next'."""
    pages = [s for s in PAGES if (built.dir / url_of(s) / "index.html").is_file()]
    no_prev = [s for s in pages if "md-footer__link--prev" not in built_html(built, s)]
    no_next = [s for s in pages if "md-footer__link--next" not in built_html(built, s)]
    assert no_prev == ["index.md"]
    assert len(no_next) == 1, no_next


def test_not_found_page_names_materials_widgets(built):
    """404.html, a template no page event sees, names the search dialog and the progress bar as
    pages do (axe and Lighthouse: aria-dialog-name, aria-progressbar-name)."""
    html = (built.dir / "404.html").read_text(encoding="utf-8")
    assert 'role="dialog" aria-label="Search"' in html
    assert 'role="progressbar" aria-label="Loading the page"' in html


def test_not_found_page_links_pages_of_the_book(built):
    """overrides/404.html: a reader who followed a dead link finds the home, the overview and the
    notation, and where the removed pages went; every link of its content is a built page."""
    html = (built.dir / "404.html").read_text(encoding="utf-8")
    content = html[html.index("<h1>Page not found</h1>"):html.index("</article>")]
    links = re.findall(r'href="/([^"]*)"', content)
    assert {".", "overview/", "notation/", "primer/full-model/"} <= set(links), links
    for link in links:
        assert (built.dir / link / "index.html").is_file(), f"404.html links /{link}, not a page of the site"


#: What the removed-rules check asks the page for, once the states are taken off: never narrower.
WIDENED = {
    ".a:focus-within .b": ".a .b", ":focus-within>.b": "*>.b", ".md-icon:not(:disabled)": ".md-icon",
    ".x::before": ".x", ".a:not(.b)": ".a", ":is(:hover,.c) .d": ":is(*,.c) .d", ":hover": "*",
    ".md-typeset .placeholder-shown": ".md-typeset .placeholder-shown",
    ".a:not(:focus-visible):hover > .b::after": ".a>.b", "[dir=ltr] .x:not(.y, :checked)": "[dir=ltr] .x",
    '[data-md-color-media="(prefers-color-scheme: light)"] > .x:hover': '[data-md-color-media="(prefers-color-scheme: light)"]>.x',
    ":not(:not(:hover))": "*", ":not(:is(.a:hover)) .b": ".b", ":not(:has(:checked))": "*",
    ".a:has(> .b:hover)": ".a", "label:has(+ input:checked)": "label", '[type="a" i]': '[type="a" i]',
    '[data-x=":hover"] .y:focus': '[data-x=":hover"] .y', ".g\\:hover": ".g\\:hover",
}


def test_removed_rules_are_asked_for_widened(browser):
    page = browser.new_page()
    try:
        got = page.evaluate(REMOVED_RULES, {"whole": "", "purged": "", "probe": list(WIDENED)})["loose"]
    finally:
        page.close()
    assert dict(zip(WIDENED, got)) == WIDENED
