"""One stylesheet per page instead of six.

Material links its main and palette sheets, and the site adds KaTeX's and its own three
(mkdocs.yml extra_css): six requests that each hold the first paint (Lighthouse: "render-
blocking resources"). After a page is rendered, the run of ``<link rel="stylesheet">`` in its
<head> is replaced by one link to ``assets/stylesheets/site.<hash>.css``: the same sheets in
the same order, concatenated, their relative ``url()`` rewritten for the new place. The name
carries a hash of the content, so a changed sheet is a new file (no stale CSS from a cache).
Every page links the same sheets; a page that links others fails the build (it would need
its own bundle), and so does a sheet with an ``@import`` or a relative ``url()`` this hook
cannot rewrite. ``@charset`` lines are dropped and one is written first. The site's own sheets
(not already minified: no ``.min.css``) lose their comments, which are for their authors (2 KB
of every page's first load); strings are read as strings, so a "/*" inside one stays. The
sheets themselves stay in the site. The book build (`make pdf`, mkdocs-print-site-plugin) keeps its links: the
plugin copies its own sheets into the site only after the pages are written.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from pathlib import Path
from urllib.parse import urljoin

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

_RUN = re.compile(r'(?:<link rel="stylesheet" href="[^"]+">\s*)+')
_HREF = re.compile(r'href="([^"]+)"')
_URL = re.compile(r"""url\((?!["']?(?:data:|[a-z]+://|/|#))(["']?)([^"')\s]+)\1\)""")
_ANY_URL = re.compile(r"""url\(\s*(?!["']?(?:data:|[a-z]+://|/|#|\.\./))""")
_CHARSET = re.compile(r'@charset\s+"[^"]*";')
_MAP = re.compile(r"/\*# sourceMappingURL=[^*]*\*/")   # a map of one sheet misleads in the bundle
_COMMENT_OR_STRING = re.compile(r"""/\*.*?\*/\n?|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'""", re.S)
_DIR = "assets/stylesheets"

_bundle: dict[str, object] = {}


def on_config(config, **kwargs):
    _bundle.clear()


def _merged(site: Path, sheets: list[str]) -> str:
    parts = []
    for sheet in sheets:
        css = _CHARSET.sub("", _MAP.sub("", (site / sheet).read_text(encoding="utf-8")))
        if not sheet.endswith(".min.css"):
            css = _COMMENT_OR_STRING.sub(lambda m: "" if m[0].startswith("/*") else m[0], css)
        if "@import" in css:
            raise PluginError(f"stylesheets hook: {sheet} has an @import, which cannot stand inside a bundle")
        where = posixpath.dirname(sheet)
        css = _URL.sub(lambda m: f"url({m[1]}{posixpath.relpath(posixpath.join(where, m[2]), _DIR)}{m[1]})", css)
        if (left := _ANY_URL.search(css)) is not None:
            raise PluginError(f"stylesheets hook: {sheet}: a url() not rewritten: {css[left.start():left.start() + 60]!r}")
        parts.append(f"/* {sheet} */\n{css}\n")
    return '@charset "UTF-8";\n' + "".join(parts)


def on_post_page(output, page, config, **kwargs):
    if "print-site" in config.plugins:
        return output
    head = output.find("</head>")
    run = _RUN.search(output, 0, head)
    if run is None:
        return output
    base = "/" + page.url
    sheets = [urljoin(base, href).lstrip("/") for href in _HREF.findall(run[0])]
    if not _bundle:
        text = _merged(Path(config.site_dir), sheets)
        name = f"{_DIR}/site.{hashlib.sha256(text.encode()).hexdigest()[:8]}.css"
        target = Path(config.site_dir) / name
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        _bundle.update(sheets=sheets, name=name)
    if sheets != _bundle["sheets"]:
        raise PluginError(f"stylesheets hook: {page.file.src_uri} links {sheets}, other pages "
                          f"{_bundle['sheets']}: one bundle serves all pages")
    link = f'<link rel="stylesheet" href="{get_relative_url(_bundle["name"], page.url)}">\n'
    return output[:run.start()] + link + output[run.end():]
