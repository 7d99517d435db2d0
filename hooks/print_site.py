"""`make pdf` only (mkdocs-pdf.yml): give mkdocs-print-site-plugin each page's final HTML.

The plugin keeps a page's HTML as it stands at the plugin's own ``on_page_content``, before
the hooks render its math (katex.py) and mkdocs-autorefs resolves its cross-references and
citations (``on_env``). After all of them, this hands it the finished content instead.
"""

from __future__ import annotations

from mkdocs.plugins import event_priority


@event_priority(-100)   # after mkdocs-autorefs (-50)
def on_env(env, config, files, **kwargs):
    for file in files:
        page = file.page
        if page is not None and hasattr(page, "html") and page.content:
            page.html = page.content
    return env
