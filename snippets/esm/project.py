"""The book's own sources, for the home page's demos (the course map, the prerequisites): the
project's folders, its navigation as mkdocs.yml writes it, a page's title and its built address.
Not imported by ``esm`` itself: no lesson needs it, so no page notebook carries it.

Nothing is looked up when the module is imported: ``root``, ``docs``, ``snippets``, ``nav`` and
``sections`` are found when first asked for. ``snippets`` is the folder this package sits in (the
plugin's ``python_path``, whatever its name); ``docs`` is mkdocs.yml's ``docs_dir``.
"""
import functools
import re
from pathlib import Path

import yaml

__all__ = ["root", "docs", "snippets", "nav", "sections", "title", "url"]


@functools.cache
def _root() -> Path:
    """The project's folder (it holds mkdocs.yml): the working directory or a folder above it,
    else this module's folder or one above it (a demo run from elsewhere with the helpers on the
    path). Outside the project: an error naming where it looked, at once (the walk up ends at the
    file system's root)."""
    looked = []
    for start in (Path.cwd(), Path(__file__).resolve().parent):
        for folder in (start, *start.parents):
            if folder in looked:
                continue
            looked.append(folder)
            if (folder / "mkdocs.yml").is_file():
                return folder
    raise FileNotFoundError(f"esm.project: the book's project (a folder holding mkdocs.yml) is neither the "
                            f"working directory {Path.cwd()}, nor above it, nor above this module "
                            f"{Path(__file__).resolve()}; looked in: " + ", ".join(map(str, looked)))


class _Loader(yaml.SafeLoader):                     # mkdocs.yml's !ENV and !relative tags: not needed here
    pass


_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)


@functools.cache
def _config() -> dict:
    return yaml.load((_root() / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)


def __getattr__(name):
    """The module's folders and navigation, found on first use (PEP 562)."""
    if name == "root":
        return _root()
    if name == "docs":
        return _root() / (_config().get("docs_dir") or "docs")
    if name == "snippets":
        return Path(__file__).resolve().parents[1]
    if name == "nav":
        return _config()["nav"]
    if name == "sections":         # the navigation's sections, (name, pages), in order
        return [(section, pages) for item in _config()["nav"] for section, pages in item.items()
                if isinstance(pages, list)]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def title(page):
    """A page's title as its first heading writes it; a primer chapter is prefixed by its number."""
    text = (__getattr__("docs") / page).read_text(encoding="utf-8")
    number = re.search(r"^eq_prefix:\s*(\S+)", text, re.M)
    heading = re.search(r"^# (.+)$", text, re.M)[1].strip()
    return f"{number[1]} {heading.split(':')[0]}" if number else heading


def url(page):
    """The built page's address from the home page: what a demo prints is Markdown that MkDocs does
    not read for links, so a link to ``part1/intuition.md`` would stay one (a 404 on the site)."""
    return re.sub(r"(index)?\.(md|py)$", "", page).rstrip("/") + "/"
