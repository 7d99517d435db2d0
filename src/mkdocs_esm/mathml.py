"""Math rendered at build time as MathML Core with Temml: readers download no math JavaScript.

pymdownx.arithmatex (generic mode) leaves each formula as
``<span class="arithmatex">\\(...\\)</span>`` or ``<div class="arithmatex">\\[...\\]</div>``.
Every formula of a page goes to one node process (temml_render.cjs), started once per build,
and Temml's MathML takes its place: the browser lays it out, and it is what screen readers
read. An invalid formula fails the build naming the page and the formula. Why Temml:
docs/dev/decisions/0001-mathml-with-temml.md.

Display formulas carry ``\\label{name}``: the label becomes the anchor ``#eq-name`` and an
equation number ``(P.k)``, P taken from the page's leading section number (or
``eq_prefix`` in its front matter), k counting the page's display formulas. Links with
class ``esm-eqref`` to ``#eq-name`` (written by the checks of snippets/esm/) get that
number as their text.

Each distinct formula is rendered once: renderings are kept by formula and options (Temml's
version, temml_render.cjs and this file) in memory and, between builds, in the
execution cache's directory (execcache.py; ``ESM_CACHE=0`` turns it off).

Temml's stylesheet (``assets/math/temml.min.css``) and the math font, Latin Modern Math
(``assets/math/fonts/latinmodern-math.woff2``, cut to the site's characters by fonts.py), are
added to the site and linked from every page; pages with math preload the font.
"""

from __future__ import annotations

import html as htmllib
import json
import re
import subprocess
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from . import execcache, markup

#: arithmatex's two forms: inline, display
_MATH = re.compile(r'<span class="arithmatex">(?P<inline>.*?)</span>|<div class="arithmatex">(?P<display>.*?)</div>', re.S)
_LABEL = re.compile(r"\\label\{([^}]*)\}")
_TOC_MATH = re.compile(r"\\\((.+?)\\\)")
#: a check's link to its formula, or (in the summary of folded checks, which may hold no link: a
#: link inside the <summary> control is a control nested in a control) its plain mention
_EQREF = re.compile(r'(<a class="esm-eqref" href="#eq-(?P<name>[^"]+)">|<span class="esm-eqref" data-eq="(?P<plain>[^"]+)">)'
                    r'[^<]*(</a>|</span>)')
#: Where the site ships Temml's stylesheet and the math font. ``.min.css``: a third-party sheet,
#: purged of the rules no page uses and kept with its comments (stylesheets.py).
CSS_PATH = "assets/math/temml.min.css"
FONT_DIR = "assets/math/fonts"
#: Inline formulas longer than this (TeX characters) get a box that scrolls sideways.
_WIDE_INLINE = 40
_RENDERER = Path(__file__).with_name("temml_render.cjs")
MATH_FONT = Path(__file__).with_name("fonts") / "latinmodern-math.woff2"


class _Temml:
    """One node process for the whole build, spoken to in JSON lines."""

    def __init__(self, root: Path, cache_dir: Path | None) -> None:
        self.root = root
        self.proc: subprocess.Popen | None = None
        self.count = 0
        # the render cache: formula -> rendering, kept between builds in the execution cache
        self.store = execcache.ExecCache(cache_dir)
        self.salt = [p.read_text(encoding="utf-8") for p in
                     (package_dir(root, "temml") / "package.json", _RENDERER, Path(__file__))]
        self.memo: dict[str, str] = self.store.get("mathml", self.salt) or {}
        self.used: dict[str, str] = {}

    def render(self, items: list[dict]) -> dict:
        """Temml's reply for ``items``, rendering only the formulas not seen before."""
        keys = [json.dumps(item, sort_keys=True) for item in items]
        todo = [k for k, key in enumerate(keys) if key not in self.memo]
        if todo:
            reply = self._render([items[k] for k in todo])
            if "error" in reply:
                return {**reply, "index": todo[reply["index"]]}
            self.memo.update((keys[k], html) for k, html in zip(todo, reply["html"]))
        self.used.update((key, self.memo[key]) for key in keys)
        return {"html": [self.memo[key] for key in keys]}

    def save(self) -> None:
        """Keep this build's renderings (only these: the store does not grow with old ones)."""
        if self.used:
            self.store.put("mathml", self.salt, self.used, {})

    def _render(self, items: list[dict]) -> dict:
        if self.proc is None:
            self.proc = subprocess.Popen(
                ["node", str(_RENDERER)], cwd=self.root,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8",
            )
        self.count += 1
        self.proc.stdin.write(json.dumps({"id": self.count, "items": items}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise PluginError("the Temml process (temml_render.cjs) ended unexpectedly")
        return json.loads(line)

    def close(self) -> None:
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
            self.proc = None


def package_dir(root: Path, name: str) -> Path:
    """Where node finds the package ``name`` from ``root`` (node_modules, or ``NODE_PATH``)."""
    done = subprocess.run(["node", "-p", f"require.resolve({json.dumps(name + '/package.json')})"],
                          cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        raise PluginError(f"{name} is not installed: run `make deps` (npm ci) first")
    return Path(done.stdout.strip()).parent


def _prefix(page) -> str:
    if "eq_prefix" in page.meta:
        return str(page.meta["eq_prefix"]) + "."
    m = re.match(r"\s*(\d+)\b", page.title or "")
    return f"{m[1]}." if m else ""


class MathML:
    """Formulas rendered at build time: one Temml process and one render cache per build."""

    def __init__(self) -> None:
        self.renderer: _Temml | None = None
        self.state = None

    def on_config(self, config, state) -> None:
        self.state = state
        self.renderer = _Temml(state.root, state.cache_dir)
        # Linked from every page: Material's instant navigation swaps page bodies without reading
        # the new <head>, so a per-page link would be missed. The font loads only where math needs it.
        if CSS_PATH not in config.extra_css:
            config.extra_css.insert(0, CSS_PATH)

    def on_files(self, files, config) -> None:
        """Add Temml's stylesheet and the math font (never committed; the sheet taken from
        node_modules, the font from this package)."""
        files.append(File.generated(config, f"{FONT_DIR}/{MATH_FONT.name}", abs_src_path=str(MATH_FONT)))
        files.append(File.generated(config, CSS_PATH, content=_mathml_css(self.state.root)))

    def on_page_content(self, html: str, page) -> str:
        found = list(_MATH.finditer(html))
        if not found:
            return html
        items, numbers, anchors = [], {}, []
        prefix = _prefix(page)
        for m in found:
            raw = htmllib.unescape(m["inline"] if m["display"] is None else m["display"]).strip()
            display = m["display"] is not None
            tex = raw[2:-2] if raw[:2] in ("\\(", "\\[") else raw
            anchor = None
            if display:
                labels = _LABEL.findall(tex)
                tex = _LABEL.sub("", tex)
                if labels:
                    anchor = labels[0]
                    numbers[anchor] = f"{prefix}{len(numbers) + 1}"
                    tex += rf"\tag{{{numbers[anchor]}}}"
            items.append({"tex": tex, "display": display})
            anchors.append(anchor)
        reply = self.renderer.render(items)
        if "error" in reply:
            bad = items[reply["index"]]["tex"]
            raise PluginError(f"Invalid math in {page.file.src_uri}: {bad!r}: {reply['error']}")
        out, last = [], 0
        for m, rendered, anchor, item in zip(found, reply["html"], anchors, items):
            out.append(html[last:m.start()])
            if item["display"]:
                ident = f' id="eq-{anchor}"' if anchor else ""
                out.append(f'<div class="math-display"{ident}>{rendered}</div>')
            elif len(item["tex"]) > _WIDE_INLINE:
                # MathML is not broken across lines: a long inline formula scrolls sideways
                # in its own box on a narrow screen instead of widening the page
                out.append(f'<span class="math-inline-wide">{rendered}</span>')
            else:
                out.append(rendered)
            last = m.end()
        out.append(html[last:])
        html = "".join(out)

        def number(ref):
            name = ref["name"] or ref["plain"]
            return f"{ref[1]}({numbers[name]}){ref[4]}" if name in numbers else ref[0]

        self.state.page(page.file.src_uri).equations = numbers   # label -> number, for xref
        self._render_toc(page)
        return _EQREF.sub(number, html)

    def _render_toc(self, page) -> None:
        r"""Math in a heading reaches the table of contents as bare ``\(...\)`` text (the toc
        extension keeps a heading's text, not its markup): render it there too."""
        entries = [e for e in _toc_entries(page.toc.items) if "\\(" in e.title]
        if not entries:
            return
        parts = [_TOC_MATH.split(e.title) for e in entries]   # text, tex, text, tex, ..., text
        items = [{"tex": htmllib.unescape(tex), "display": False} for p in parts for tex in p[1::2]]
        reply = self.renderer.render(items)
        if "error" in reply:
            raise PluginError(f"Invalid math in a heading of {page.file.src_uri}: "
                              f"{items[reply['index']]['tex']!r}: {reply['error']}")
        rendered = iter(reply["html"])
        for entry, p in zip(entries, parts):
            entry.title = "".join(chunk if k % 2 == 0 else next(rendered) for k, chunk in enumerate(p))

    def on_post_page(self, output: str, page) -> str:
        return preload_fonts(output, page, self.state.page(page.file.src_uri).shows_math)

    def on_post_build(self) -> None:
        if self.renderer is not None:
            self.renderer.save()
            self.renderer.close()

    def on_build_error(self) -> None:
        if self.renderer is not None:
            self.renderer.close()


def _toc_entries(items):
    for item in items:
        yield item
        yield from _toc_entries(item.children)


def shows_math(text: str) -> bool:
    """Whether the page's content ``text`` (markup.parse) shows a formula: one outside the
    blocks hidden until a script shows them (the practice queue's cards)."""
    tokens, ends = markup.read_tokens(text)
    hidden_to = -1
    for i, t in enumerate(tokens):
        if t.kind != "start" or i <= hidden_to:
            continue
        if t.attr("hidden", False) is not False:
            hidden_to = ends[i]
        elif t.name == "math":
            return True
    return False


def _mathml_css(root: Path) -> str:
    """The stylesheet of the formulas: the math font, then Temml's rules (its Latin Modern
    sheet less its @font-face rules; primes stay in the math font, Temml's own font is not
    shipped)."""
    face = ('@font-face{font-family:"Latin Modern Math";src:url(fonts/latinmodern-math.woff2) format("woff2")}'
            'math{font-family:"Latin Modern Math",math}')
    sheet = package_dir(root, "temml") / "dist" / "Temml-Latin-Modern.css"
    rules = sheet.read_text(encoding="utf-8").split("math {", 1)[1]
    return face + "math {" + rules + "mo.tml-prime{font-family:inherit}"


def preload_fonts(output: str, page, shows_math: bool) -> str:
    """Pages with math ask for the math font from <head>, with the stylesheets: found only at
    the first layout, it arrived after the text had been laid out in a fallback font, and the
    swap moved the lines below (a layout shift). Math that is only in hidden blocks (the
    practice queue's cards) asks for nothing: it costs no font (``shows_math``: `shows_math`)."""
    if not shows_math:
        return output
    from mkdocs.utils import get_relative_url
    link = (f'<link rel="preload" href="{get_relative_url(f"{FONT_DIR}/{MATH_FONT.name}", page.url)}" '
            'as="font" type="font/woff2" crossorigin>')
    return output.replace("</head>", link + "</head>", 1)
