"""Computed prose: the page's text quotes values that its executed blocks computed.

A demo publishes a value with ``print(esm.glue("cos_kq", c, ".3f"))``; the block's output then
carries an invisible marker ``@@glue:<hex of JSON>@@``. The prose of the same page quotes it
as ``{{cos_kq}}``, or ``{{cos_kq:.1%}}`` for another format, anywhere text can stand:
paragraphs, lists, tables, admonitions, headings, and inside ``$...$`` / ``$$...$$``, where
the math form is used (``50{,}257``, ``2.1\\times10^{-16}``, ``31.6\\%``).

Where it lives: a Markdown preprocessor that runs right after pymdownx.superfences (which
has by then executed every block of the page through markdown-exec and stashed its HTML) and
before everything else sees the text: block parsing, arithmatex, the table of contents, and
so the search index and Temml (mathml.py). mkdocs-macros cannot do this: it runs before
the blocks execute. Because the values travel inside the blocks' printed output, they are
right when that output comes from a cache, too.

It fails loudly (Material's shortcodes.py is the model): an unknown name, a name published
twice on a page, or a format that does not apply to the value fails the build, naming the
page, the line and the name. A published value that no prose quotes is reported (INFO).
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

from markdown import Extension
from markdown.preprocessors import Preprocessor
from mkdocs.exceptions import PluginError

from .compat import markdown_exec as mx

log = logging.getLogger("mkdocs.plugins.esm.glue")

MARKER = re.compile(r"@@glue:([0-9a-f]+)@@")
#: A paragraph left holding nothing but markers (and whitespace) is dropped whole.
_EMPTY_P = re.compile(r"<p>(?:\s|@@glue:[0-9a-f]+@@)*</p>\n?")
#: A reference in prose: {{name}} or {{name:format}}.
REFERENCE = re.compile(r"\{\{\s*([A-Za-z][A-Za-z0-9_]*)\s*(?::([^{}\n]*?))?\s*\}\}")
#: What changes the context while scanning prose: escapes, math delimiters, code spans,
#: blank lines (which end inline math and code spans) and references.
_TOKEN = re.compile(r"\\[\\$`]|\$\$|\$|`+|\n[ \t]*\n|" + REFERENCE.pattern)
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
_EXPONENT = re.compile(r"([-+]?[\d.,]*\d)[eE]([+-])(\d+)")


class GlueError(PluginError):
    """A reference or a published value the page cannot use."""


# ---------------------------------------------------------------------------------------------
# Formatting: one value, as text and as math
# ---------------------------------------------------------------------------------------------

def _exponent(m: re.Match) -> str:
    return ("-" if m[2] == "-" else "") + (m[3].lstrip("0") or "0")


def as_text(printed: str) -> str:
    """The text form of one number as ``format`` prints it: ``2.1e-16`` is ``2.1×10⁻¹⁶``."""
    m = _EXPONENT.fullmatch(printed)
    return printed if m is None else m[1] + "×10" + _exponent(m).translate(_SUPERSCRIPT)


def _one(x, fmt: str, math: bool) -> str:
    if isinstance(x, str):
        if fmt:
            raise ValueError(f"a string takes no format, got {fmt!r}")
        return r"\text{" + x + "}" if math else x
    s = format(x, fmt)
    if not math:
        return as_text(s)
    mantissa, exp = s, None
    if m := _EXPONENT.fullmatch(s):
        mantissa, exp = m[1], _exponent(m)
    mantissa = mantissa.replace(",", "{,}").replace("%", r"\%")
    return mantissa + (rf"\times10^{{{exp}}}" if exp is not None else "")


def render(value, fmt: str, *, math: bool = False) -> str:
    """The text (or, with ``math``, the TeX) that quotes ``value`` in format ``fmt``."""
    if isinstance(value, list):
        return "(" + ", ".join(_one(v, fmt, math) for v in value) + ")"
    return _one(value, fmt, math)


# ---------------------------------------------------------------------------------------------
# Collecting published values from the executed blocks' stashed HTML
# ---------------------------------------------------------------------------------------------

def collect(blocks: list) -> tuple[dict[str, dict], list[str]]:
    """Read and remove the markers in ``blocks`` (edited in place). Returns the values by
    name and the list of problems (names published twice)."""
    values: dict[str, dict] = {}
    problems: list[str] = []
    for i, block in enumerate(blocks):
        text = str(block)
        if "@@glue:" not in text:
            continue
        for hexed in MARKER.findall(text):
            entry = json.loads(bytes.fromhex(hexed).decode())
            name = entry["name"]
            if name in values:
                problems.append(f"value '{name}' is published twice on this page")
            values[name] = entry
        blocks[i] = MARKER.sub("", _EMPTY_P.sub("", text))
    return values, problems


# ---------------------------------------------------------------------------------------------
# Substituting references in the prose
# ---------------------------------------------------------------------------------------------

def substitute(text: str, values: dict[str, dict], where=lambda name: "?", src: str = "?") -> tuple[str, set[str]]:
    """Replace every ``{{name}}`` outside code spans by its value, in math form inside math.
    A reference standing alone on its line may expand to several lines (a table), indented
    like it. Returns the new text and the names used; raises GlueError naming ``src`` and the
    line (``where(name)``)."""
    out: list[str] = []
    used: set[str] = set()
    pos = 0
    display = inline = False
    code = ""
    for m in _TOKEN.finditer(text):
        tok = m.group(0)
        if code:
            if tok == code or tok.startswith("\n"):
                code = ""
            continue
        if tok.startswith("\n"):
            inline = False
        elif tok.startswith("`"):
            code = tok
        elif tok == "$$":
            display = not display
        elif tok == "$":
            if not display:
                inline = not inline
        elif tok.startswith("{{"):
            name, override = m.group(1), m.group(2)
            if name not in values:
                known = ", ".join(sorted(values)) or "none"
                raise GlueError(f"{src}:{where(name)}: unknown computed value "
                                f"'{{{{{name}}}}}' (this page publishes: {known})")
            entry = values[name]
            fmt = override.strip() if override is not None else entry["fmt"]
            try:
                rendered = render(entry["value"], fmt, math=display or inline)
            except (ValueError, TypeError) as err:
                raise GlueError(f"{src}:{where(name)}: cannot format '{name}' with "
                                f"{fmt!r}: {err}") from None
            if "\n" in rendered:
                start = text.rfind("\n", 0, m.start()) + 1
                end = text.find("\n", m.end())
                end = len(text) if end < 0 else end
                indent = text[start:m.start()]
                if indent.strip() or text[m.end():end].strip():
                    raise GlueError(f"{src}:{where(name)}: '{name}' spans several "
                                    "lines: quote it alone on its line")
                rendered = "\n".join(indent + line if line else line
                                     for line in rendered.strip("\n").split("\n"))[len(indent):]
            out.append(text[pos:m.start()])
            out.append(rendered)
            pos = m.end()
            used.add(name)
    out.append(text[pos:])
    return "".join(out), used


def line_of(markdown: str):
    """A function giving the line number of the first reference to a name in ``markdown``."""
    def where(name: str) -> str:
        pattern = re.compile(r"\{\{\s*" + re.escape(name) + r"\s*[:}]")
        for n, line in enumerate(markdown.split("\n"), 1):
            if pattern.search(line):
                return str(n)
        return "?"
    return where


class GluePreprocessor(Preprocessor):
    def __init__(self, md, glue: "Glue") -> None:
        super().__init__(md)
        self.glue = glue

    def run(self, lines: list[str]) -> list[str]:
        if mx.inner_conversion(self.md):   # markdown-exec's inner conversion of an output
            return lines
        return self.glue.quote(lines, self.md.htmlStash.rawHtmlBlocks)


class GlueExtension(Extension):
    def __init__(self, glue: "Glue") -> None:
        super().__init__()
        self.glue = glue

    def extendMarkdown(self, md):
        # After pymdownx.superfences (25) has run the page's blocks, before raw HTML (20).
        md.preprocessors.register(GluePreprocessor(md, self.glue), "esm_glue", 24)


# ---------------------------------------------------------------------------------------------
# The feature
# ---------------------------------------------------------------------------------------------

class Glue:
    """Computed prose for the pages being built: the page being converted, and the values each
    page published (in the build state, read by the skill checks)."""

    def __init__(self, block_failed) -> None:
        #: whether a block of the page being converted failed (execution reports it, naming the block)
        self.block_failed = block_failed
        self.state = None
        self.src = "?"
        self.markdown = ""
        self.skill_check_text = ""

    def on_config(self, config, state) -> None:
        self.state = state
        self.skill_check_text = "\n".join(p.read_text(encoding="utf-8")
                                          for p in sorted(Path(config.docs_dir).glob("skill-checks/*.yml")))
        if not any(isinstance(ext, GlueExtension) for ext in config.markdown_extensions):
            config.markdown_extensions.append(GlueExtension(self))

    def on_page_markdown(self, markdown: str, page) -> None:
        self.src = page.file.src_uri
        self.markdown = markdown
        self.state.page(self.src).values = {}

    def quote(self, lines: list[str], blocks: list) -> list[str]:
        """The page's prose with its references filled, the markers taken out of ``blocks``."""
        values, problems = collect(blocks)
        self.state.page(self.src).values = values
        if self.block_failed():   # execution names the failed block: do not mask it
            return lines
        if problems:
            raise GlueError(f"{self.src}: " + "; ".join(problems))
        text, used = substitute("\n".join(lines), values, line_of(self.markdown), self.src)
        unused = sorted(set(values) - used - self._quoted_by_skill_checks(self.src))
        if unused:
            log.info("%s: computed values quoted nowhere: %s", self.src, ", ".join(unused))
        return text.split("\n")

    def _quoted_by_skill_checks(self, src: str) -> set[str]:
        """Names of ``src``'s values that a skill check quotes ({{src#name}}, skillchecks.py)."""
        return set(re.findall(r"\{\{\s*" + re.escape(src) + r"#([A-Za-z][A-Za-z0-9_]*)", self.skill_check_text))
