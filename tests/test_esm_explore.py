"""esm.explore: the figure's markup shows the default state, holds every state of the grid in
row-major order, and labels each control; and the plugin adds the script to those pages only."""

from __future__ import annotations

import html
import json
import re
from types import SimpleNamespace

import pytest

from esm.explore import Control, bar, explorable, out
from mkdocs_esm import explore as plugin_explore


def grid():
    controls = [Control("a", [1, 2], default=1), Control("b", ["x", "y", "z"], kind="select", default=0)]
    states = {(i, j): [f"{i}{j}", f"{10 * (i + j)}%"] for i in range(2) for j in range(3)}
    return controls, states


def payload(text: str) -> dict:
    return json.loads(html.unescape(re.search(r'data-explore="([^"]*)"', text)[1]))


def test_grid_row_major_and_default_shown():
    controls, states = grid()
    text = explorable(controls, out(0, "10") + bar(1, "10%"), states=states, caption="c")
    data = payload(text)
    assert data["states"] == [states[(i, j)] for i in range(2) for j in range(3)]
    assert data["controls"][0] == {"values": ["1", "2"], "say": ["a = 1", "a = 2"], "shown": ["a = 1", "a = 2"]}
    assert '<span class="esm-explore__shown">Shown: a = 2, b = x.</span></figcaption>' in text
    assert 'aria-valuetext="a = 2"' in text and 'value="1"' in text          # the slider at its default
    assert '<option value="0" selected>x</option>' in text
    assert re.search(r'<label for="(x[0-9a-f]{8}-0)">a</label><input type="range" id="\1"', text)
    assert '<div class="esm-explore__controls" hidden>' in text               # shown by the script only


def test_default_figure_must_show_the_default_state():
    controls, states = grid()
    with pytest.raises(ValueError, match="default state"):
        explorable(controls, out(0, "00") + bar(1, "10%"), states=states, caption="c")
    with pytest.raises(ValueError, match="default state"):
        explorable(controls, out(0, "10") + bar(1, "99%"), states=states, caption="c")


def test_control_arguments_checked():
    with pytest.raises(ValueError):
        Control("a", [1, 2], default=2)
    with pytest.raises(ValueError):
        Control("a", [1, 2], say=["one"])
    with pytest.raises(ValueError):
        Control("a", [1], kind="checkbox")


def test_script_only_on_pages_with_a_figure():
    page = SimpleNamespace(url="part1/x/", file=SimpleNamespace(src_uri="part1/x.md"))
    plain = "<html><article>text</article></html>"
    assert plugin_explore.on_post_page(plain, page) == plain
    with_fig = '<article><figure class="esm-explore" id="x1"></figure></article>'
    got = plugin_explore.on_post_page(with_fig, page)
    assert got.count("<script") == 1 and '<script defer src="../../javascripts/explore.js"></script>\n</article>' in got


def test_one_element_may_show_two_attributes():
    controls = [Control("a", [1, 2], default=0, shown=["a is 1", "a is 2"])]
    states = {(0,): ["5", "6"], (1,): ["7", "8"]}
    text = explorable(controls, '<line data-o="0 1" data-a="x1 y1" x1="5" y1="6"/>', states=states, caption="c")
    assert "Shown: a is 1." in text
    with pytest.raises(ValueError, match="default state"):
        explorable(controls, '<line data-o="0 1" data-a="x1 y1" x1="5" y1="9"/>', states=states, caption="c")


def test_heat_map_cells_must_show_the_default_codes():
    from esm.explore import heatmap
    controls = [Control("a", [1, 2], default=1, kind="select")]
    palette = ["#000000", "#ffffff"]
    codes = {(0,): "0101", (1,): "1100"}
    states = {(0,): ["x"], (1,): ["y"]}
    body = heatmap(codes[(1,)], palette, ["r0", "r1"], ["c0", "c1"], label="m") + '<span data-o="0">y</span>'
    text = explorable(controls, body, states=states, heat=(palette, codes), caption="c")
    assert "&quot;heat&quot;:[&quot;0101&quot;,&quot;1100&quot;]" in text
    assert body.count('<i style="background:#ffffff">') == 2
    with pytest.raises(ValueError, match="default heat map"):
        explorable(controls, heatmap(codes[(0,)], palette, ["r0", "r1"], ["c0", "c1"], label="m")
                   + '<span data-o="0">y</span>', states=states, heat=(palette, codes), caption="c")
    with pytest.raises(ValueError, match="codes for"):
        heatmap("010", palette, ["r0", "r1"], ["c0", "c1"], label="m")


def test_states_move_to_a_file_beside_the_page_and_the_controls_stay(tmp_path):
    controls, states = grid()
    fig = explorable(controls, out(0, "10") + bar(1, "10%"), states=states, caption="c")
    page = SimpleNamespace(file=SimpleNamespace(dest_uri="part9/page/index.html", src_uri="part9/page.md"), url="part9/page/")
    got = plugin_explore.move_data(f"<article>{fig}</article>", page, str(tmp_path))
    ident = re.search(r'id="(x[0-9a-f]{8})"', fig)[1]
    assert f'data-explore-src="{ident}.json"' in got and got.count("data-explore=") == 1
    kept, moved = payload(got), json.loads((tmp_path / "part9" / "page" / f"{ident}.json").read_text(encoding="utf-8"))
    assert kept == {"kind": "grid", "controls": payload(fig)["controls"]}
    assert kept | moved == payload(fig)
    assert plugin_explore.move_data("<p>no figure</p>", page, str(tmp_path)) == "<p>no figure</p>"
