"""Explorable figures: the script tag, on the pages that have one.

A demo prints an explorable figure with ``esm.explore.explorable`` (a ``figure.esm-explore``
that shows its default state as plain HTML). Its controls work through one small script,
``docs/javascripts/explore.js``, which no other page loads: after a page is rendered, a page
holding such a figure gets ``<script defer src=".../javascripts/explore.js">`` at the end of its
``<article>``. The tag sits inside Material's container on purpose: instant navigation runs the
scripts of that container again each time it swaps a page in, so the figures of a page reached
without a reload are set up too.
"""

from __future__ import annotations

from mkdocs.utils import get_relative_url

SCRIPT = "javascripts/explore.js"
MARK = 'class="esm-explore"'


def on_post_page(output: str, page) -> str:
    """``output`` with the script tag before its first ``</article>`` when it has a figure."""
    if MARK not in output:
        return output
    at = output.find("</article>")
    if at < 0:
        raise ValueError(f"{page.file.src_uri}: an explorable figure outside an <article>")
    src = get_relative_url(SCRIPT, page.url)
    return f'{output[:at]}<script defer src="{src}"></script>\n{output[at:]}'
