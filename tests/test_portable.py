"""The same book on every machine: what the site shows holds on every CPU path.

A result at rounding level (two routes' agreement, a residual) is rounding noise, which differs
from one CPU, BLAS kernel, SIMD target or thread count to another. The book shows it only as a
bound in the folded check lines, never as the measured value. Three guards:

- `esm.glue` refuses to publish such a value (tests below), so prose, captions and tables that
  quote computed values cannot quote one, nor print one as "0.000" or "0×10⁰";
- a passing `check_close` line states its bound, never the measured difference (tests/test_esm_output.py);
- the built site is scanned here for any number at rounding level shown anyway (a demo's own
  f-string), and `make portable` (tools/portable.py) diffs whole builds under several CPU paths.
"""

from __future__ import annotations

import html
import re

import pytest

import esm

#: A number shown at rounding level: 1e-10 and smaller in either notation the site prints
#: (Python's "2.2e-16", the prose's "2.2×10⁻¹⁶" or MathML's 10 with a superscript), and "0×10⁰".
_SMALL = re.compile(r"\d(?:\.\d+)?(?:e-[1-9]\d\b|×10⁻[¹²³⁴⁵⁶⁷⁸⁹][⁰¹²³⁴⁵⁶⁷⁸⁹])")
_ZERO_SCI = re.compile(r"\b0(?:\.0+)?(?:e[+-]0+\b|×10⁰)")


@pytest.mark.parametrize("value, fmt", [(2.2e-16, ".1e"), (-4.4e-16, ".0e"), (1e-17, ".3f"), (3e-10, "g"),
                                        (0.0, ".0e"), (0.0, ".1e"), ([0.5, 1e-15], ".2f")])
def test_glue_refuses_a_rounding_level_value(value, fmt):
    with pytest.raises(ValueError, match=r"rounding level.* Let the check below the demo state the bound, "
                                         r"and say 'to rounding' in the text$"):
        esm.glue("x", value, fmt)         # and says what to do instead


@pytest.mark.parametrize("value, fmt", [(0.0, ".3f"), (0.0, "g"), (1.2e-7, ".1e"), (1e-6, ".1e"), (0.5, ".2f"), (0, "")])
def test_glue_publishes_an_exact_zero_and_small_true_values(value, fmt):
    assert esm.glue("x", value, fmt).startswith("\nvalue x = ")


def test_the_scan_finds_rounding_noise_in_each_notation():
    for text in ("max |diff| 2.22045e-16", "to 1.3×10⁻¹⁴.", "largest 4e-16", "agrees to 9×10⁻¹¹", "to 0×10⁰"):
        assert _SMALL.search(text) or _ZERO_SCI.search(text), text
    for text in ("ε = 1.2×10⁻⁷", "squared 1.0e-06", "1e-08 + 1e-05·|expected|", "10⁻⁸", "2.1e+03", "0.000"):
        assert not (_SMALL.search(text) or _ZERO_SCI.search(text)), text


def _visible_text(page: str) -> str:
    """What a reader sees of a page, less its source code (a constant such as ``atol=1e-12`` in
    code is chosen, not computed): demos' outputs, check lines, prose, tables and captions."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    page = re.sub(r'<div class="[^"]*highlight[^"]*"[^>]*>.*?</pre>', " ", page, flags=re.S)
    page = re.sub(r"<annotation\b.*?</annotation>", " ", page, flags=re.S)   # the TeX source of a formula
    page = re.sub(r"<msup><mn>10</mn><mrow><mo>−</mo><mn>(\d+)</mn></mrow></msup>",
                  lambda m: "10⁻" + m[1].translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")), page)
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def test_no_page_shows_a_rounding_level_value(site):
    """Prose, captions, tables, alt texts and check lines alike: a bound is written as the check's
    tolerance (``<= 1e-12``, which is not noise), never as a measured value."""
    found = []
    for page in sorted(site.dir.rglob("*.html")):
        text = _visible_text(page.read_text(encoding="utf-8"))
        text += " ".join(html.unescape(a) for a in re.findall(r'(?:aria-label|alt)="([^"]*)"',
                                                               page.read_text(encoding="utf-8")))
        for m in list(_SMALL.finditer(text)) + list(_ZERO_SCI.finditer(text)):
            context = text[max(0, m.start() - 80):m.end() + 20].replace("\n", " ")
            if re.search(r"(?:<=|≤|<|>|\+|below|within|tolerance|atol|bound =)\s*\(?\+?\s*$",
                         text[max(0, m.start() - 12):m.start()]):
                continue                         # a stated bound or tolerance, the same on every machine
            found.append(f"{page.relative_to(site.dir)}: …{context}…")
    assert not found, "rounding-level values shown:\n" + "\n".join(found[:40])
