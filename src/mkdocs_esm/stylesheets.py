"""One stylesheet per page instead of six.

Material links its main and palette sheets, and the site adds Temml's and its own three
(mkdocs.yml extra_css): six requests that each hold the first paint (Lighthouse: "render-
blocking resources"). After a page is rendered, the run of ``<link rel="stylesheet">`` in its
<head> is replaced by one link to ``assets/stylesheets/site.<hash>.css``: the same sheets in
the same order, concatenated, their relative ``url()`` rewritten for the new place. The name
carries a hash of the content, so a changed sheet is a new file (no stale CSS from a cache).
Every page links the same sheets; a page that links others fails the build (it would need
its own bundle), and so does a sheet with an ``@import`` or a relative ``url()`` this code
cannot rewrite. ``@charset`` lines are dropped and one is written first. The site's own sheets
(not already minified: no ``.min.css``) lose their comments, which are for their authors (2 KB
of every page's first load); strings are read as strings, so a "/*" inside one stays. The
sheets themselves stay in the site. The book build (`make pdf`, mkdocs-print-site-plugin) keeps its links: the
plugin copies its own sheets into the site only after the pages are written.

`mkdocs build` then takes out of the third-party sheets (Material's, Temml's: the minified ones,
which come first) every rule that no page can use (PurgeCSS, purge_css.cjs): a selector
stays when each class, id, tag and attribute in it occurs in a built page's tags or in a script
the pages run (Material and learner.js make elements at run time; a script's every word counts,
and where a script completes a name at run time, `tabbed-control--${e}`, the sheets' names that
it can make count too), and so do the custom properties that a kept rule, the site's own
sheets, a page or a script reads. The site's own sheets are kept whole. The bundle is written
again under the hash of what is left, and every page is pointed at it; two fifths of the bytes
of the third-party sheets go (tests/browser/test_pages.py checks on every page that no rule
taken out applies to an element). The result is kept between builds (execcache.py),
keyed on the sheets, every page, the scripts they load, the custom properties read, this file,
purge_css.cjs, node's version and the node packages installed. `mkdocs serve` ships the
whole bundle: the pages' content would decide the stylesheet, and an edited page would have to
rebuild every other.
"""

from __future__ import annotations

import functools
import hashlib
import html
import json
import posixpath
import re
import subprocess
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

from . import execcache, markup

_URL = re.compile(r"""url\((?!["']?(?:data:|[a-z]+://|/|#))(["']?)([^"')\s]+)\1\)""")
_ANY_URL = re.compile(r"""url\(\s*(?!["']?(?:data:|[a-z]+://|/|#|\.\./))""")
_CHARSET = re.compile(r'@charset\s+"[^"]*";')
_MAP = re.compile(r"/\*# sourceMappingURL=[^*]*\*/")   # a map of one sheet misleads in the bundle
_COMMENT_OR_STRING = re.compile(r"""/\*.*?\*/\n?|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'""", re.S)
_DIR = "assets/stylesheets"
_WORD = re.compile(r"[A-Za-z0-9_-]+")        # PurgeCSS's own reading of a text it knows nothing of
#: the start of a name a script completes at run time: `tabbed-control--${e}`, "md-tag--"+x
#: (a whole token: after a quote, a backtick or a space)
_PREFIX = re.compile(r"""(?<=["'`\s])([A-Za-z_][\w-]*)(?:\$\{|["']\s*\+)""")
#: the class and id names and the attribute names that a stylesheet's selectors hold
_CSS_NAME = re.compile(r"[.#](-?[_a-zA-Z][\w-]*)")
_CSS_ATTRIBUTE = re.compile(r"\[\s*(-?[_a-zA-Z][\w-]*)")
_VAR = re.compile(r"var\(\s*(--[\w-]+)")
_PURGE = Path(__file__).with_name("purge_css.cjs")


def _merged(site: Path, sheets: list[str]) -> str:
    return '@charset "UTF-8";\n' + "".join(_parts(site, sheets))


def _parts(site: Path, sheets: list[str]) -> list[str]:
    parts = []
    for sheet in sheets:
        css = _CHARSET.sub("", _MAP.sub("", (site / sheet).read_text(encoding="utf-8")))
        if not sheet.endswith(".min.css"):
            css = _COMMENT_OR_STRING.sub(lambda m: "" if m[0].startswith("/*") else m[0], css)
        if "@import" in css:
            raise PluginError(f"stylesheets: {sheet} has an @import, which cannot stand inside a bundle")
        where = posixpath.dirname(sheet)
        css = _URL.sub(lambda m: f"url({m[1]}{posixpath.relpath(posixpath.join(where, m[2]), _DIR)}{m[1]})", css)
        if (left := _ANY_URL.search(css)) is not None:
            raise PluginError(f"stylesheets: {sheet}: a url() not rewritten: {css[left.start():left.start() + 60]!r}")
        parts.append(f"/* {sheet} */\n{css}\n")
    return parts


# -- mkdocs build: the rules no page uses ------------------------------------------------------

def used(pages: list[str], scripts: list[str]) -> dict:
    """What PurgeCSS may keep: every tag name, attribute name and value, class and id in the
    start tags of ``pages`` (the bodies of their scripts and styles and their comments are text,
    not markup; names as written and in lower case), and every word of ``scripts`` and of the
    pages' own scripts."""
    read = [markup.facts(text) for text in pages]
    words = {w for text in [*scripts, *inline_scripts(pages)] for w in _WORD.findall(text)}
    def union(key):
        return sorted(set().union(*(r[key] for r in read)))
    return {"tags": union("tags"), "classes": union("classes"), "ids": union("ids"),
            "attributes": {"names": union("names"), "values": union("values")}, "undetermined": sorted(words)}


def inline_scripts(pages: list[str]) -> list[str]:
    """The text of every script written in ``pages`` (not loaded from a file)."""
    return [script for text in pages for script in markup.facts(text)["inline_scripts"]]


def prefixes(texts: list[str]) -> list[str]:
    """The starts of the names that scripts complete at run time (template literals and string
    concatenations)."""
    return sorted({p for text in texts for p in _PREFIX.findall(text)})


def completed(css: str, starts: list[str]) -> dict[str, list[str]]:
    """The names in ``css``'s selectors that a script can complete from one of ``starts``: its
    class and id names (``tabbed-control--next``) and its attribute names. An attribute's values
    are still judged one by one: `data-md-color-` keeps no `[data-md-color-primary=red]`."""
    def starting(names):
        return sorted({n for n in names if n.startswith(tuple(starts))}) if starts else []
    return {"names": starting(_CSS_NAME.findall(css)), "attributes": starting(_CSS_ATTRIBUTE.findall(css))}


def scripts_of(site: Path, pages: dict[Path, str], base: str = "/") -> list[str]:
    """The text of every script file that a page of ``pages`` (path -> HTML) loads; ``base`` is
    the site's path on its host (the path of `site_url`), with which 404.html, a template,
    names them."""
    found: set[Path] = set()
    for path, text in pages.items():
        for src in markup.facts(text)["script_srcs"]:
            if "//" in src or ":" in src.split("/")[0]:
                raise PluginError(f"stylesheets: {path.relative_to(site)} loads {src}, not a file of the site")
            src = re.split(r"[?#]", src)[0]
            if src.startswith("/"):
                if not src.startswith(base):
                    raise PluginError(f"stylesheets: {path.relative_to(site)} loads {src}, outside {base}")
                found.add((site / src[len(base):]).resolve())
            else:
                found.add((path.parent / src).resolve())
    missing = [p for p in found if not p.is_file()]
    if missing:
        raise PluginError(f"stylesheets: scripts the pages load are missing: {missing}")
    return [p.read_text(encoding="utf-8") for p in sorted(found)]


def _inputs_of_node(root: Path) -> str:
    """What PurgeCSS's answer depends on besides its request: node and the packages installed."""
    if not (root / "node_modules" / "purgecss").is_dir():
        raise PluginError("stylesheets: PurgeCSS is not installed: run `npm ci` (make deps)")
    lock = root / "node_modules" / ".package-lock.json"
    if not lock.is_file():
        raise PluginError(f"stylesheets: {lock} is missing: install the node packages with `npm ci`")
    return f"node {_node_version()}, packages {hashlib.sha256(lock.read_bytes()).hexdigest()}"


@functools.cache
def _node_version() -> str:
    try:
        return subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    except (FileNotFoundError, subprocess.CalledProcessError):
        raise PluginError("stylesheets: node is not installed (it runs PurgeCSS)") from None


def purge(css: str, pages: list[str], scripts: list[str], variables: list[str], cache: execcache.ExecCache,
          root: Path) -> str:
    """``css`` without what nothing can use (purge_css.cjs): the selectors whose names are
    not all in ``used(pages, scripts)`` nor ``completed`` by a script, the rules left with none,
    and the custom properties that neither a kept rule nor ``variables`` reads. From ``cache``
    when these inputs made it before. ``root`` is the project, whose node_modules PurgeCSS is in."""
    digest = hashlib.sha256()
    for text in (css, *pages, "\0", *scripts, "\0", *variables):
        digest.update(hashlib.sha256(text.encode()).digest())
    parts = [digest.hexdigest(), Path(__file__).read_text(encoding="utf-8"),
             _PURGE.read_text(encoding="utf-8"), _inputs_of_node(root)]
    stored = cache.get("css-purge", parts)
    if isinstance(stored, str):
        return stored
    inline = inline_scripts(pages)
    found = used(pages, scripts)
    extra = completed(css, prefixes([*scripts, *inline]))
    found["classes"] = sorted({*found["classes"], *extra["names"]})
    found["ids"] = sorted({*found["ids"], *extra["names"]})
    found["attributes"]["names"] = sorted({*found["attributes"]["names"], *extra["attributes"]})
    request = json.dumps({"css": css, "used": found, "variables": variables})
    done = subprocess.run(["node", str(_PURGE)], input=request, capture_output=True,
                          text=True, encoding="utf-8", cwd=root)
    if done.returncode != 0:
        raise PluginError(f"stylesheets: PurgeCSS failed:\n{done.stderr[-2000:]}")
    out = json.loads(done.stdout)["css"]
    cache.put("css-purge", parts, out, {"files": {}, "dists": {}})
    return out


_BUNDLE_LINK = re.compile(rf'(<link rel="stylesheet" href="(?:\.\./)*{_DIR}/)(site\.[0-9a-f]{{8}}\.css)(">)')


def _stylesheet_links(head: str) -> tuple[int, int, list[str]] | None:
    """The first run of ``<link rel="stylesheet">`` in ``head`` (only white space between them, and
    after the last): where it starts and ends, and the sheets' addresses."""
    start = end = None
    hrefs: list[str] = []
    for token in markup.parse(head):
        if token.kind == "start" and token.name == "link" and token.attr("rel") == "stylesheet":
            start = token.start if start is None else start
            end = token.end
            hrefs.append(token.attr("href"))
        elif token.kind == "text" and not token.text.strip() and start is not None:
            end = token.end
        elif start is not None:
            break
    return None if start is None else (start, end, hrefs)


class Stylesheets:
    """One stylesheet for every page; in `mkdocs build`, without the rules no page can use."""

    def __init__(self) -> None:
        self.state = None
        self.bundle: dict[str, object] = {}
        self.linked: list[str] = []     # the pages written with a link to the bundle (not 404.html: a template)

    def on_config(self, state) -> None:
        self.state = state
        self.bundle = {}
        self.linked = []

    def on_post_page(self, output: str, page, config) -> str:
        if "print-site" in config.plugins:
            return output
        run = _stylesheet_links(output[:output.find("</head>")])
        if run is None:
            return output
        start, end, hrefs = run
        base = "/" + page.url
        sheets = [urljoin(base, href).lstrip("/") for href in hrefs]
        if not self.bundle:
            text = _merged(Path(config.site_dir), sheets)
            name = f"{_DIR}/site.{hashlib.sha256(text.encode()).hexdigest()[:8]}.css"
            target = Path(config.site_dir) / name
            if not target.is_file() or target.read_text(encoding="utf-8") != text:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
            self.bundle.update(sheets=sheets, name=name)
        if sheets != self.bundle["sheets"]:
            raise PluginError(f"stylesheets: {page.file.src_uri} links {sheets}, other pages "
                              f"{self.bundle['sheets']}: one bundle serves all pages")
        link = f'<link rel="stylesheet" href="{get_relative_url(self.bundle["name"], page.url)}">\n'
        self.linked.append(page.file.abs_dest_path)
        return output[:start] + link + output[end:]

    def on_post_build(self, config) -> None:
        if self.state.command == "serve" or "print-site" in config.plugins or not self.bundle:
            return
        site = Path(config.site_dir)
        sheets = self.bundle["sheets"]
        third = [s for s in sheets if s.endswith(".min.css")]
        if sheets[:len(third)] != third:
            raise PluginError(f"stylesheets: the minified (third-party) sheets must come first: {sheets}")
        own = _parts(site, sheets[len(third):])
        pages = {p: p.read_text(encoding="utf-8") for p in sorted(site.rglob("*.html"))}
        scripts = scripts_of(site, pages, urlsplit(config.site_url or "").path.rstrip("/") + "/")
        variables = sorted({v for text in [*own, *pages.values(), *scripts] for v in _VAR.findall(text)})
        kept = purge("".join(_parts(site, third)), list(pages.values()), scripts, variables,
                     execcache.ExecCache(self.state.cache_dir), self.state.root)
        text = '@charset "UTF-8";\n' + kept + "".join(own)
        name = f"site.{hashlib.sha256(text.encode()).hexdigest()[:8]}.css"
        for old in (site / _DIR).glob("site.*.css"):     # this build's whole bundle, a `--dirty` one's earlier ones
            if old.name != name and re.fullmatch(r"site\.[0-9a-f]{8}\.css", old.name):
                old.unlink()
        (site / _DIR / name).write_text(text, encoding="utf-8")
        # Every page that links a bundle (a `--dirty` build leaves pages it did not rebuild linking
        # an earlier one) is pointed at this one; each page this build linked must have been found.
        relinked = set()
        for path, page in pages.items():
            new, count = _BUNDLE_LINK.subn(lambda m: m[1] + name + m[3], page)
            if count > 1:
                raise PluginError(f"stylesheets: {path.relative_to(site)} links {count} bundles")
            if count:
                relinked.add(str(path))
                if new != page:
                    path.write_text(new, encoding="utf-8")
        if missed := [p for p in self.linked if str(Path(p)) not in relinked]:
            raise PluginError(f"stylesheets: {missed[0]} does not link {self.bundle['name']}")
        self.bundle["name"] = f"{_DIR}/{name}"
