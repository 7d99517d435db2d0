"""The search feature (mkdocs_esm.search) keeps each page's search entries in the execution cache: a page indexed from
the cache gets exactly the entries Material's parser makes, and any change to what the parser
reads is a miss."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from material.plugins.search.plugin import SearchIndex
from mkdocs.structure.toc import get_toc

from sitebuild import load_hook

ROOT = Path(__file__).resolve().parents[1]


def _hook():
    return load_hook("search")


def _page(text: str, title: str = "Title"):
    toc = get_toc([{"level": 1, "id": "title", "name": title, "children": [
        {"level": 2, "id": "a", "name": "A", "children": []}]}])
    html = f'<h1 id="title">{title}</h1><p>{text}</p><h2 id="a">A</h2><p>More about {text}.</p>'
    return SimpleNamespace(url="part/page/", title=title, content=html, toc=toc, meta={})


def _index(tmp_path, monkeypatch, pages) -> tuple[list, list]:
    """(entries through the hook, entries from Material alone) for ``pages``."""
    from mkdocs_esm.state import BuildState

    plugin = SimpleNamespace(search_index=SearchIndex())
    config = SimpleNamespace(plugins={"search": plugin})
    _hook().Search().on_config(config, BuildState(root=tmp_path, cache_dir=tmp_path / "cache"))
    plain = SearchIndex()
    for page in pages:
        plugin.search_index.add_entry_from_context(page)
        plain.add_entry_from_context(page)
    return plugin.search_index.entries, plain.entries


def test_entries_from_the_cache_are_materials_and_edits_miss(tmp_path, monkeypatch):
    pages = [_page("vectors"), _page("vectors"), _page("matrices"), _page("vectors", title="Retitled")]
    cached, plain = _index(tmp_path, monkeypatch, pages)
    assert cached == plain
    texts = [e["text"] for e in cached if e["location"] == "part/page/#a"]
    assert [("matrices" in t, "vectors" in t) for t in texts] == [(False, True), (False, True), (True, False),
                                                                  (False, True)]
    assert [e["title"] for e in cached if e["location"] == "part/page/"] == ["Title", "Title", "Title", "Retitled"]
    assert (tmp_path / "cache").is_dir()
    again, plain = _index(tmp_path, monkeypatch, pages)     # a second build: every page from the cache
    assert again == plain
