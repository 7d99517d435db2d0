"""What one build knows, held on the plugin: reset at ``on_config``, one small record per page.

Features never set attributes on MkDocs' page objects or read each other's loggers: what one
feature hands another goes through these records, so every data flow can be found with grep
and tested without a build.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class PageState:
    """One page's data. ``values``, ``equations`` and ``stats`` are read by other pages (the
    skill checks, cross-references, the overview): serve's one-page route compares them
    before and after a rebuild (``shared``). The rest is the page's own."""

    #: computed values its executed blocks published (glue): name -> {"value", "fmt", ...}
    values: dict[str, dict] = field(default_factory=dict)
    #: its display formulas' numbers (mathml): label -> "6.4"
    equations: dict[str, str] = field(default_factory=dict)
    #: its reading time and heading count (learner): {"minutes": m, "headings": h}
    stats: dict[str, int] = field(default_factory=dict)
    #: a description of each executed block, for error messages (execution)
    blocks: list[str] = field(default_factory=list)
    #: what each executed block printed in this build and its records, by its id (execution):
    #: the page notebook's outputs (pagenotebook), never run a second time
    printed: dict[str, tuple[str, list[dict]]] = field(default_factory=dict)
    #: the cross-references its source makes (xref): (line, text, label)
    refs: list[tuple[int, str, str]] = field(default_factory=list)
    #: the elements held out of the search index until on_post_page (search)
    held: list[str] = field(default_factory=list)
    #: whether its content shows a formula (content.py, from mathml.shows_math): the math
    #: font is preloaded
    shows_math: bool = False

    def shared(self) -> tuple:
        """What other pages read from this one."""
        return (repr(sorted(self.values.items())), repr(sorted(self.equations.items())), repr(sorted(self.stats.items())))


@dataclass
class BuildState:
    """The build in progress: the command, the project's folder, the caches' folders (None: the
    cache is off) and the pages' records."""

    root: Path
    command: str = "build"
    cache_dir: Path | None = None
    font_cache_dir: Path | None = None
    #: the folders the executed blocks import from (the ``python_path`` option), absolute
    python_path: list[Path] = field(default_factory=list)
    #: the folders pymdownx.snippets pastes includes from (its ``base_path``), absolute
    snippet_dirs: list[Path] = field(default_factory=list)
    pages: dict[str, PageState] = field(default_factory=dict)

    @property
    def esm_dir(self) -> Path:
        """The helper package ``esm``: in the first ``python_path`` folder that holds it."""
        for folder in self.python_path:
            if (folder / "esm" / "__init__.py").is_file():
                return folder / "esm"
        raise FileNotFoundError(f"no folder of the esm plugin's python_path holds esm/: {self.python_path}")

    def page(self, src_uri: str) -> PageState:
        """The record of the page ``src_uri`` (made empty the first time it is asked for)."""
        return self.pages.setdefault(src_uri, PageState())

    def forget(self, src_uri: str) -> None:
        """Drop what the last render of a page left (serve renders it again)."""
        self.pages.pop(src_uri, None)
