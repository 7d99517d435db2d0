"""`make pdf` only (mkdocs-pdf.yml): give mkdocs-print-site-plugin each page's final HTML,
and make its renaming of heading ids linear.

The plugin keeps a page's HTML as it stands at the plugin's own ``on_page_content``, before
this plugin renders its math (mathml.py) and mkdocs-autorefs resolves its cross-references and
citations (``on_env``). After all of them, this hands it the finished content instead, with
what search.py holds out of it for the search index put back (code and output, figures:
without them the book printed no code at all). Its renaming of heading ids is made linear in compat/print_site.py.
"""

from __future__ import annotations


class PrintSite:
    """Feeds mkdocs-print-site-plugin the finished pages (``print_site: true``, `make pdf`)."""

    def __init__(self, unhold) -> None:
        #: the search feature's: a page's content with what the index did not see put back
        self.unhold = unhold

    def on_config(self) -> None:
        from .compat import print_site
        print_site.faster_anchor_ids()

    def on_env(self, files) -> None:
        from .compat import print_site
        for file in files:
            page = file.page
            if page is not None and print_site.holds_html(page) and page.content:
                # search.py holds the formulas' visual HTML and the code out of page.content
                # until on_post_page: the book takes them back.
                print_site.set_html(page, self.unhold(page, page.content))
