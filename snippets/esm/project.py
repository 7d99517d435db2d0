"""The book's own sources, for the home page's demos (the course map, the prerequisites): the
project's folders, its navigation as mkdocs.yml writes it, a page's title and its built address.
Not imported by ``esm`` itself: no lesson needs it, so no page notebook carries it."""
import re
from pathlib import Path

import yaml


def _root() -> Path:
    """The project's folder (it holds mkdocs.yml and snippets/esm/): the working directory or a
    folder above it, else this file's folder or one above it (a demo run from elsewhere with
    snippets/ on the path). Outside the project: an error naming where it looked, at once (the
    walk up ends at the file system's root)."""
    looked = []
    for start in (Path.cwd(), Path(__file__).resolve().parent):
        for folder in (start, *start.parents):
            if folder in looked:
                continue
            looked.append(folder)
            if (folder / "mkdocs.yml").is_file() and (folder / "snippets" / "esm").is_dir():
                return folder
    raise FileNotFoundError(f"esm.project: the book's project (a folder holding mkdocs.yml and snippets/esm/) is "
                            f"neither the working directory {Path.cwd()}, nor above it, nor above this module "
                            f"{Path(__file__).resolve()}; looked in: " + ", ".join(map(str, looked)))


root = _root()
docs, snippets = root / "docs", root / "snippets"


class _Loader(yaml.SafeLoader):                     # mkdocs.yml's !ENV and !relative tags: not needed here
    pass


_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
nav = yaml.load((root / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)["nav"]
#: The navigation's sections, (name, pages), in order.
sections = [(name, pages) for item in nav for name, pages in item.items() if isinstance(pages, list)]


def title(page):
    """A page's title as its first heading writes it; a primer chapter is prefixed by its number."""
    text = (docs / page).read_text(encoding="utf-8")
    number = re.search(r"^eq_prefix:\s*(\S+)", text, re.M)
    heading = re.search(r"^# (.+)$", text, re.M)[1].strip()
    return f"{number[1]} {heading.split(':')[0]}" if number else heading


def url(page):
    """The built page's address from the home page: what a demo prints is Markdown that MkDocs does
    not read for links, so a link to ``part1/intuition.md`` would stay one (a 404 on the site)."""
    return re.sub(r"(index)?\.(md|py)$", "", page).rstrip("/") + "/"
