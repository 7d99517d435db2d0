"""The private-notes panel at the end of every lesson page (added after the search index is
built, so the panel is not indexed 40 times). The browser side (saving, export, import) is
docs/javascripts/learner.js."""

from __future__ import annotations

import html as htmllib

from mkdocs.exceptions import PluginError
from mkdocs.structure.pages import Page

from .reading import is_lesson

NOTES_LIMIT = 8000


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


def on_post_page(output: str, page) -> str:
    """The notes panel at the end of a lesson page's article."""
    if not is_lesson(page):
        return output
    end = output.rfind("</article>")
    if end == -1:
        raise PluginError(f"{page.file.src_uri}: no <article> to add the notes panel to")
    return output[:end] + _notes_html(page) + output[end:]
