"""Explorable figures: the script tag, and each figure's data in a file of its own.

A demo prints an explorable figure with ``esm.explore.explorable`` (a ``figure.esm-explore``
that shows its default state as plain HTML, every state of its controls as JSON in its
``data-explore`` attribute). Its controls work through one small script,
``docs/javascripts/explore.js``, which no other page loads: after a page is rendered, a page
holding such a figure gets ``<script defer src=".../javascripts/explore.js">`` at the end of its
``<article>``. The tag sits inside Material's container on purpose: instant navigation runs the
scripts of that container again each time it swaps a page in, so the figures of a page reached
without a reload are set up too.

The states are not needed until a reader moves a control, and a figure's can outweigh its page
(the MiniLM heat maps: 13 KB compressed). So ``move_data`` writes each figure's states beside the
page as ``<figure id>.json`` (the id is a hash of the JSON: a changed figure gets a new name,
and nothing stale is fetched), keeps its controls in ``data-explore`` (what the script
announces the moment one moves) and names the file in ``data-explore-src``; the script fetches
it at the first move.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from mkdocs.utils import get_relative_url

SCRIPT = "javascripts/explore.js"
MARK = 'class="esm-explore"'
#: What stays in the page: what the script needs the moment a control moves (the announced text).
KEPT = ("kind", "controls")
FIGURE = re.compile(r'(<figure class="esm-explore" id="(x[0-9a-f]{8})") data-explore="([^"]*)"')


def on_post_page(output: str, page) -> str:
    """``output`` with the script tag before its first ``</article>`` when it has a figure."""
    if MARK not in output:
        return output
    at = output.find("</article>")
    if at < 0:
        raise ValueError(f"{page.file.src_uri}: an explorable figure outside an <article>")
    src = get_relative_url(SCRIPT, page.url)
    return f'{output[:at]}<script defer src="{src}"></script>\n{output[at:]}'


def move_data(output: str, page, site_dir: str) -> str:
    """``output`` with each figure's ``data-explore`` JSON, its controls aside, written to
    ``<id>.json`` in the page's folder of ``site_dir`` and named by ``data-explore-src``."""
    if MARK not in output:
        return output
    folder = Path(site_dir) / Path(page.file.dest_uri).parent

    def move(m: re.Match) -> str:
        data = json.loads(html.unescape(m[3]))
        kept = {key: data.pop(key) for key in KEPT}
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{m[2]}.json").write_text(json.dumps(data, separators=(",", ":"), ensure_ascii=False), encoding="utf-8")
        text = html.escape(json.dumps(kept, separators=(",", ":"), ensure_ascii=False))
        return f'{m[1]} data-explore="{text}" data-explore-src="{m[2]}.json"'
    return FIGURE.sub(move, output)
