"""Skill checks: the questions of ``docs/skill-checks/*.yml`` on the pages they belong to, and
every question on the practice page.

- Each file names the page it is shown on (``page:``; a folder such as ``part1/`` means that
  part's last page) and holds 4 to 6 multiple-choice questions; they are rendered here, their
  ``$math$`` left to mathml.py (which runs after this), and appended to that page. The
  files are data, never published.
- Question text quotes values that a page's code computed as
  ``{{part2/geometry-of-meaning.md#analogy_cos_king}}`` (or ``{{...#name:.2f}}``): the page and a
  name it publishes with ``esm.glue`` (glue.py). They are filled in ``on_env``, when every page is
  converted (never inside ``$...$``: the math is rendered by then); an unknown page or name fails
  the build naming the file and the question. So is each review link's label, the title of the
  page it points to.
- The practice page (docs/practice.md), in place of ``<div class="esm-practice"></div>``, gets
  every question of every skill check, hidden; docs/javascripts/learner.js shows the ones due.
"""

from __future__ import annotations

import hashlib
import html as htmllib
import re
from pathlib import Path

import yaml
from mkdocs.exceptions import PluginError
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from .glue import render

#: The opening tags of what the search index leaves out of a skill check (search.py): the intro's
#: boilerplate, the choices (three of them false), the button's words and the feedback with the
#: answer. The questions stay searchable.
INTRO = '<p class="esm-skillcheck-intro">'
CHOICES = '<div class="esm-q-choices">'
SUBMIT = '<button type="button" class="md-button esm-q-submit">'
FEEDBACK = '<div class="esm-q-feedback" role="status" aria-live="polite">'
UNINDEXED = (INTRO, CHOICES, SUBMIT, FEEDBACK)

QUESTIONS_PER_CHECK = (4, 6)
PRACTICE = "practice.md"
_PRACTICE_MARK = '<div class="esm-practice"></div>'


def load_checks(docs_dir: Path) -> list[dict]:
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
            check_references(where, q)
            if not 2 <= len(q["choices"]) <= 6 or not 0 <= int(q["answer"]) < len(q["choices"]):
                raise PluginError(f"{where}: question {q['id']}: 2-6 choices and an answer index among them")
        data["key"] = path.stem
        out.append(data)
    return out


#: A review link's label, filled in with the page's title in on_env.
_TITLE_MARK = "<!--esm-title:{}-->"
_TITLE = re.compile(r"<!--esm-title:([^>]+?)-->")

#: A computed value quoted in a skill check: {{page.md#name}} or {{page.md#name:format}}.
VALUE = re.compile(r"\{\{\s*([\w./-]+\.md)#([A-Za-z][A-Za-z0-9_]*)\s*(?::([^{}\n]*?))?\s*\}\}")


def check_references(where: str, q: dict) -> None:
    """Every ``{{...}}`` in a question is a well-formed reference outside ``$...$``."""
    for field in ("prompt", "explain", *(f"choice {i + 1}" for i in range(len(q["choices"])))):
        text = str(q[field] if not field.startswith("choice") else q["choices"][int(field[7:]) - 1])
        if text.count("{{") != len(VALUE.findall(text)):
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
        f'<legend>{origin}{inline(q["prompt"])}</legend>\n'
        f'{CHOICES}{choices}</div>'
        f'{SUBMIT}Check answer</button>'
        f'{FEEDBACK}'
        f'<p class="esm-q-verdict"></p>'
        f'<div class="esm-q-explain" hidden><p>{inline(q["explain"])}</p>{see}</div></div>'
        f"</fieldset>"
    )


def _skill_check_html(check: dict, page: Page, files, practice_href: str) -> str:
    qs = "".join(_question(q, n, check, page, files, practice=False) for n, q in enumerate(check["questions"], 1))
    return (
        f'<section class="esm-skillcheck" data-check="{check["key"]}" aria-labelledby="skill-check">'
        f'<h2 id="skill-check">Skill check: {htmllib.escape(check["title"])}</h2>'
        f'{INTRO}{len(check["questions"])} questions on this part. '
        "Your answers and score are kept in this browser only; a question you miss comes back "
        f'in the <a class="esm-practice-link" href="{htmllib.escape(practice_href)}">practice queue</a>.</p>'
        f"{qs}"
        f'<p class="esm-skillcheck-score" role="status" aria-live="polite"></p>'
        f'<button type="button" class="md-button esm-skillcheck-reset">Clear my answers to this check</button>'
        "</section>"
    )


def fill_titles(html: str, files) -> str:
    """Each review link's label: the title of the page it points to (known once all are read)."""
    def title(m: re.Match) -> str:
        file = files.get_file_from_path(m[1])
        return htmllib.escape(str(file.page.title or m[1]))
    return _TITLE.sub(title, html)


class SkillChecks:
    """The skill checks and the practice page."""

    def __init__(self) -> None:
        self.state = None
        self.all_checks: list[dict] = []        # every skill check, as read from its file
        self.checks: dict[str, dict] = {}       # page src_uri -> the skill check shown on it
        self.site_files = None                  # the site's files, kept from on_files

    def on_config(self, config, state) -> None:
        self.state = state
        self.all_checks = load_checks(Path(config.docs_dir))

    def on_files(self, files) -> None:
        """The skill-check data is rendered into pages, not published as files."""
        for f in [f for f in files if f.src_uri.startswith("skill-checks/")]:
            files.remove(f)
        self.site_files = files

    def on_nav(self, nav) -> None:
        """A check whose ``page`` is a folder (``part1/``) goes on that part's last page."""
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
            # The bank waits in a <template>: parsed but not in the document (no style, layout or
            # element count) until learner.js moves the due questions out of it.
            block = (f'<div class="esm-practice" data-total="{total}">'
                     f'<template class="esm-practice-bank">{bank}</template></div>')
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
        return VALUE.sub(value, html)

    def on_env(self, files) -> None:
        """All pages are converted now: fill in the values that skill checks quote and the
        review links' labels."""
        site = self.site_files or files
        quoting = {check["shown_on"] for check in self.checks.values()} | {PRACTICE}
        for f in files.documentation_pages():
            if f.src_uri in quoting and f.page is not None and f.page.content:
                # every page of the site: serve's one-page route passes only the rebuilt ones
                f.page.content = fill_titles(self.fill_values(f.page.content, site), site)
