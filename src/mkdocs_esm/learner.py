"""Learner features computed at build time: reading time, heading count, overview, skill
checks, practice queue, and the private-notes panel of every lesson page.

- Every page gets its reading time and heading count (stored in ``page.meta["learner"]``);
  lesson pages (pages in a folder of docs/, such as part1/ or primer/) show them under
  their title.
- The overview page (docs/overview.md) gets, in place of the marker
  ``<div class="esm-overview"></div>``, a table of every part and page of the nav with
  reading time and heading count (filled in ``on_env``, once all pages are rendered).
- Skill checks live in ``docs/skill-checks/*.yml`` (never published as files). Each names
  the page it is shown on (``page:``) and holds 4 to 6 multiple-choice questions; the
  questions are rendered here, with their ``$math$`` handed to mathml.py (which runs
  after this), and appended to that page.
- Skill-check text quotes values that a page's code computed as
  ``{{part2/geometry-of-meaning.md#analogy_cos_king}}`` (or ``{{...#name:.2f}}``): the page and
  a name it publishes with ``esm.glue`` (glue.py). They are filled in ``on_env``, when
  every page is converted, as text (never inside ``$...$``: the math is rendered by then); an
  unknown page or name fails the build naming the file and the question.
- The practice page (docs/practice.md), in place of ``<div class="esm-practice"></div>``, gets every question of every
  skill check, hidden; docs/javascripts/learner.js shows the ones due for practice.
- Lesson pages get the private-notes panel (after the search index is built, so the panel
  is not indexed 40 times).

The browser side (saving answers, notes, the queue's spacing) is docs/javascripts/learner.js.
"""

from __future__ import annotations

import hashlib
import html as htmllib
import math
import re
from pathlib import Path

import yaml
from .glue import render
from mkdocs.exceptions import PluginError
from mkdocs.structure.nav import Section
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

#: Reading speed and the time given to each display formula and each figure.
WORDS_PER_MINUTE = 200
SECONDS_PER_FORMULA = 20
SECONDS_PER_FIGURE = 20
NOTES_LIMIT = 8000
QUESTIONS_PER_CHECK = (4, 6)

_HEADING = re.compile(r"<h([2-6])\b")
_DROP = re.compile(r"<(pre|svg|script|style|table)\b.*?</\1>|<div class=\"arithmatex\">.*?</div>"
                   r"|<span class=\"arithmatex\">.*?</span>", re.S)
_DISPLAY = re.compile(r'<div class="arithmatex">')
_FIGURE = re.compile(r'<figure\b|<img\b')
_TAG = re.compile(r"<[^>]+>")
_WORD = re.compile(r"[A-Za-z0-9][\w'’.-]*")
_H1_END = re.compile(r"</h1>")
_OVERVIEW_MARK = '<div class="esm-overview"></div>'
OVERVIEW, PRACTICE = "overview.md", "practice.md"
_PRACTICE_MARK = '<div class="esm-practice"></div>'



# --------------------------------------------------------------------------------------
# Skill-check data
# --------------------------------------------------------------------------------------

def _load_checks(docs_dir: Path) -> list[dict]:
    """Read and validate docs/skill-checks/*.yml."""
    out: list[dict] = []
    ids: set[str] = set()
    for path in sorted((docs_dir / "skill-checks").glob("*.yml")):
        where = f"skill-checks/{path.name}"
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as err:
            raise PluginError(f"{where}: invalid YAML: {err}") from err
        if not isinstance(data, dict) or not {"page", "title", "questions"} <= data.keys():
            raise PluginError(f"{where}: needs 'page', 'title' and 'questions'")
        qs = data["questions"]
        lo, hi = QUESTIONS_PER_CHECK
        if not isinstance(qs, list) or not lo <= len(qs) <= hi:
            raise PluginError(f"{where}: needs {lo} to {hi} questions, has {len(qs) if isinstance(qs, list) else 0}")
        for k, q in enumerate(qs, 1):
            missing = {"id", "prompt", "choices", "answer", "explain"} - set(q)
            if missing:
                raise PluginError(f"{where}: question {k} lacks {sorted(missing)}")
            if not re.fullmatch(r"[a-z0-9-]+", str(q["id"])) or q["id"] in ids:
                raise PluginError(f"{where}: question {k} id {q['id']!r} is not unique lowercase-with-dashes")
            ids.add(q["id"])
            _check_references(where, q)
            if not 2 <= len(q["choices"]) <= 6 or not 0 <= int(q["answer"]) < len(q["choices"]):
                raise PluginError(f"{where}: question {q['id']}: 2-6 choices and an answer index among them")
        data["key"] = path.stem
        out.append(data)
    return out


#: A review link's label, filled in with the page's title in on_env.
_TITLE_MARK = "<!--esm-title:{}-->"
_TITLE = re.compile(r"<!--esm-title:([^>]+?)-->")

#: A computed value quoted in a skill check: {{page.md#name}} or {{page.md#name:format}}.
_VALUE = re.compile(r"\{\{\s*([\w./-]+\.md)#([A-Za-z][A-Za-z0-9_]*)\s*(?::([^{}\n]*?))?\s*\}\}")


def _check_references(where: str, q: dict) -> None:
    """Every ``{{...}}`` in a question is a well-formed reference outside ``$...$``."""
    for field in ("prompt", "explain", *(f"choice {i + 1}" for i in range(len(q["choices"])))):
        text = str(q[field] if not field.startswith("choice") else q["choices"][int(field[7:]) - 1])
        if text.count("{{") != len(_VALUE.findall(text)):
            raise PluginError(f"{where}: question {q['id']} ({field}): a computed value is quoted "
                              "as {{page.md#name}} or {{page.md#name:format}}")
        for k, part in enumerate(re.split(r"(?<!\\)\$", text)):
            if k % 2 and "{{" in part:
                raise PluginError(f"{where}: question {q['id']} ({field}): a computed value "
                                  "cannot stand inside $...$ in a skill check; quote it outside")


_INLINE = re.compile(r"(`[^`]+`)|(\$[^$]+\$)|(\*\*[^*]+\*\*)|(\*[^*]+\*)")


def inline(text: str) -> str:
    """A tiny, safe inline Markdown: `code`, $math$ (left for mathml.py), **b**, *i*.

    Everything else is escaped: question text is data, never HTML.
    """
    out, last = [], 0
    text = " ".join(str(text).split())
    for m in _INLINE.finditer(text):
        out.append(htmllib.escape(text[last:m.start()]))
        tok = m[0]
        if m[1]:
            out.append(f"<code>{htmllib.escape(tok[1:-1])}</code>")
        elif m[2]:
            out.append(f'<span class="arithmatex">\\({htmllib.escape(tok[1:-1])}\\)</span>')
        elif m[3]:
            out.append(f"<strong>{htmllib.escape(tok[2:-2])}</strong>")
        else:
            out.append(f"<em>{htmllib.escape(tok[1:-1])}</em>")
        last = m.end()
    out.append(htmllib.escape(text[last:]))
    return "".join(out)


def shuffled(q: dict) -> tuple[list[str], int]:
    """The choices in a fixed order of their own (a hash of the question id and the choice),
    so that the right one is not always where the author wrote it; and its new index."""
    order = sorted(range(len(q["choices"])),
                   key=lambda i: hashlib.sha256(f"{q['id']}:{q['choices'][i]}".encode()).hexdigest())
    return [q["choices"][i] for i in order], order.index(int(q["answer"]))


def _question(q: dict, n: int, check: dict, page: Page, files, *, practice: bool) -> str:
    qid = q["id"]
    letters = "abcdef"
    texts, answer = shuffled(q)
    choices = "".join(
        f'<label class="esm-q-choice"><input type="radio" name="esm-{qid}" value="{i}"> '
        f'<span class="esm-q-letter">({letters[i]})</span> {inline(c)}</label>'
        for i, c in enumerate(texts)
    )
    see = ""
    target = q.get("see") or check.get("shown_on") or check["page"]
    path, _, anchor = target.partition("#")
    file = files.get_file_from_path(path)
    if file is not None and file.page is not None:
        href = get_relative_url(file.url, page.url) + (f"#{anchor}" if anchor else "")
        # The title is filled in on_env: a page converted after this one has none yet.
        see = f'<p class="esm-q-see">Review: <a href="{htmllib.escape(href)}">{_TITLE_MARK.format(path)}</a></p>'
    origin = (f'<span class="esm-q-origin">{htmllib.escape(check["title"])}, question {n}</span> '
              if practice else f'<span class="esm-q-num">{n}.</span> ')
    return (
        f'<fieldset class="esm-q" id="q-{qid}" data-qid="{qid}" data-answer="{answer}"'
        f' data-check="{check["key"]}"{" hidden" if practice else ""}>'
        f'<legend>{origin}{inline(q["prompt"])}</legend>'
        f'<div class="esm-q-choices">{choices}</div>'
        f'<button type="button" class="md-button esm-q-submit">Check answer</button>'
        f'<div class="esm-q-feedback" role="status" aria-live="polite">'
        f'<p class="esm-q-verdict"></p>'
        f'<div class="esm-q-explain" hidden><p>{inline(q["explain"])}</p>{see}</div></div>'
        f"</fieldset>"
    )


def _skill_check_html(check: dict, page: Page, files, practice_href: str) -> str:
    qs = "".join(_question(q, n, check, page, files, practice=False) for n, q in enumerate(check["questions"], 1))
    return (
        f'<section class="esm-skillcheck" data-check="{check["key"]}" aria-labelledby="skill-check">'
        f'<h2 id="skill-check">Skill check: {htmllib.escape(check["title"])}</h2>'
        f'<p class="esm-skillcheck-intro">{len(check["questions"])} questions on this part. '
        "Your answers and score are kept in this browser only; a question you miss comes back "
        f'in the <a class="esm-practice-link" href="{htmllib.escape(practice_href)}">practice queue</a>.</p>'
        f"{qs}"
        f'<p class="esm-skillcheck-score" role="status" aria-live="polite"></p>'
        f'<button type="button" class="md-button esm-skillcheck-reset">Clear my answers to this check</button>'
        "</section>"
    )


# --------------------------------------------------------------------------------------
# Reading time and headings
# --------------------------------------------------------------------------------------

def reading_stats(html: str) -> dict:
    """Minutes to read (prose words, display formulas, figures) and headings below the title."""
    headings = len(_HEADING.findall(html))
    formulas = len(_DISPLAY.findall(html))
    figures = len(_FIGURE.findall(html))
    text = htmllib.unescape(_TAG.sub(" ", _DROP.sub(" ", html)))
    words = len(_WORD.findall(text))
    seconds = words * 60 / WORDS_PER_MINUTE + formulas * SECONDS_PER_FORMULA + figures * SECONDS_PER_FIGURE
    return {"words": words, "formulas": formulas, "figures": figures,
            "headings": headings, "minutes": max(1, math.ceil(seconds / 60))}


def is_lesson(page: Page) -> bool:
    """Lesson pages are the pages of a part, the primer or the notebook: those in a folder."""
    return "/" in page.file.src_uri and not page.file.src_uri.startswith("skill-checks/")


def _overview_table(nav, page: Page, stats_of) -> str:
    rows: list[str] = []
    total_min = total_pages = 0

    def link(p: Page) -> str:
        return f'<a href="{htmllib.escape(get_relative_url(p.url, page.url))}">{htmllib.escape(p.title or p.file.src_uri)}</a>'

    def pages_of(item) -> list[Page]:
        if isinstance(item, Page):
            return [item]
        if isinstance(item, Section):
            return [p for child in item.children for p in pages_of(child)]
        return []

    # The groups in the navigation's order: the pages before its first section start the
    # course, each section is a group, a lesson page on its own (the notebook) is one, and the
    # pages after the last section close it (the references). This page lists itself nowhere.
    parts: list[tuple[str, list[Page]]] = []
    start: list[Page] = []
    after: list[Page] = []
    for item in nav.items:
        if isinstance(item, Section):
            parts.append((item.title, pages_of(item)))
        elif isinstance(item, Page) and is_lesson(item):
            parts.append((item.title or item.file.src_uri, [item]))     # e.g. the notebook
        elif isinstance(item, Page) and item is not page and item.file.src_uri != OVERVIEW:
            (after if parts else start).append(item)
    if start:
        parts.insert(0, ("Start here", start))
    if after:
        parts.append(("Reference", after))
    body = []
    for title, ps in parts:
        minutes = sum(stats_of(p).get("minutes", 0) for p in ps)
        total_min += minutes
        total_pages += len(ps)
        body.append(f'<h2 id="{re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")}">{htmllib.escape(title)}</h2>')
        body.append(f'<p class="esm-overview-part">{len(ps)} page{"s" * (len(ps) != 1)}, about {minutes} min.</p>')
        body.append('<table><thead><tr><th scope="col">Page</th>'
                    '<th scope="col">Reading time</th><th scope="col">Headings</th></tr></thead><tbody>')
        for p in ps:
            s = stats_of(p) or {"minutes": 0, "headings": 0}
            body.append(f'<tr><td>{link(p)}</td><td>{s["minutes"]} min</td><td>{s["headings"]}</td></tr>')
        body.append("</tbody></table>")
    rows.append(f'<p class="esm-overview-total">{total_pages} pages in {len(parts)} group{"s" * (len(parts) != 1)}, '
                f"about {total_min} minutes of reading.</p>")
    return '<div class="esm-overview">' + "".join(rows + body) + "</div>"


def _meta_line(stats: dict) -> str:
    h = stats["headings"]
    return (f'<p class="esm-readmeta"><span class="esm-readtime">{stats["minutes"]} min read</span>'
            f'<span aria-hidden="true"> · </span><span class="esm-headcount">{h} heading{"s" * (h != 1)}</span></p>')


def _notes_html(page: Page) -> str:
    key = htmllib.escape(page.file.src_uri)
    return (
        f'<section class="esm-notes" data-page="{key}" aria-labelledby="esm-notes-title">'
        '<h2 id="esm-notes-title">Your notes</h2>'
        '<p class="esm-notes-intro">Private: kept only in this browser (localStorage), never sent anywhere. '
        "Export them to keep a copy or move them to another browser.</p>"
        '<label class="esm-notes-label" for="esm-notes-text">Notes on this page</label>'
        f'<textarea id="esm-notes-text" class="esm-notes-text" rows="6" maxlength="{NOTES_LIMIT}" '
        'aria-describedby="esm-notes-count" spellcheck="true" autocomplete="off"></textarea>'
        f'<p id="esm-notes-count" class="esm-notes-count">0 / {NOTES_LIMIT:,} characters</p>'
        '<div class="esm-notes-actions">'
        '<button type="button" class="md-button esm-notes-export">Export all notes (JSON)</button>'
        '<label class="md-button esm-notes-import-label">Import notes (JSON)'
        '<input type="file" class="esm-notes-import" accept=".json,application/json"></label>'
        "</div>"
        '<p class="esm-notes-status" role="status" aria-live="polite"></p>'
        "</section>"
    )


#: Material 9.8 widgets that axe-core finds without an accessible name (serious).
_A11Y_NAMES = (
    ('<div class="md-search" data-md-component="search" role="dialog">',
     '<div class="md-search" data-md-component="search" role="dialog" aria-label="Search">'),
    ('<div class="md-progress" data-md-component="progress" role="progressbar">',
     '<div class="md-progress" data-md-component="progress" role="progressbar" aria-label="Loading the page">'),
)


def name_widgets(html: str) -> str:
    """Material's search dialog and progress bar with their accessible names (pages and 404.html)."""
    for old, new in _A11Y_NAMES:
        html = html.replace(old, new, 1)
    return html


def fill_titles(html: str, files) -> str:
    """Each review link's label: the title of the page it points to (known once all are read)."""
    def title(m: re.Match) -> str:
        file = files.get_file_from_path(m[1])
        return htmllib.escape(str(file.page.title or m[1]))
    return _TITLE.sub(title, html)


class Learner:
    """Reading time, the overview, skill checks, the practice queue and the notes panel."""

    def __init__(self) -> None:
        self.state = None
        self.all_checks: list[dict] = []        # every skill check, as read from its file
        self.checks: dict[str, dict] = {}       # page src_uri -> the skill check shown on it
        self.site_files = None                  # the site's files, kept from on_files
        self.nav = None

    def on_config(self, config, state) -> None:
        self.state = state
        self.all_checks = _load_checks(Path(config.docs_dir))

    def on_files(self, files) -> None:
        """The skill-check data is rendered into pages, not published as files."""
        for f in [f for f in files if f.src_uri.startswith("skill-checks/")]:
            files.remove(f)
        self.site_files = files

    def on_nav(self, nav) -> None:
        """A check whose ``page`` is a folder (``part1/``) goes on that part's last page."""
        self.nav = nav
        order = [p.file.src_uri for p in nav.pages]
        placed: dict[str, dict] = {}
        for check in self.all_checks:
            target = check["page"]
            if target.endswith("/"):
                inside = [src for src in order if src.startswith(target)]
                if not inside:
                    continue          # a build of a few pages: that part is not in it
                target = inside[-1]
            if target in placed:
                raise PluginError(f"skill-checks/{check['key']}.yml: {target} already has a skill check")
            check["shown_on"] = target
            placed[target] = check
        self.checks = placed

    def on_page_content(self, html: str, page, files) -> str:
        stats = reading_stats(html)
        # only what pages show (the meta line, the overview): serve compares it between builds
        self.state.page(page.file.src_uri).stats = {k: stats[k] for k in ("minutes", "headings")}
        check = self.checks.get(page.file.src_uri)
        if check is not None:
            practice = files.get_file_from_path(PRACTICE)
            href = get_relative_url(practice.url, page.url) if practice else "#"
            html += _skill_check_html(check, page, files, href)
        if page.file.src_uri == PRACTICE:
            bank = "".join(
                _question(q, n, check, page, files, practice=True)
                for check in self.all_checks
                for n, q in enumerate(check["questions"], 1)
            )
            total = sum(len(c["questions"]) for c in self.all_checks)
            block = f'<div class="esm-practice" data-total="{total}">{bank}</div>'
            if _PRACTICE_MARK not in html:
                raise PluginError(f"{page.file.src_uri}: the practice page needs the marker {_PRACTICE_MARK}")
            html = html.replace(_PRACTICE_MARK, block, 1)
        return html

    def _where(self, ref: str) -> str:
        """The skill-check file and question that quote ``ref`` (for error messages)."""
        for check in self.all_checks:
            for q in check["questions"]:
                if ref in str([q["prompt"], q["choices"], q["explain"]]):
                    return f"skill-checks/{check['key']}.yml: question {q['id']}"
        return "skill-checks"

    def fill_values(self, html: str, files) -> str:
        """Replace each {{page.md#name[:format]}} by the value that page's code published."""
        def value(m: re.Match) -> str:
            path, name, fmt = m[1], m[2], m[3]
            file = files.get_file_from_path(path)
            if file is None or file.page is None:
                if (self.state.root / "docs" / path).is_file():    # a page this build leaves out (a subset build)
                    return f"[{name}: computed on {path}]"
                raise PluginError(f"{self._where(m[0])}: {m[0]} names {path}, which is not a page of docs/")
            values = self.state.page(path).values
            if name not in values:
                known = ", ".join(sorted(values)) or "none"
                raise PluginError(f"{self._where(m[0])}: unknown computed value {m[0]} ({path} publishes: {known})")
            entry = values[name]
            try:
                return htmllib.escape(render(entry["value"], fmt.strip() if fmt is not None else entry["fmt"]))
            except (ValueError, TypeError) as err:
                raise PluginError(f"{self._where(m[0])}: cannot format {m[0]}: {err}") from None
        return _VALUE.sub(value, html)

    def on_env(self, files) -> None:
        """All pages are converted now: fill in the values that skill checks quote, and the
        overview with every page's reading stats."""
        site = self.site_files or files
        quoting = {check["shown_on"] for check in self.checks.values()} | {PRACTICE}
        for f in files.documentation_pages():
            if f.src_uri in quoting and f.page is not None and f.page.content:
                # every page of the site: serve's one-page route passes only the rebuilt ones
                f.page.content = fill_titles(self.fill_values(f.page.content, site), site)
        for f in files.documentation_pages():
            p = f.page
            if p is not None and f.src_uri == OVERVIEW and p.content:
                if _OVERVIEW_MARK not in p.content:
                    raise PluginError(f"{f.src_uri}: the overview page needs the marker {_OVERVIEW_MARK}")
                stats_of = lambda page: self.state.page(page.file.src_uri).stats   # noqa: E731
                p.content = p.content.replace(_OVERVIEW_MARK, _overview_table(self.nav, p, stats_of), 1)

    def on_post_page(self, output: str, page) -> str:
        output = name_widgets(output)
        if not is_lesson(page):
            return output
        stats = self.state.page(page.file.src_uri).stats
        if stats:
            m = _H1_END.search(output)
            if m:
                output = output[:m.end()] + _meta_line(stats) + output[m.end():]
        end = output.rfind("</article>")
        if end == -1:
            raise PluginError(f"{page.file.src_uri}: no <article> to add the notes panel to")
        return output[:end] + _notes_html(page) + output[end:]
