"""The book's build plugin: one object that runs every feature of the build in a fixed order.

Each feature is a module of this package (execution, glue, learner, cite, katex, xref, fonts,
notebook, codeblocks, stylesheets, search, serve, print_site). The order of the work within
an event is written here, once, event by event. Priorities are set only where another plugin
forces them: the notebook is made before mkdocs-jupyter reads the files (50) and read after it
wrapped them (-50); cross-reference numbers go in before mkdocs-autorefs (-50) turns them into
links; serve's and print-site's bookkeeping come after every other ``on_env`` (-100).
"""

from __future__ import annotations

from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority

from . import (cite, codeblocks, execution, fonts, glue, katex, learner, notebook, print_site,
               search, serve, stylesheets, xref)
from .config import EsmConfig


def _fold(value, results):
    """The value an event's handlers hand on: each may return a new one, or None to keep it."""
    for result in results:
        if result is not None:
            value = result
    return value


class EsmPlugin(BasePlugin[EsmConfig]):
    """``plugins: - esm`` in mkdocs.yml (listed last: it works on what the others made)."""

    def on_startup(self, *, command, dirty):
        for feature in (serve, fonts, stylesheets):
            feature.on_startup(command=command, dirty=dirty)

    def on_config(self, config):
        for feature in (serve, execution, glue, learner, cite, katex, xref, notebook, search, stylesheets):
            config = _fold(config, [feature.on_config(config)])
        return config

    def on_pre_build(self, *, config):
        for feature in (execution, cite, xref):
            feature.on_pre_build(config)

    @event_priority(50)         # before mkdocs-jupyter's on_files, which must see the made notebook
    def _files_notebook(self, files, *, config):
        return notebook.on_files(files, config)

    def _files(self, files, *, config):
        for feature in (execution, learner, cite, katex):
            files = _fold(files, [feature.on_files(files, config)])
        return files

    on_files = CombinedEvent(_files_notebook, _files)

    def _nav(self, nav, *, config, files):
        for feature in (serve, learner):
            nav = _fold(nav, [feature.on_nav(nav, config, files)])
        return nav

    @event_priority(-50)        # after mkdocs-jupyter's on_files, which wrapped the made notebook
    def _nav_notebook(self, nav, *, config, files):
        return notebook.on_nav(nav, config, files)

    on_nav = CombinedEvent(_nav, _nav_notebook)

    def on_page_markdown(self, markdown, *, page, config, files):
        for feature in (execution, glue, cite, xref):
            markdown = _fold(markdown, [feature.on_page_markdown(markdown, page=page, config=config, files=files)])
        return markdown

    @event_priority(-50)        # after mkdocs-jupyter's on_pre_page, which replaces page.render
    def on_pre_page(self, page, *, config, files):
        return notebook.on_pre_page(page, config, files)

    @event_priority(50)         # the notebook page in the site's markup before the others read it
    def _content_notebook(self, html, *, page, config, files):
        return notebook.on_page_content(html, page, config, files)

    def _content(self, html, *, page, config, files):
        for feature in (execution, glue, learner, cite, katex, xref, codeblocks, search):
            html = _fold(html, [feature.on_page_content(html, page=page, config=config, files=files)])
        return html

    on_page_content = CombinedEvent(_content_notebook, _content)

    def _env(self, env, *, config, files):
        for feature in (learner, xref):
            env = _fold(env, [feature.on_env(env, config, files)])
        return env

    @event_priority(-100)       # after every other on_env (mkdocs-autorefs' included)
    def _env_last(self, env, *, config, files):
        env = _fold(env, [serve.on_env(env, config, files)])
        if self.config.print_site:
            env = _fold(env, [print_site.on_env(env, config, files)])
        return env

    on_env = CombinedEvent(_env, _env_last)

    def on_post_page(self, output, *, page, config):
        for feature in (learner, katex, stylesheets, search):
            output = _fold(output, [feature.on_post_page(output, page=page, config=config)])
        return output

    def on_post_build(self, *, config):
        for feature in (execution, cite, katex, fonts, notebook, stylesheets, search):
            feature.on_post_build(config)

    def on_build_error(self, *, error):
        for feature in (execution, katex, serve, notebook):
            feature.on_build_error(error)

    def on_serve(self, server, *, config, builder):
        return serve.on_serve(server, config, builder)

    def serve_remake(self, path, config, files):
        """serve's one-page route for a file that is not a Markdown page (the notebook's source)."""
        return notebook.serve_remake(path, config, files)
