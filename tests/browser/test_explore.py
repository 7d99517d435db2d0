"""The explorable figures as a reader uses them (snippets/esm/explore.py, docs/javascripts/explore.js):
each control is moved with the keyboard (Home, then ArrowRight) or chosen from its select, and
the numbers the figure then shows are compared with numpy's, computed here from the same data
by the same formula, to the digits shown; the announced value (aria-valuetext) follows. Without
JavaScript, and in print, each figure shows its default state and no control. After instant
navigation the figures of the new page work."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from browser.conftest import SETTLE, lesson_sources, url_of

#: The state a figure shows: the text (or the attribute, or the style property) of each [data-o]
#: element, by index (data-o="3 4" data-a="x1 y1": two attributes of one element).
SHOWN = """
(k) => {
  const fig = document.querySelectorAll("figure.esm-explore")[k];
  const out = {};
  fig.querySelectorAll("[data-o]").forEach((el) => {
    const names = (el.getAttribute("data-a") || "").split(" ");
    el.getAttribute("data-o").split(" ").forEach((o, m) => {
      const a = names[m];
      out[o] = !a ? el.textContent
        : a.startsWith("style.") ? el.style.getPropertyValue(a.slice(6)) : el.getAttribute(a);
    });
  });
  return out;
}
"""


def softmax(z):
    e = np.exp(z - np.max(z))
    return e / e.sum()


def shown(page, k: int) -> dict[int, str]:
    """Once the figure has its numbers (explore.js fetches its states at the first move, and
    marks the figure aria-busy until they are in)."""
    page.wait_for_function("k => !document.querySelectorAll('figure.esm-explore')[k].hasAttribute('aria-busy')", arg=k)
    return {int(i): v for i, v in page.evaluate(SHOWN, k).items()}


def move(page, k: int, setting: list[int]) -> None:
    """Set figure k's controls to the value indices ``setting``: a slider by keyboard, a select
    by choosing its option, as a reader would."""
    fig = page.locator("figure.esm-explore").nth(k)
    for n, i in enumerate(setting):
        field = fig.locator(f'[data-c="{n}"]')
        if field.evaluate("el => el.tagName") == "SELECT":
            field.select_option(index=i)   # by index: an option's label may be another's value
        else:
            field.focus()
            page.keyboard.press("Home")
            for _ in range(i):
                page.keyboard.press("ArrowRight")
            assert field.input_value() == str(i)
            said = field.get_attribute("aria-valuetext")
            assert said and said == page.evaluate(
                "([k, n, i]) => JSON.parse(document.querySelectorAll('figure.esm-explore')[k]"
                ".getAttribute('data-explore')).controls[n].say[i]", [k, n, i])


def same(got: str | None, want: str) -> bool:
    """Equal as shown; a bar's width equal as a number (the browser writes 4.30% as 4.3%)."""
    if got is not None and want.endswith("%") and got.endswith("%"):
        return float(got[:-1]) == float(want[:-1])
    return got == want


def expect(got: dict[int, str], want: dict[int, str], where: str) -> None:
    bad = {i: (got.get(i), w) for i, w in want.items() if not same(got.get(i), w)}
    assert not bad, f"{where}: index: (shown, numpy's) {bad}"


# ------------------------------------------------------------------ numpy's values, per figure

def decoding_values(tau, k, xi):
    from esm import gpt_forward, tiny_gpt
    z = gpt_forward(np.array([3, 14, 15, 9, 26, 5, 35, 8]), tiny_gpt())[-1]
    p = softmax(z / tau)
    order = np.argsort(-p, kind="stable")
    run = np.cumsum(p[order])
    kept = min(k, int(np.argmax(run >= xi)) + 1 if (run >= xi).any() else len(z))
    mass = run[kept - 1]
    want = {0: str(kept), 1: f"{mass:.3f}"}
    for r, j in enumerate(order[:12]):
        q = p[j] / mass if r < kept else 0.0
        want.update({2 + 4 * r: f"{100 * p[j]:.2f}%", 3 + 4 * r: f"{100 * q:.2f}%",
                     4 + 4 * r: f"{q:.3f}" if r < kept else "0", 5 + 4 * r: "0" if r < kept else "1"})
    by_k, by_p = kept == k and k < len(z), mass >= xi and xi < 1     # k = 50 or xi = 1: that rule is off
    want[50] = "token" if kept == 1 else "tokens"
    want[51] = ("top-k and top-p bind together" if by_k and by_p else "top-k binds" if by_k
                else "top-p binds" if by_p else "neither rule binds")
    return want


def scaling_values(sigma, tau):
    rng = np.random.default_rng(4)
    q, K = rng.normal(0, 1, 64), rng.normal(0, 1, (8, 64))
    s = sigma * sigma * (K @ q)
    want = {}
    for c, div in enumerate((1.0, 8.0)):                # without and with 1/sqrt(64)
        a = softmax(s / div / tau)
        h = -sum(x * math.log2(x) for x in a if x > 0)
        want.update({2 * c: f"{h:.2f}", 2 * c + 1: f"{a.max():.3f}"})
        for j in range(8):
            want[4 + 4 * j + c] = f"{100 * a[j]:.1f}%"
            want[6 + 4 * j + c] = f"{a[j]:.2f}"
    return want


def rope_values(t, s):
    rng = np.random.default_rng(6)
    q, k = rng.normal(0, 1, 16), rng.normal(0, 1, 16)

    def rot(x, pos):                                    # pairs (2j, 2j+1) by angle pos * 10000^(-2j/16)
        out = x.copy()
        for j in range(8):
            a = pos * 10000.0 ** (-2 * j / 16)
            out[2 * j] = x[2 * j] * math.cos(a) - x[2 * j + 1] * math.sin(a)
            out[2 * j + 1] = x[2 * j] * math.sin(a) + x[2 * j + 1] * math.cos(a)
        return out
    want = {0: str(s - t), 1: f"{rot(q, t) @ rot(k, s):.3f}", 2: f"{q @ rot(k, s - t):.3f}"}
    for s2 in range(12):
        want[4 + 2 * s2] = f"{rot(q, t) @ rot(k, s2):.3f}"
        want[27 + s2] = "1" if s2 == s else "0"                  # the chosen key's row is marked
    return want


def alibi_values(h):
    m = 2.0 ** (-8 * (h + 1) / 8)
    w = softmax(-m * np.arange(16))
    assert 2 ** (h + 1) * m == 1
    want = {0: f"1/{2 ** (h + 1)}", 1: f"{w[0]:.2g}", 2: f"{w[15]:.2g}", 3: str(int(np.argmax(np.cumsum(w) >= 0.5)) + 1)}
    for j in range(16):                                 # two significant figures
        want.update({4 + 3 * j: f"{100 * w[j]:.1f}%", 5 + 3 * j: f"{-m * j + 0.0:.2g}", 6 + 3 * j: f"{w[j]:.2g}"})
    return want


def measures_values(r, deg):
    th = math.radians(deg)
    a, b = np.array([2.0, 0.0]), np.array([r * math.cos(th), r * math.sin(th)])
    return {0: f"{a @ b:.2f}", 1: f"{(a @ b) / (2 * r):.3f}", 2: f"{math.hypot(*(a - b)):.2f}",
            3: f"{60 + 20 * b[0]:.2f}", 4: f"{60 - 20 * b[1]:.2f}"}      # b's tip in the drawing


def quantise_values(b, G):
    rng = np.random.default_rng(82)
    E = rng.normal(0.0, 1.0, (1000, 64)) * np.exp(rng.normal(0.0, 0.5, (1000, 1))) / 8.0
    Eh = np.empty_like(E)
    levels = 2 ** (b - 1) - 1
    for i in range(1000):                               # group by group, in a loop
        for g in range(0, 64, G):
            x = E[i, g:g + G]
            scale = np.abs(x).max() / levels
            Eh[i, g:g + G] = np.round(x / scale) * scale
    rel = np.linalg.norm(E - Eh) / np.linalg.norm(E)
    cos = min(E[i] @ Eh[i] / (np.linalg.norm(E[i]) * np.linalg.norm(Eh[i])) for i in range(1000))
    per = b / 8 + 4 / G
    return {0: f"{rel:.4f}", 1: f"{cos:.4f}", 2: f"{per:.3f}", 3: f"{4 / per:.1f}"}


def minilm_weights():
    from esm import minilm_attention
    return minilm_attention("The cat sat on the mat because it was warm.", np.float64)   # (tokens, A)


def heads_values(l, h):
    """Layer l + 1, head h: the mean over rows of the weight on the previous key, the key itself,
    the next key, [CLS], [SEP], and the mean entropy of a row in nats; the key with the largest
    mean weight, and that weight (loops over rows)."""
    tokens, A = minilm_weights()
    a = A[l, h]
    T = len(a)
    means = [sum(a[t, t - 1] for t in range(1, T)) / (T - 1), sum(a[t, t] for t in range(T)) / T,
             sum(a[t, t + 1] for t in range(T - 1)) / (T - 1), sum(a[t, 0] for t in range(T)) / T,
             sum(a[t, T - 1] for t in range(T)) / T]
    ent = sum(-sum(x * math.log(x) for x in row if x > 0) for row in a) / T
    want = {k: f"{v:.2f}" for k, v in enumerate([*means, ent])}
    want.update({6 + k: f"{100 * v:.1f}%" for k, v in enumerate(means)})
    want[11] = f"{100 * ent / math.log(T):.1f}%"
    column = [sum(a[t, s] for t in range(T)) / T for s in range(T)]     # what each key gets, by a loop
    best = max(range(T), key=lambda s: column[s])
    want.update({12: tokens[best], 13: f"{column[best]:.2f}", 14: f"{100 * column[best]:.1f}%"})
    want[15] = (f"Layer {l + 1}, head {h}: weight on the previous token {want[0]}, on itself {want[1]}, on the next "
                f"token {want[2]}, on [CLS] {want[3]}, on [SEP] {want[4]}; heaviest column {want[12]}, {want[13]}; "
                f"entropy {want[5]} nats.")
    return want


_RUN: dict = {}


def neighbours_values(i, j):
    """The tiny GPT's token table at the j-th kept step: the 5 rows nearest to probe i's row by
    cosine (dot products over norms, sorted), their cosines, and the validation loss there."""
    from esm.tokenizer import VOCAB_SIZE, data
    from esm.train import SNAPSHOTS, TRAIN, trained
    if not _RUN:
        D = data()
        model, _, evals, snaps = trained(D.train, D.val, VOCAB_SIZE, TRAIN, snapshots=SNAPSHOTS)
        _RUN.update(D=D, evals={int(s): v for s, _, v in evals},
                    E={**{s: snaps[s]["E"] for s in SNAPSHOTS}, TRAIN["steps"]: model["E"]})
    D, step = _RUN["D"], NEIGHBOUR_STEPS[j]
    tokens = list(D.alphabet) + [a + b for a, b in D.merges]
    E = _RUN["E"][step].astype(float)
    r = tokens.index(PROBES[i])
    cos = sorted(((float(E[r] @ E[n] / (np.linalg.norm(E[r]) * np.linalg.norm(E[n]))), -n) for n in range(len(E)) if n != r),
                 reverse=True)[:5]                      # ties: the lower index first
    want = {}
    for m, (c, n) in enumerate(cos):
        want.update({m: tokens[-n].replace(" ", "␣").replace("\n", "↵"), 5 + m: f"{c:.2f}",
                     10 + m: f"{100 * max(c, 0.0):.1f}%"})
    want[15] = f"{_RUN['evals'][step]:.3f}"
    shown = PROBES[i].replace(" ", "␣")
    want[16] = (f"'{shown}' at step {step}: nearest " + ", ".join(f"'{want[m]}' {want[5 + m]}" for m in range(5))
                + f"; validation loss {want[15]} nats.")
    return want


PROBES = [" the", " and", " I", "ing", "ed", ",", ".", "A"]
#: The steps the neighbours figure offers: the run's snapshots and its last step (explore_neighbours.py).
from esm.train import SNAPSHOTS as _SNAPSHOTS, TRAIN as _TRAIN  # noqa: E402
NEIGHBOUR_STEPS = [*_SNAPSHOTS, _TRAIN["steps"]]
TAUS, XIS = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0], [round(0.05 * i, 2) for i in range(1, 21)]
KS = [*range(1, 13), 50]
SIGMAS, SOFT_TAUS = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0], [0.25, 0.5, 1.0, 2.0, 4.0]
LENGTHS, ANGLES = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0], list(range(0, 181, 15))
BITS, GROUPS = [2, 3, 4, 5, 6, 8], [8, 16, 32, 64]

#: page, figure index on it, the default setting (value indices), settings to move to, numpy's
#: values, the caption's "Shown:" clause
FIGURES = {
    "decoding": ("primer/decoding.md", 0, [1, 4, 17],
                 [[0, 2, 9], [6, 12, 18], [3, 12, 19], [7, 0, 5], [2, 7, 13], [3, 12, 0], [3, 2, 19]],
                 lambda i, j, n: decoding_values(TAUS[i], KS[j], XIS[n]),
                 lambda i, j, n: f"τ = {TAUS[i]}, k = {KS[j]}, ξ = {XIS[n]}"),
    "scaling": ("primer/softmax-and-scores.md", 0, [3, 2], [[0, 0], [6, 0], [6, 4], [2, 3]],
                lambda i, j: scaling_values(SIGMAS[i], SOFT_TAUS[j]),
                lambda i, j: f"σ = {SIGMAS[i]:g}, τ = {SOFT_TAUS[j]:g}"),
    "rope": ("part2/positional-information.md", 0, [2, 5], [[0, 0], [7, 3], [11, 11], [4, 9]], rope_values,
             lambda t, s: f"t = {t}, s = {s}"),
    "alibi": ("part2/positional-information.md", 1, [0], [[3], [7], [1]], alibi_values, lambda h: f"head {h}"),
    "measures": ("part1/similarity-geometry.md", 0, [3, 3], [[0, 0], [5, 12], [1, 6], [4, 8]],
                 lambda i, j: measures_values(LENGTHS[i], ANGLES[j]),
                 lambda i, j: f"|b| = {LENGTHS[i]:g}, θ = {ANGLES[j]}°"),
    "heads": ("part3/attention-bridge.md", 0, [0, 2], [[1, 8], [2, 7], [5, 11], [3, 0]], heads_values,
              lambda l, h: f"layer {l + 1}, head {h}"),
    "neighbours": ("primer/training-run.md", 0, [0, 1], [[2, 0], [0, 4], [7, 3], [3, 4], [5, 2]], neighbours_values,
                   lambda i, j: f"token '{PROBES[i].replace(' ', '␣')}', step {NEIGHBOUR_STEPS[j]}"),
    "quantise": ("part3/scale-and-diagnostics.md", 0, [2, 1], [[0, 0], [5, 3], [3, 2], [1, 0]],
                 lambda i, j: quantise_values(BITS[i], GROUPS[j]), lambda i, j: f"b = {BITS[i]}, G = {GROUPS[j]}"),
}


@pytest.fixture(autouse=True)
def _train_cache(built, monkeypatch):
    """The tiny GPT's run, read from the execution cache the session build filled (training it
    again would take half a minute)."""
    if built.cache is not None:
        import esm.train
        from mkdocs_esm.runs import Runs
        monkeypatch.setattr(esm.train, "store", Runs(built.cache / "train", Path(esm.train.__file__).parent))


def caption_shown(page, k: int) -> str:
    return page.locator("figure.esm-explore").nth(k).locator(".esm-explore__shown").text_content()


@pytest.mark.parametrize("name", FIGURES)
def test_controls_show_numpys_numbers(open_page, name):
    src, k, default, settings, values, said = FIGURES[name]
    page, traffic = open_page(url_of(src))
    page.locator("figure.esm-explore").nth(k).scroll_into_view_if_needed()
    expect(shown(page, k), values(*default), f"{name} at load")
    assert caption_shown(page, k) == f"Shown: {said(*default)}."
    for setting in settings:
        move(page, k, setting)
        expect(shown(page, k), values(*setting), f"{name} at {setting}")
        assert caption_shown(page, k) == f"Shown: {said(*setting)}.", f"{name} at {setting}: the caption"
    assert traffic.problems() == []


CELLS = "(k) => [...document.querySelectorAll('figure.esm-explore')[k].querySelectorAll('.esm-heat i')]" \
        ".map((el) => getComputedStyle(el).backgroundColor)"


def test_heat_map_shows_the_chosen_heads_weights(open_page):
    """Each cell of the MiniLM heat map has the colour of its weight: matplotlib's viridis at
    the nearest of 32 steps from 0 to 1, at load and after each choice of layer and head."""
    import matplotlib
    src, k, default, settings, _, _ = FIGURES["heads"]
    A = minilm_weights()[1]
    page, traffic = open_page(url_of(src))
    page.locator("figure.esm-explore").nth(k).scroll_into_view_if_needed()
    for n, (l, h) in enumerate([default, *settings]):
        if n:
            move(page, k, [l, h])
            shown(page, k)
        want = [f"rgb({r}, {g}, {b})" for r, g, b in
                (tuple(round(255 * c) for c in matplotlib.colormaps["viridis"](round(31 * w) / 31)[:3])
                 for w in A[l, h].ravel())]
        assert page.evaluate(CELLS, k) == want, f"layer {l + 1}, head {h}"
    assert traffic.problems() == []


@pytest.mark.parametrize("media", ["noscript", "print"])
def test_default_figure_without_script_and_in_print(browser, base_url, media):
    """No JavaScript (or print, script on): every figure shows numpy's default state, and no
    control is shown; the script is not what draws the default figure."""
    ctx = browser.new_context(java_script_enabled=(media != "noscript"), viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    try:
        for name, (src, k, default, _, values, said) in FIGURES.items():
            page.goto(base_url + url_of(src))
            if media == "print":
                page.emulate_media(media="print")
            fig = page.locator("figure.esm-explore").nth(k)
            fig.scroll_into_view_if_needed()
            assert fig.is_visible(), name
            assert not fig.locator(".esm-explore__controls").is_visible(), f"{name}: controls shown in {media}"
            assert fig.locator("figcaption").text_content().strip(), name
            assert caption_shown(page, k) == f"Shown: {said(*default)}.", name
            expect(shown(page, k), values(*default), f"{name} ({media})")
            if media == "noscript":
                assert page.evaluate("document.documentElement.className") in ("no-js", "")
    finally:
        ctx.close()


def test_figures_work_after_instant_navigation(browser, base_url, built):
    """Material swaps the page in without a reload: the figures of the new page still work
    (explore.js runs again from inside Material's container). Instant navigation needs the
    sitemap that a build with `site_url` has: the browser is handed one (as test_learner does)."""
    lessons = lesson_sources()
    target = FIGURES["decoding"][0]
    explorable = {page for page, *_ in FIGURES.values()}
    before = next(s for s in reversed(lessons[:lessons.index(target)]) if s not in explorable)   # a page without one
    locs = "".join(f"<url><loc>{base_url}{url_of(s)}</loc></url>" for s in lessons + ["index.md"])
    sitemap = f'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{locs}</urlset>'
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.route("**/sitemap.xml", lambda route: route.fulfill(status=200, content_type="application/xml", body=sitemap))
    page = ctx.new_page()
    try:
        page.goto(base_url + url_of(before), wait_until="networkidle")
        assert page.locator("figure.esm-explore").count() == 0
        page.evaluate("window.__sameDocument = true")
        # a link to the target (the sidebar's), clicked: Material swaps the page in
        page.evaluate("(u) => [...document.querySelectorAll('a')].find((a) => a.href === u).click()",
                      base_url + url_of(target))
        page.wait_for_load_state("networkidle")
        page.wait_for_selector("figure.esm-explore[data-ready]", timeout=60_000)
        assert page.evaluate("window.__sameDocument") is True, "instant navigation reloaded the page"
        page.evaluate(SETTLE)
        move(page, 0, [0, 2, 9])
        expect(shown(page, 0), decoding_values(TAUS[0], KS[2], XIS[9]), "decoding after instant navigation")
    finally:
        ctx.close()
