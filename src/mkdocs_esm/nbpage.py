"""Converting and rewriting the theory notebook's page: the made notebook (nbmake.py) with its
cells' outputs (nbrun.py) converted by mkdocs-jupyter's nb2html (compat/mkdocs_jupyter.py), then
rewritten so that it is light and looks like the other pages: mkdocs-jupyter's ~570 KB of
inline CSS and its scripts (an empty ``<script src="">``, a cdnjs mermaid loader, MathJax, a
clipboard element) dropped; code cells given Material's code-block markup (its highlighting and
copy button); the ``$...$``/``$$...$$`` math of Markdown cells marked for mathml.py; the helper
cell folded under a one-line summary; a download link. The setup cells that embed esm are not on
the page: they are in the downloaded notebook only.

Checks and published values come from the run's records, never from the printed text: the
build's run of the notebook shows each record of esm's helpers as an output of its own
(nbmake.RECORDER), which `render_notebook` takes out before nbconvert converts the notebook
(nbrun.text_areas: each text output with its records and the line each stands on). Then
`outputs` makes each text output as the site shows it with output.py's pairing and markup: the
check lines folded into one closed list where the first stood (output.fold), each value line as
its readable text (``value name = text``) with the marker glue reads (output.marker). Computed
prose (``{{name}}``) gets this run's values from those markers, on the page and in the shipped
notebook's text (`quote_values`).
"""

from __future__ import annotations

import copy
import html as htmllib
import logging
import re
import tempfile
from pathlib import Path
from types import SimpleNamespace

from mkdocs.exceptions import PluginError

from . import glue, markup, nbmake, nbrun, output
from .compat import mkdocs_jupyter

log = logging.getLogger("mkdocs.plugins.esm.notebook")

#: mkdocs-jupyter options that change what it renders
RENDER_OPTIONS = ("execute", "kernel_name", "theme", "allow_errors", "show_input", "no_input", "no_prompt",
                  "remove_tag_config", "highlight_extra_classes", "include_requirejs", "toc_depth",
                  "custom_mathjax_url", "ignore_h1_titles")


def render_notebook(job, plugin) -> SimpleNamespace:
    """The notebook page as mkdocs-jupyter renders it (its nb2html and table of contents, with its
    options), from the made notebook with its cells' outputs (``nbrun.execute``) put in, without
    its setup cells and without the records among the outputs: nbconvert converts it without
    running it again. ``areas``: the page's text outputs in order, each with its records
    (nbrun.text_areas), for `outputs`; ``shipped``: each code cell's outputs as the shipped notebook
    holds them (nbrun.reader_outputs), setup cells included."""
    import nbformat

    nb = copy.deepcopy(job.nb)
    c = plugin.config
    runs = nbrun.execute(job, name=job.name, kernel_name=c["kernel_name"], allow_errors=c["allow_errors"])
    areas = []
    shipped = [nbrun.reader_outputs(run["outputs"]) for run in runs]
    for cell, run in zip(nbrun.code_cells(nb), runs, strict=True):
        outputs, texts = nbrun.text_areas(run["outputs"])      # the records taken out, kept beside
        cell.outputs = [nbformat.from_dict(o) for o in outputs]
        cell.execution_count = run["execution_count"]
        if not nbmake.is_setup(cell):
            areas += texts
    nb.cells = [cell for cell in nb.cells if not nbmake.is_setup(cell)]
    # a folder of this run's own (the build's temporary folder is gone if the build failed)
    path = Path(tempfile.mkdtemp(dir=job.tmp)) / Path(job.name).with_suffix(".ipynb").name
    nbformat.write(nb, str(path))
    content = mkdocs_jupyter.nb2html(str(path), execute=False, kernel_name=c["kernel_name"], theme=c["theme"],
                                     allow_errors=c["allow_errors"], show_input=c["show_input"],
                                     no_input=c["no_input"], no_prompt=c["no_prompt"],
                                     remove_tag_config=c["remove_tag_config"],
                                     highlight_extra_classes=c["highlight_extra_classes"],
                                     include_requirejs=c["include_requirejs"],
                                     custom_mathjax_url=c["custom_mathjax_url"])
    # nb2html appends the stylesheet of an .ipynb it converts (not of a .py): rewrite() drops it,
    # and without this its indentation would stay behind.
    cut = content.rfind("\n        <style>\n")
    if cut != -1 and content.endswith("</style>\n        "):
        content = content[:cut]
    toc, title = mkdocs_jupyter.nb_toc(str(job.made), c["toc_depth"])
    return SimpleNamespace(content=content, toc=toc, title=None if c["ignore_h1_titles"] else title, areas=areas,
                           shipped=shipped)


def toc_tokens(items) -> list[dict]:
    """A table of contents back as the tokens mkdocs.structure.toc.get_toc reads."""
    return [{"level": i.level, "id": i.id, "name": i.title, "children": toc_tokens(i.children)} for i in items]


# ---------------------------------------------------------------------------------------------
# Rewriting the rendered notebook
# ---------------------------------------------------------------------------------------------

_DROP = re.compile(       # nbconvert's widgets for JupyterLab, written whole
    r'<div class="zeroclipboard-container">.*?</clipboard-copy>\s*</div>'
    r'|<div class="clipboard-copy-txt" id="cell-\d+">.*?</div>'
    r'|\s*<div class="jp-Collapser [^"]*">\s*</div>'
    r'|<div class="celltoolbar">.*?</span>\s*</span>\s*</div>\s*</div>',
    re.S,
)
_CODE = re.compile(r'<div class="highlight-ipynb hl-(\w+)\s*"><pre><span></span>(.*?)</pre></div>', re.S)
_TEXT_OUT = re.compile(
    r'<div class="jp-RenderedText jp-OutputArea-output" data-mime-type="text/plain"[^>]*>\s*<pre>'
    r'((?:(?!</pre>).)*)</pre>\s*</div>', re.S)
_PRE_TEXT = r"((?:(?!</pre>).)*)"        # a <pre>'s content: never runs past its own end
_CHILD = (r'<div class="jp-OutputArea-child">\s*<div class="jp-RenderedText jp-OutputArea-output" '
          rf'data-mime-type="text/plain"[^>]*>\s*<pre>{_PRE_TEXT}</pre>\s*</div>\s*</div>')
_CHILD_RUN = re.compile(rf"(?:{_CHILD.replace(_PRE_TEXT, '(?:(?!</pre>).)*')}\s*){{2,}}", re.S)
_MARKDOWN = re.compile(r'(<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown jp-MarkdownOutput"[^>]*>)(.*?)(</div>)', re.S)
_DISPLAY_P = re.compile(r"<p>\s*\$\$(.+?)\$\$\s*</p>", re.S)
_DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.S)
_INLINE = re.compile(r"(?<![\\$])\$(?!\$)(.+?)(?<!\\)\$")
_CODE_ELEMENTS = ("code", "pre")


def _without(html: str, spans: list[tuple[int, int]]) -> str:
    """``html`` less the (start, end) ``spans``, in order."""
    out, last = [], 0
    for start, end in spans:
        out.append(html[last:start])
        last = end
    out.append(html[last:])
    return "".join(out)


def _unstyled(html: str) -> str:
    """``html`` without its style and script elements and its comments (markup.py reads them;
    neither holds the other: a script's or a style's content is text, and so is a comment's)."""
    comments = [(t.start, t.end) for t in markup.parse(html) if t.kind == "comment"]
    return _without(html, sorted(markup.elements(html, markup.RAW_TEXT) + comments))


def _math(segment: str) -> str:
    """Mark the math of rendered Markdown for mathml.py (code spans are left alone)."""
    out, last = [], 0
    for start, end in markup.elements(segment, _CODE_ELEMENTS):
        out.append(_math_text(segment[last:start]))
        out.append(segment[start:end])
        last = end
    out.append(_math_text(segment[last:]))
    return "".join(out)


def _math_text(text: str) -> str:
    text = _DISPLAY_P.sub(lambda m: f'<div class="arithmatex">\\[{m[1]}\\]</div>', text)
    text = _DISPLAY.sub(lambda m: f'<div class="arithmatex">\\[{m[1]}\\]</div>', text)
    return _INLINE.sub(lambda m: f'<span class="arithmatex">\\({m[1]}\\)</span>', text)


def _merge_streams(m: re.Match) -> str:
    """Adjacent stdout outputs as one: the kernel splits printed text into chunks at whatever
    moments it flushes (a line may be cut in two), so the chunks differ from build to build."""
    text = "".join(re.findall(_CHILD, m[0], re.S))
    return ('<div class="jp-OutputArea-child">\n<div class="jp-RenderedText jp-OutputArea-output" '
            f'data-mime-type="text/plain">\n<pre>{text}</pre>\n</div>\n</div>\n')


_FOLD, _CUT = object(), object()    # where an output's checks stand; another check line (the text splits there)


def outputs(html: str, areas: list[dict], name: str) -> str:
    """The rendered notebook's (``name``, docs-relative) text outputs in the site's markup, from
    the run's records: ``areas`` are the page's text outputs in order, each with the records of
    its checks and values and the line each stands on (``render_notebook``); the printed lines
    are not read."""
    html = _CHILD_RUN.sub(_merge_streams, html)            # whole lines: one output per run of text
    found = [m[1].count("\n") for m in _TEXT_OUT.finditer(html)]
    if found != [a["lines"] for a in areas]:
        raise PluginError(f"{name}: the page's text outputs (line breaks: {found}) are not those of the run "
                          f"({[a['lines'] for a in areas]})")
    todo = iter(areas)
    return _TEXT_OUT.sub(lambda m: _output(m[1], next(todo)["records"], name), html)


def _output(text: str, records: list[dict], name: str) -> str:
    """A text output (its lines as nbconvert wrote them) with its records (output.arrange): its
    check lines folded into one closed list where the first stood (output.fold), each value line
    as its text followed by two empty lines, the rest as text, and the markers glue reads (and
    takes out) after it."""
    lines: list = text.split("\n")
    checks, first, values = output.arrange(lines, records)
    markers = []
    for k, r in values:
        markers.append(output.marker(r["name"], r["value"], r["fmt"]))
        if k is not None:
            lines[k] = _readable(lines[k], f"value {r['name']} = {r['text']}", name) + "\n\n"
    rows: list = []
    for k, line in enumerate(lines):
        if line is None:
            rows.append(_FOLD if k == first else _CUT)
        else:
            rows += line.split("\n")
    while len(rows) > 1 and rows[-1] == "":                # the output's trailing line breaks
        rows.pop()
    if checks and first is None:                           # checks printed nowhere whole: at the end
        rows.append(_FOLD)
    parts, plain = [], []
    for row in [*rows, _CUT]:
        if isinstance(row, str):
            plain.append(row)
            continue
        if plain:
            parts.append("<pre><code>" + "\n".join(plain) + "</code></pre>")
            plain.clear()
        if row is _FOLD:
            parts.append(output.fold(checks).strip())
    return '<div class="esm-nb-output no-copy">' + "\n".join(parts) + "".join(markers) + "</div>"


def _readable(raw: str, text: str, name: str) -> str:
    """The start of ``raw``, a line as nbconvert wrote it (HTML), that reads ``text``."""
    cut = next((k for k in range(len(raw), -1, -1) if htmllib.unescape(raw[:k]) == text), None)
    if cut is None:
        raise PluginError(f"{name}: a value's line on the page does not read {text!r}: {raw!r}")
    return raw[:cut]


def _quotes(code: str) -> str:
    """Quotes in code text as &quot;: code that writes HTML (esm's does) then never reads,
    to a search of the page, as markup."""
    return "".join(code[t.start:t.end].replace('"', "&quot;") if t.kind == "text" else code[t.start:t.end]
                   for t in markup.parse(code))


def rewrite(html: str, download_href: str, helper_summary: str) -> str:
    """The rendered notebook, light and in the site's own markup (see the module docstring)."""
    html = _DROP.sub("", _unstyled(html))
    html = re.sub(r'\s(?:id="cell-id=[^"]*"|tabindex="0")', "", html)
    html = _CODE.sub(lambda m: f'<div class="language-{m[1]} highlight"><pre><span></span><code>'
                     f"{_quotes(m[2])}</code></pre></div>", html)
    html = re.sub(r'<span class="w">(\s*)</span>', r"\1", html)     # whitespace needs no span
    html = _MARKDOWN.sub(lambda m: m[1] + _math(m[2]) + m[3], html)
    html = html.replace('<a class="anchor-link" href=', '<a class="headerlink" title="Permanent link" href=')
    html = html.replace('<div class="jupyter-wrapper">', '<div class="jupyter-wrapper esm-notebook">', 1)
    # the helper cell: its code folded under a summary
    tag = f"celltag_{nbmake.HELPER_TAG}"
    at = html.find(tag)
    if at >= 0:
        m = re.compile(r'<div class="language-python highlight">.*?</div>', re.S).search(html, at)
        if m:   # folded, and as plain text: highlighting would weigh five times as much
            plain = "".join(m[0][t.start:t.end] for t in markup.parse(m[0])
                            if not (t.kind in ("start", "end") and t.name == "span"))
            html = (html[:m.start()] + f'<details class="abstract esm-helpers"><summary>{helper_summary}</summary>'
                    + plain + "</details>" + html[m.end():])
    link = (f'<p class="esm-download"><a class="md-button" href="{download_href}" download>'
            f"Download the notebook (theory.ipynb)</a> It opens with the outputs shown here and runs on its own with numpy and matplotlib.</p>")
    html = re.sub(r"(</h1>)", lambda m: m[1] + "\n" + link, html, count=1)
    if link not in html:
        html = link + html
    return html


#: Appended to the first Markdown cell of the shipped notebook when its text quotes values.
PUBLISHED_RUN_NOTE = (
    "\n\n*The outputs and the numbers in the text are those of the published run. The values the "
    "text quotes end each code cell's output, on one line starting Quoted in the text; when you change "
    "a parameter and re-run, read that line: the text does not change.*"
)



def quote_values(html: str, nb, source_text: str, name: str) -> tuple[str, dict | None]:
    """Computed prose in the notebook ``nb`` made from ``source_text`` (``name``, docs-relative):
    the page's outputs hold a marker for each value the run published (`outputs`, from its
    records); the Markdown cells quote ``{{name}}``. The page gets the values of this run; so does the shipped notebook's
    text, with a note that they are the published run's: returns (page, the notebook to ship,
    or None when no value is quoted)."""
    where = glue.line_of(source_text)
    held = [html]
    values, problems = glue.collect(held)
    if problems:
        raise PluginError(f"{name}: " + "; ".join(problems))
    used: set[str] = set()

    def cell(m: re.Match) -> str:
        out, last = [], 0
        for start, end in markup.elements(m[2], _CODE_ELEMENTS):      # code stays as written
            text, names = glue.substitute(m[2][last:start], values, where, name)
            out += [text, m[2][start:end]]
            used.update(names)
            last = end
        text, names = glue.substitute(m[2][last:], values, where, name)
        used.update(names)
        return m[1] + "".join(out) + text + m[3]

    html = _MARKDOWN.sub(cell, held[0])
    unused = sorted(set(values) - used)
    if unused:
        log.info("%s: computed values quoted nowhere: %s", name, ", ".join(unused))
    if not used:
        return html, None
    shipped = copy.deepcopy(nb)       # the downloaded notebook's text quotes this run, and says so
    for c in shipped.cells:
        if c.cell_type == "markdown":
            c.source = glue.substitute(c.source, values, where, name)[0]
    first = next(c for c in shipped.cells if c.cell_type == "markdown")
    first.source += PUBLISHED_RUN_NOTE
    return html, shipped
