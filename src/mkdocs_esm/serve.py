"""`mkdocs serve` in about a second: an edited page is rebuilt alone when no other page can change.

mkdocs 1.6 serve rebuilds the whole site on any change (reloading the config, re-rendering every
page, re-indexing every page for search). This hook (listed first; it changes no page) replaces
serve's builder with one that first looks at what changed since the last build (the modification
time and size of every file under the watched paths) and takes one of four routes:

- nothing changed (a ``__pycache__`` write, a file touched back): no rebuild;
- only pages changed, or only demo snippets that some pages include and nothing imports or
  mentions elsewhere: those pages alone go through every page event again (their blocks through
  the execution cache, so a snippet edit re-runs only its blocks), on the previous build's config,
  files, nav, plugins and hooks. Before anything is written, the part of each page that other
  pages can see is compared with the previous build's: its title and front matter, its table of
  contents, every id in its HTML, the anchors it registered with mkdocs-autorefs, what hooks keep on
  the page (``page.esm_*``: the equation numbers) and its reading statistics (the overview page
  lists them). If all of it is the same, only those pages are written, their search entries are
  replaced in place, and the post-build events run (the search index is written again); a warning
  on the way counts as a failure, as ``--strict`` does;
- the source of a page that a hook makes, when that hook's ``serve_remake(path, config, files)``
  says so (hooks/notebook.py, for ``docs/notebook/theory.py`` when the cache holds the outputs
  of its code cells as they now are: a Markdown edit): the hook makes the page's input again and
  names the page and the files to write with it (the shipped notebook); the page then takes the
  route above;
- anything else (a title, a heading, an anchor or an equation number changed; ``mkdocs.yml``, a
  hook, the theme override, ``esm.py`` or a data file changed; a file added or deleted; an error
  or a warning in the fast route): serve's own full rebuild.

The rebuilt pages are the same bytes as a full build's (tests/test_serve.py checks it against a
clean build after each kind of edit). ``ESM_SERVE_FULL=1`` turns the fast route off.
"""

from __future__ import annotations

import copy
import logging
import os
import re
import sys
import time
from pathlib import Path

from mkdocs import utils
from mkdocs.commands import build as mkbuild
from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files, InclusionLevel

log = logging.getLogger("mkdocs.hooks.serve")

ENV_FULL = "ESM_SERVE_FULL"
_INCLUDE = re.compile(r'--8<--\s+"([^"]+)"')
_AUTOREFS_MAPS = ("_primary_url_map", "_secondary_url_map")

_command = "build"
_fast = False               # inside the fast route: on_post_build must not capture
_building: dict = {}        # what the full build in progress leaves behind
_last: dict | None = None   # the last full build: config, files, nav, env, snapshot, roots


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


def _snippet_dirs(config) -> list[str]:
    base = (config.mdx_configs.get("pymdownx.snippets") or {}).get("base_path") or []
    return [os.path.abspath(os.fspath(b)) for b in ([base] if isinstance(base, (str, os.PathLike)) else base)]


def pages_to_rebuild(changed: list[str], config, files) -> tuple[list, list] | None:
    """The pages that the ``changed`` files are inputs of, and the other files to write with
    them (those a hook's ``serve_remake`` names), or None when a changed file may be an input
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
    """What the hook that makes a page from ``path`` (not a Markdown page) made again: the pages
    to render and the files to write; None if no hook makes anything from it."""
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
    for folder in _snippet_dirs(config):
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
            return None          # imported (esm.py): its importers may be anywhere
    named = re.compile(rf"(?<![\w.-]){re.escape(os.path.basename(path))}")   # lookup.py, not batch_lookup.py
    includers = [src for src, text in sources.items() if rel in _INCLUDE.findall(text)]
    if any(named.search(text) for src, text in sources.items() if src not in includers):
        return None
    for folder in _snippet_dirs(config):
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


def _autorefs(config):
    plugin = config.plugins.get("autorefs")
    if plugin is None:
        return None
    if not all(hasattr(plugin, m) for m in (*_AUTOREFS_MAPS, "_title_map", "_abs_url_map")):
        raise RuntimeError("mkdocs-autorefs keeps its anchors elsewhere now: full rebuilds only")
    return plugin


def _anchors(plugin, page) -> list:
    if plugin is None:
        return []
    mine = lambda url: url.startswith(page.url + "#") or url == page.url   # noqa: E731
    out = [(m, ident, url) for m in _AUTOREFS_MAPS for ident, urls in getattr(plugin, m).items()
           for url in urls if mine(url)]
    out += [("title", url, title) for url, title in plugin._title_map.items() if mine(url)]
    out += [("abs", ident, url) for ident, url in plugin._abs_url_map.items() if mine(url)]
    return sorted(out)


def signature(page, plugin) -> tuple:
    """What other pages (their navigation, links, cross-reference numbers, the overview) and the
    anchor validation of every page read from ``page``."""
    hooks = {k: repr(v) for k, v in sorted(vars(page).items()) if k.startswith("esm_")}
    return (page.title, repr(sorted(page.meta.items())), list(_toc(page.toc.items)),
            sorted(page.present_anchor_ids or ()), hooks, _anchors(plugin, page))


def _forget(page, plugin) -> None:
    """Take out what the last render of ``page`` left behind, so a stale value cannot survive."""
    for k in [k for k in vars(page) if k.startswith("esm_")]:
        delattr(page, k)
    if plugin is not None:
        mine = lambda url: url.startswith(page.url + "#") or url == page.url   # noqa: E731
        for m in _AUTOREFS_MAPS:
            table = getattr(plugin, m)
            for ident in list(table):
                table[ident] = [u for u in table[ident] if not mine(u)]
                if not table[ident]:
                    del table[ident]
        for url in [u for u in plugin._title_map if mine(u)]:
            del plugin._title_map[url]
        for ident in [i for i, u in plugin._abs_url_map.items() if mine(u)]:
            del plugin._abs_url_map[ident]


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


# -- the fast route ----------------------------------------------------------------------------

def rebuild_pages(state: dict, pages: list, extra: list = ()) -> bool:
    """Render ``pages`` again on the last build's state and write them, and the files ``extra``
    (where mkdocs writes files: after every page is converted, before the pages are written);
    False (nothing written) if another page could change, or if anything on the way logged a
    warning."""
    global _fast
    config, files, nav, env = state["config"], state["files"], state["nav"], state["env"]
    plugin = _autorefs(config)
    saved = {m: copy.deepcopy(getattr(plugin, m)) for m in (*_AUTOREFS_MAPS, "_title_map", "_abs_url_map")} \
        if plugin is not None else {}
    before = {p.file.src_uri: signature(p, plugin) for p in pages}
    warnings = utils.CountHandler()
    warnings.setLevel(logging.WARNING)
    logging.getLogger("mkdocs").addHandler(warnings)
    _fast = True
    try:
        try:
            from markdown_exec import markdown_config     # reset by markdown-exec after each build
            markdown_config.save(config.markdown_extensions, config.mdx_configs)
        except ImportError:
            pass
        for page in pages:
            _forget(page, plugin)
        for page in pages:
            mkbuild._populate_page(page, config, files)
        after = {p.file.src_uri: signature(p, plugin) for p in pages}
        if after != before or warnings.get_counts():
            parts = ("title", "front matter", "table of contents", "ids", "hook data", "anchors")
            changed = [f"{src} ({', '.join(n for n, x, y in zip(parts, before[src], after[src]) if x != y)})"
                       for src in before if before[src] != after[src]]
            log.info("serve: %s changed what other pages show: full rebuild", ", ".join(changed) or "a warning")
            for src in before:
                for n, x, y in zip(parts, before[src], after[src]):
                    if x != y:
                        log.debug("serve: %s %s was %r, is %r", src, n, x, y)
            return False
        for m, value in saved.items():          # the same anchors: keep the full build's order
            setattr(plugin, m, value)
        env = config.plugins.on_env(env, config=config, files=Files([p.file for p in pages]))
        for file in extra:
            file.copy_file()
        doc_files = files.documentation_pages(inclusion=InclusionLevel.is_in_serve)
        entries = _search_entries(config)
        old = list(entries) if entries is not None else None
        for page in pages:
            mkbuild._build_page(page, config, doc_files, nav, env)
        for page in pages:
            page.validate_anchor_links(files=files, log_level=config.validation.links.anchors)
        if entries is not None and not _splice(entries, old, pages):
            log.info("serve: a page gained or lost its search entries: full rebuild")
            return False
        config.plugins.on_post_build(config=config)
        return not warnings.get_counts()
    finally:
        _fast = False
        logging.getLogger("mkdocs").removeHandler(warnings)


def _roots(config, server=None) -> list[str]:
    roots = {os.path.abspath(config.docs_dir), os.path.abspath(config.config_file_path)}
    roots.update(os.path.abspath(p) for p in config.watch)
    roots.update(os.path.abspath(d) for d in config.theme.dirs)
    roots.update(getattr(server, "_watched_paths", {}) or {})
    return sorted(roots)


# -- mkdocs events -----------------------------------------------------------------------------

def on_startup(command, dirty, **kwargs):
    global _command
    _command = command


def on_config(config, **kwargs):
    if _command == "serve" and not _fast:
        _building.clear()
        _building["roots"] = _roots(config, _building.get("server"))
        _building["snapshot"] = snapshot(_building["roots"])   # before any source is read
    return config


def on_nav(nav, config, files, **kwargs):
    _building["nav"] = nav
    return nav


@event_priority(-100)       # after every other on_env: only keeps references
def on_env(env, config, files, **kwargs):
    if not _fast:
        _building.update(config=config, files=files, env=env)
    return env


def on_post_build(config, **kwargs):
    global _last
    if _command == "serve" and not _fast and "snapshot" in _building:
        _last = dict(_building)


def on_build_error(error, **kwargs):
    global _last
    _last = None


def on_serve(server, config, builder, **kwargs):
    """Wrap serve's builder: the fast route when it is safe, serve's full rebuild otherwise."""
    if os.environ.get(ENV_FULL, "").lower() in ("1", "yes", "true", "on"):
        return server

    def fast_builder(config=None):
        global _last
        state, _last = _last, None          # consumed: a failure below leaves a full rebuild next
        start = time.monotonic()
        if state is not None and config is None:
            state["roots"] = _roots(state["config"], server)
            now = snapshot(state["roots"])
            changed = changed_files(state["snapshot"], now)
            if changed == []:
                _last = state
                log.info("serve: no source changed, nothing rebuilt")
                return
            pages, extra = None, []
            try:
                pages, extra = (pages_to_rebuild(changed, state["config"], state["files"]) if changed else None) \
                    or (None, [])
            except Exception as error:                         # noqa: BLE001 - a full build is always right
                log.info("serve: could not tell what changed (%s: %s): full rebuild", type(error).__name__, error)
            if not pages:
                log.info("serve: %s may be read by more than one page, or no hook remakes a page from it: full rebuild",
                         ", ".join(os.path.relpath(c) for c in changed[:3]) + (" ..." if len(changed) > 3 else ""))
            if pages:
                try:
                    done = rebuild_pages(state, pages, extra)
                except Exception as error:                     # noqa: BLE001 - the full build reports it
                    log.info("serve: fast rebuild stopped (%s: %s): full rebuild", type(error).__name__, error)
                    done = False
                if done:
                    state["snapshot"] = now
                    _last = state
                    log.info("Documentation built in %.2f seconds (%s rebuilt alone)",
                             time.monotonic() - start, ", ".join(p.file.src_uri for p in pages))
                    return
        builder(config) if config is not None else builder()

    server.builder = fast_builder
    if _last is not None:
        _last["roots"] = _roots(_last["config"], server)
    return server
