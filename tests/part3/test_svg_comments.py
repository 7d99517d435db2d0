"""esm.svg drops matplotlib's XML comments (they hold the TeX source of mathtext and of log
tick labels, whose $...$ the page's math extension would take for formulas: found in 7.2)
and leaves no blank line inside the figure (a blank line ends a Markdown HTML block)."""

from __future__ import annotations

import re

import esm


def test_svg_has_no_comments_and_no_blank_lines():
    fig, ax = esm.figure()
    ax.semilogx([0.1, 1.0, 10.0], [0.0, 1.0, 2.0], label=r"$\log T$")
    ax.set_xlabel(r"temperature $\tau$")
    ax.legend()
    out = esm.svg(fig, alt="comment test", caption=r"a caption with $\tau$ and $\log 6$")
    body = out[out.index("<svg"):out.index("</svg>")]
    assert "<!--" not in body and "-->" not in body
    assert "$" not in body                       # no TeX source left where arithmatex could see it
    assert not [line for line in out.strip().splitlines() if not line.strip()]
    # The caption's two formulas stay as two separate math spans for the build's Temml.
    assert len(re.findall(r'<span class="arithmatex">', out)) == 2
