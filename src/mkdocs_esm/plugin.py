"""The book's build plugin: one object that runs every feature of the build in a fixed order.

Each feature is a module of this package with one class (execution, glue, reading, skillchecks,
notes, cite, mathml, xref, fonts, notebook, pagenotebook, codeblocks, explore, stylesheets, search, serve, print_site, defer). The plugin holds one
instance of each and the build state (state.py), made anew at every ``on_config``; the order of
the work within an event is written here, once, event by event. Priorities are set only where
another plugin forces them: the notebook is made before mkdocs-jupyter reads the files (50) and
read after it wrapped them (-50); cross-reference numbers go in before mkdocs-autorefs (-50)
turns them into links; serve's and print-site's bookkeeping come after every other ``on_env``
(-100). Plugin objects live as long as the process (``mkdocs serve`` keeps them across
rebuilds), so what must survive a rebuild (serve's last build) sits on the features.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority

from . import codeblocks, content, defer, explore, fonts, markup, notes
from .cite import Cite
from .config import EsmConfig
from .execcache import ExecCache
from .execution import Execution
from .glue import Glue
from .mathml import MathML
from .notebook import Notebook
from .page import snippet_dirs
from .pagenotebook import PageNotebooks
from .compat import material
from .compat.material import name_widgets
from .print_site import PrintSite
from .reading import Reading
from .search import Search
from .serve import Serve
from .skillchecks import SkillChecks
from .state import BuildState
from .stylesheets import Stylesheets
from .xref import Xref


class EsmPlugin(BasePlugin[EsmConfig]):
    """``plugins: - esm`` in mkdocs.yml (listed last: it works on what the others made)."""

    def __init__(self) -> None:
        self.command = "build"
        self.state: BuildState | None = None
        self.serve = Serve()
        self.execution = Execution()
        self.glue = Glue(block_failed=self.execution.block_failed)
        self.reading = Reading()
        self.skillchecks = SkillChecks()
        self.cite = Cite()
        self.mathml = MathML()
        self.xref = Xref()
        self.notebook = Notebook()
        self.pagenotebooks = PageNotebooks(numbers=lambda: self.xref.labels, cites=lambda: self.cite.labels)
        self.stylesheets = Stylesheets()
        self.search = Search()
        # the print page (`make pdf`) gets each page's content whole, and not deferred
        self.print_site = PrintSite(unhold=lambda page, text: defer.restore(self.search.unhold(page, text)))

    def on_startup(self, *, command, dirty):
        self.command = command

    def on_config(self, config):
        root = Path(config.config_file_path).parent
        cache_dir = (root / self.config.cache_dir) if self.config.cache else None
        self.state = BuildState(root=root, command=self.command, cache_dir=cache_dir,
                                font_cache_dir=(root / self.config.font_cache_dir) if self.config.cache else None,
                                python_path=[root / folder for folder in self.config.python_path],
                                snippet_dirs=[Path(d) for d in snippet_dirs(config)])
        # The one entry of the import path the plugin makes: the folders the book's executed
        # blocks import their helpers from (`from esm import ...`), first, as pytest's
        # `pythonpath` option does for tests.
        for folder in reversed(self.state.python_path):
            path = str(folder)
            if path not in sys.path:
                sys.path.insert(0, path)
        material.check_wrapped_runtime(config)      # the theme override's wrappers of Material's runtime
        self.serve.on_config(config, self.state, enabled=self.config.fast_serve)
        self.execution.on_config(config, self.state, jobs=self.config.jobs)
        self.glue.on_config(config, self.state)
        self.reading.on_config(config, self.state)
        self.skillchecks.on_config(config, self.state)
        self.cite.on_config(config)
        self.mathml.on_config(config, self.state)
        self.xref.on_config(config, self.state)
        self.notebook.on_config(config, self.state)
        self.pagenotebooks.on_config(config, self.state)
        self.search.on_config(config, self.state)
        self.stylesheets.on_config(self.state)
        if self.config.print_site:
            self.print_site.on_config()
        return config

    def on_pre_build(self, *, config):
        self.execution.on_pre_build()
        self.cite.on_pre_build()
        self.xref.on_pre_build(config)

    @event_priority(50)         # before mkdocs-jupyter's on_files, which must see the made notebook
    def _files_first(self, files, *, config):
        return self.notebook.on_files(files, config)

    def _files(self, files, *, config):
        self.execution.on_files(files, config)
        self.skillchecks.on_files(files)
        self.cite.on_files(files, config)
        self.mathml.on_files(files, config)
        self.pagenotebooks.on_files(files, config)
        return files

    on_files = CombinedEvent(_files_first, _files)

    def _nav(self, nav, *, config, files):
        self.serve.on_nav(nav)
        self.reading.on_nav(nav)
        self.skillchecks.on_nav(nav)
        return nav

    @event_priority(-50)        # after mkdocs-jupyter's on_files, which wrapped the made notebook
    def _nav_last(self, nav, *, config, files):
        self.notebook.on_nav(config, files)
        return nav

    on_nav = CombinedEvent(_nav, _nav_last)

    def on_page_markdown(self, markdown, *, page, config, files):
        markdown = self.execution.on_page_markdown(markdown, page)
        self.glue.on_page_markdown(markdown, page)
        markdown = self.cite.on_page_markdown(markdown, page)
        self.xref.on_page_markdown(markdown, page)
        return markdown

    @event_priority(-50)        # after mkdocs-jupyter's on_pre_page, which replaces page.render
    def on_pre_page(self, page, *, config, files):
        self.notebook.on_pre_page(page, config)
        return page

    @event_priority(50)         # the notebook page in the site's markup before anything reads it
    def _content_first(self, html, *, page, config, files):
        return self.notebook.on_page_content(html, page, files)

    def _content(self, html, *, page, config, files):
        self.execution.on_page_content(html, page)
        html = self.skillchecks.on_page_content(html, page, files)
        self.cite.on_page_content(page, config)
        self.xref.register_headings(page, config)
        html = self.mathml.on_page_content(html, page)
        self.notebook.ship(page)                     # the theory notebook's download, its formulas numbered
        self.xref.register_equations(page, config)
        html = codeblocks.unwrap(html)
        read = content.read(html, ExecCache(self.state.cache_dir))       # the content parsed once
        self.reading.on_page_content(read["stats"], page)
        self.state.page(page.file.src_uri).shows_math = read["shows_math"]
        inserts = [] if page.url.startswith("print_page") else read["inserts"]
        return self.search.on_page_content(html, page, read["holds"], inserts)

    on_page_content = CombinedEvent(_content_first, _content)

    def _env(self, env, *, config, files):
        self.skillchecks.on_env(files)
        self.reading.on_env(files)
        self.xref.on_env(config, files)
        self.pagenotebooks.on_env(config, files)
        return env

    @event_priority(-100)       # after every other on_env (mkdocs-autorefs' included)
    def _env_last(self, env, *, config, files):
        self.serve.on_env(env, config, files)
        if self.config.print_site:
            self.print_site.on_env(files)
        return env

    on_env = CombinedEvent(_env, _env_last)

    def on_post_page(self, output, *, page, config):
        output = name_widgets(output)
        output = self.reading.on_post_page(output, page)
        output = notes.on_post_page(output, page)
        output = self.pagenotebooks.on_post_page(output, page)
        output = self.mathml.on_post_page(output, page)
        output = explore.on_post_page(output, page)
        output = explore.move_data(output, page, config.site_dir)
        output = self.stylesheets.on_post_page(output, page, config)
        return self.search.on_post_page(output, page)       # last: the page as indexed, deferred

    def on_post_template(self, output_content, *, template_name, config):
        """Static templates (404.html) carry Material's widgets too: name them as on pages."""
        return name_widgets(output_content)

    def on_post_build(self, *, config):
        self.serve.on_post_build()
        self.execution.on_post_build()
        self.cite.on_post_build()
        self.mathml.on_post_build()
        if self.state.command != "serve":
            markup.read_site(Path(config.site_dir), ExecCache(self.state.cache_dir))   # each page parsed once
            fonts.subset_fonts(Path(config.site_dir), ExecCache(self.state.font_cache_dir))
        self.notebook.on_post_build()
        self.stylesheets.on_post_build(config)
        self.search.on_post_build(config)

    def on_build_error(self, *, error):
        self.execution.on_build_error()
        self.mathml.on_build_error()
        self.serve.on_build_error()
        self.notebook.on_build_error()

    def on_serve(self, server, *, config, builder):
        return self.serve.on_serve(server, builder)

    def serve_remake(self, path, config, files):
        """serve's one-page route for a file that is not a Markdown page (the notebook's source)."""
        return self.notebook.serve_remake(path, config, files)
