"""`mkdocs serve` in about a second: an edited page is rebuilt alone when no other page can change.

mkdocs 1.6 serve rebuilds the whole site on any change (reloading the config, re-rendering every
page, re-indexing every page for search). This feature (it changes no page) replaces serve's builder with one that first looks at what changed since the last build (the modification
time and size of every file under the watched paths) and takes one of four routes:

- nothing changed (a ``__pycache__`` write, a file touched back): no rebuild;
- only pages changed, or only demo snippets that some pages include and nothing imports or
  mentions elsewhere: those pages alone go through every page event again (their blocks through
  the execution cache, so a snippet edit re-runs only its blocks), on the previous build's config,
  files, nav and plugins. Before anything is written, the part of each page that other
  pages can see is compared with the previous build's: its title and front matter, its table of
  contents, every id in its HTML, the anchors it registered with mkdocs-autorefs, and what the
  build state keeps of it for other pages (state.PageState.shared: its published values, equation
  numbers and reading statistics). If all of it is the same, only those pages are written, their search entries are
  replaced in place, and the post-build events run (the search index is written again); a warning
  on the way counts as a failure, as ``--strict`` does;
- the source of a page that a plugin makes, when that plugin's ``serve_remake(path, config,
  files)`` says so (notebook.py, for ``docs/notebook/theory.py`` when the cache holds the outputs
  of its code cells as they now are: a Markdown edit): it makes the page's input again and names
  the page and the files to write with it (the shipped notebook); the page then takes the route
  above;
- anything else (a title, a heading, an anchor or an equation number changed; ``mkdocs.yml``, a
  the theme override, ``esm`` or a data file changed; a file added or deleted; an error
  or a warning in the fast route): serve's own full rebuild.

The rebuilt pages are the same bytes as a full build's (tests/test_serve.py checks it against a
clean build after each kind of edit). ``fast_serve: false`` (``ESM_FAST_SERVE=0``) turns the
fast route off.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import time
from pathlib import Path

from mkdocs import utils
from mkdocs.structure.files import Files, InclusionLevel

from . import page as pagemodel
from .compat import autorefs
from .compat import mkdocs as mkbuild

log = logging.getLogger("mkdocs.plugins.esm.serve")



# -- what changed ------------------------------------------------------------------------------

def snapshot(roots: list[str]) -> dict[str, tuple[int, int]]:
    """Modification time and size of every file under ``roots`` (files or folders); hidden
    files, editor backups and ``__pycache__`` are left out, as mkdocs leaves them out of docs."""
    out: dict[str, tuple[int, int]] = {}
    for root in roots:
        if os.path.isfile(root):
            st = os.stat(root)
            out[root] = (st.st_mtime_ns, st.st_size)
            continue
        for folder, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
            for name in names:
                if name.startswith(".") or name.endswith("~"):
                    continue
                path = os.path.join(folder, name)
                try:
                    st = os.stat(path)
                except FileNotFoundError:
                    continue
                out[path] = (st.st_mtime_ns, st.st_size)
    return out


def changed_files(old: dict, new: dict) -> list[str] | None:
    """Files whose time or size changed; None if a file was added or deleted."""
    if old.keys() != new.keys():
        return None
    return sorted(p for p in new if new[p] != old[p])


def _inside(path: str, folder: str) -> str | None:
    rel = os.path.relpath(path, folder)
    return None if rel.startswith("..") or os.path.isabs(rel) else Path(rel).as_posix()


def pages_to_rebuild(changed: list[str], config, files) -> tuple[list, list] | None:
    """The pages that the ``changed`` files are inputs of, and the other files to write with
    them (those a plugin's ``serve_remake`` names), or None when a changed file may be an input
    of something else (a full rebuild is then the only safe answer)."""
    docs = os.path.abspath(config.docs_dir)
    sources = {f.src_uri: Path(f.abs_src_path).read_text(encoding="utf-8-sig") for f in files.documentation_pages()
               if f.abs_src_path and _inside(f.abs_src_path, docs) is not None and os.path.isfile(f.abs_src_path)}
    pages: dict[str, object] = {}
    extra: list = []
    for path in changed:
        rel = _inside(path, docs)
        if rel is not None:
            file = files.get_file_from_path(rel)
            if rel.endswith(".md") and file is not None and file.page is not None and not file.generated_by:
                pages[rel] = file.page
                continue
            remade = _remade(path, config, files)
            if remade is None:
                return None
            for src in remade[0]:
                pages[src] = files.get_file_from_path(src).page
            extra += remade[1]
            continue
        includers = _includers(path, config, sources)
        if not includers:
            return None
        for rel in includers:
            pages[rel] = files.get_file_from_path(rel).page
    order = [f.src_uri for f in files.documentation_pages()]
    return [pages[src] for src in order if src in pages], extra


def _remade(path: str, config, files) -> tuple[list[str], list] | None:
    """What the plugin that makes a page from ``path`` (not a Markdown page) made again: the
    pages to render and the files to write; None if no plugin makes anything from it."""
    for plugin in config.plugins.values():
        remake = getattr(plugin, "serve_remake", None)
        if callable(remake):
            made = remake(path, config, files)
            if made is not None:
                return made
    return None


def _includers(path: str, config, sources: dict[str, str]) -> list[str] | None:
    """The pages that paste the snippet ``path`` into a fence, if that is all it is used for:
    no module of that file is imported, and no other snippet or page names it."""
    for folder in pagemodel.snippet_dirs(config):
        rel = _inside(path, folder)
        if rel is not None:
            break
    else:
        return None
    if not rel.endswith(".py"):
        return None
    real = os.path.realpath(path)
    for module in list(sys.modules.values()):
        origin = getattr(module, "__file__", None)
        if origin and os.path.realpath(origin) == real:
            return None          # imported (esm): its importers may be anywhere
    named = re.compile(rf"(?<![\w.-]){re.escape(os.path.basename(path))}")   # lookup.py, not batch_lookup.py
    includers = [src for src, text in sources.items() if rel in {inc.path for inc in pagemodel.read(text).includes}]
    if any(named.search(text) for src, text in sources.items() if src not in includers):
        return None
    for folder in pagemodel.snippet_dirs(config):
        for other in Path(folder).rglob("*"):
            if other.is_file() and other.suffix in (".py", ".md", ".txt", ".json", ".toml", ".yml") \
                    and os.path.realpath(other) != real and named.search(other.read_text(encoding="utf-8", errors="replace")):
                return None      # another snippet includes or reads it
    return includers


# -- what other pages see of a page ------------------------------------------------------------

def _toc(items):
    for item in items:
        yield (item.level, item.id, item.title)
        yield from _toc(item.children)


def signature(page, plugin, state) -> tuple:
    """What other pages (their navigation, links, cross-reference numbers, the overview) and the
    anchor validation of every page read from ``page``."""
    return (page.title, repr(sorted(page.meta.items())), list(_toc(page.toc.items)),
            sorted(page.present_anchor_ids or ()), state.page(page.file.src_uri).shared(),
            autorefs.anchors(plugin, page))


def _forget(page, plugin, state) -> None:
    """Take out what the last render of ``page`` left behind, so a stale value cannot survive."""
    state.forget(page.file.src_uri)
    autorefs.forget(plugin, page)


def _search_entries(config) -> list | None:
    for plugin in config.plugins.values():
        index = getattr(plugin, "search_index", None)
        if index is not None and isinstance(getattr(index, "entries", None), list):
            return index.entries
    return None


def _splice(entries: list, before: list, pages) -> bool:
    """Put each rebuilt page's new search entries (appended at the end) where its old ones were,
    as a full build orders them; False if a page gained entries or lost them all."""
    new = entries[len(before):]

    def of(page, entry) -> bool:
        loc = entry.get("location", "")
        return loc == page.url or loc.startswith(page.url + "#")

    if any(any(of(p, e) for e in new) != any(of(p, e) for e in before) for p in pages):
        return False        # a page gained or lost its entries (a page left out of search has none)
    out, placed = [], set()
    for entry in before:
        page = next((p for p in pages if of(p, entry)), None)
        if page is None:
            out.append(entry)
        elif page.file.src_uri not in placed:
            out.extend(e for e in new if of(page, e))
            placed.add(page.file.src_uri)
    entries[:] = out
    return True


def _roots(config, server=None) -> list[str]:
    roots = {os.path.abspath(config.docs_dir), os.path.abspath(config.config_file_path)}
    roots.update(os.path.abspath(p) for p in config.watch)
    roots.update(os.path.abspath(d) for d in config.theme.dirs)
    if server is not None:
        roots.update(mkbuild.watched_paths(server))
    return sorted(roots)


class Serve:
    """The state serve's one-page route needs between builds: the last full build's config,
    files, nav, environment and the snapshot of the sources it read."""

    def __init__(self) -> None:
        self.state = None
        self.enabled = True
        self.fast = False           # inside the fast route: on_post_build must not capture
        self.building: dict = {}    # what the full build in progress leaves behind
        self.last: dict | None = None   # the last full build: config, files, nav, env, snapshot, roots

    def on_config(self, config, state, enabled: bool) -> None:
        if self.fast:
            return
        self.state = state
        self.enabled = enabled
        if state.command == "serve":
            self.building = {"roots": _roots(config)}
            self.building["snapshot"] = snapshot(self.building["roots"])   # before any source is read

    def on_nav(self, nav) -> None:
        self.building["nav"] = nav

    def on_env(self, env, config, files) -> None:
        """After every other on_env: only keeps references."""
        if not self.fast:
            self.building.update(config=config, files=files, env=env)

    def on_post_build(self) -> None:
        if self.state is not None and self.state.command == "serve" and not self.fast and "snapshot" in self.building:
            self.last = dict(self.building)

    def on_build_error(self) -> None:
        self.last = None

    def rebuild_pages(self, last: dict, pages: list, extra: list = ()) -> bool:
        """Render ``pages`` again on the last build's state and write them, and the files ``extra``
        (where mkdocs writes files: after every page is converted, before the pages are written);
        False (nothing written) if another page could change, or if anything on the way logged a
        warning."""
        config, files, nav, env = last["config"], last["files"], last["nav"], last["env"]
        plugin = autorefs.plugin_of(config)
        saved = autorefs.save(plugin)
        before = {p.file.src_uri: signature(p, plugin, self.state) for p in pages}
        warnings = utils.CountHandler()
        warnings.setLevel(logging.WARNING)
        logging.getLogger("mkdocs").addHandler(warnings)
        self.fast = True
        try:
            try:
                from markdown_exec import markdown_config     # reset by markdown-exec after each build
                markdown_config.save(config.markdown_extensions, config.mdx_configs)
            except ImportError:
                pass
            for page in pages:
                _forget(page, plugin, self.state)
            for page in pages:
                mkbuild.populate_page(page, config, files)
            after = {p.file.src_uri: signature(p, plugin, self.state) for p in pages}
            if after != before or warnings.get_counts():
                parts = ("title", "front matter", "table of contents", "ids", "build state", "anchors")
                changed = [f"{src} ({', '.join(n for n, x, y in zip(parts, before[src], after[src]) if x != y)})"
                           for src in before if before[src] != after[src]]
                log.info("serve: %s changed what other pages show: full rebuild", ", ".join(changed) or "a warning")
                for src in before:
                    for n, x, y in zip(parts, before[src], after[src]):
                        if x != y:
                            log.debug("serve: %s %s was %r, is %r", src, n, x, y)
                return False
            autorefs.restore(plugin, saved)         # the same anchors: keep the full build's order
            env = config.plugins.on_env(env, config=config, files=Files([p.file for p in pages]))
            for file in extra:
                file.copy_file()
            doc_files = files.documentation_pages(inclusion=InclusionLevel.is_in_serve)
            entries = _search_entries(config)
            old = list(entries) if entries is not None else None
            for page in pages:
                mkbuild.build_page(page, config, doc_files, nav, env)
            for page in pages:
                page.validate_anchor_links(files=files, log_level=config.validation.links.anchors)
            if entries is not None and not _splice(entries, old, pages):
                log.info("serve: a page gained or lost its search entries: full rebuild")
                return False
            config.plugins.on_post_build(config=config)
            return not warnings.get_counts()
        finally:
            self.fast = False
            logging.getLogger("mkdocs").removeHandler(warnings)

    def on_serve(self, server, builder):
        """Wrap serve's builder: the fast route when it is safe, serve's full rebuild otherwise."""
        if not self.enabled:
            return server

        def fast_builder(config=None):
            last, self.last = self.last, None   # consumed: a failure below leaves a full rebuild next
            start = time.monotonic()
            if last is not None and config is None:
                last["roots"] = _roots(last["config"], server)
                now = snapshot(last["roots"])
                changed = changed_files(last["snapshot"], now)
                if changed == []:
                    self.last = last
                    log.info("serve: no source changed, nothing rebuilt")
                    return
                pages, extra = None, []
                try:
                    pages, extra = (pages_to_rebuild(changed, last["config"], last["files"]) if changed else None) \
                        or (None, [])
                except Exception as error:                         # noqa: BLE001 - a full build is always right
                    log.info("serve: could not tell what changed (%s: %s): full rebuild", type(error).__name__, error)
                if not pages:
                    log.info("serve: %s may be read by more than one page, or no plugin remakes a page from it: full rebuild",
                             ", ".join(os.path.relpath(c) for c in changed[:3]) + (" ..." if len(changed) > 3 else ""))
                if pages:
                    try:
                        done = self.rebuild_pages(last, pages, extra)
                    except Exception as error:                     # noqa: BLE001 - the full build reports it
                        log.info("serve: fast rebuild stopped (%s: %s): full rebuild", type(error).__name__, error)
                        done = False
                    if done:
                        last["snapshot"] = now
                        self.last = last
                        log.info("Documentation built in %.2f seconds (%s rebuilt alone)",
                                 time.monotonic() - start, ", ".join(p.file.src_uri for p in pages))
                        return
            builder(config) if config is not None else builder()

        mkbuild.replace_builder(server, fast_builder)
        if self.last is not None:
            self.last["roots"] = _roots(self.last["config"], server)
        return server
