"""The plugin itself (src/mkdocs_esm/plugin.py, config.py, state.py, compat/): its options and
what they set, the build state, and the compat modules' version checks."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest
from mkdocs.config.base import ValidationError

from mkdocs_esm import compat
from mkdocs_esm.compat import autorefs, markdown_exec, material, mkdocs, mkdocs_jupyter, print_site
from mkdocs_esm.config import EsmConfig, Switch
from mkdocs_esm.state import BuildState

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("value, on", [(True, True), (False, False), (1, True), (0, False), ("1", True),
                                       ("0", False), ("off", False), ("no", False), ("false", False),
                                       ("", False), ("yes", True), ("on", True)])
def test_a_switch_reads_yaml_and_environment_values(value, on):
    """``!ENV [ESM_CACHE, true]`` hands the variable's value as YAML reads it: 0 is an int,
    off a bool, '' a string."""
    assert Switch(default=True).validate(value) is on


def test_a_switch_refuses_what_is_neither():
    with pytest.raises(ValidationError):
        Switch(default=True).validate([1])


def _config(**options) -> EsmConfig:
    config = EsmConfig()
    config.load_dict(options)
    errors, warnings = config.validate()
    assert not errors and not warnings, (errors, warnings)
    return config


def _state(tmp_path, **options):
    """The build state the plugin makes at on_config from ``options`` (mkdocs.yml in tmp_path)."""
    from mkdocs_esm.plugin import EsmPlugin

    plugin = EsmPlugin()
    plugin.config = _config(**options)
    root = tmp_path
    c = plugin.config
    return BuildState(root=root, cache_dir=(root / c.cache_dir) if c.cache else None,
                      font_cache_dir=(root / c.font_cache_dir) if c.cache else None), plugin


def test_defaults_are_the_books():
    c = _config()
    assert (c.cache, c.cache_dir, c.font_cache_dir, c.jobs, c.fast_serve, c.python_path, c.print_site) == \
        (True, ".cache/esm-exec", ".cache/esm-fonts", 0, True, ["snippets"], False)


def test_the_site_config_reads_the_environment(tmp_path, monkeypatch):
    """mkdocs.yml's options follow ESM_CACHE, ESM_CACHE_DIR, ESM_JOBS and ESM_FAST_SERVE."""
    from mkdocs.config import load_config

    monkeypatch.setenv("ESM_CACHE", "0")
    monkeypatch.setenv("ESM_CACHE_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("ESM_JOBS", "1")
    monkeypatch.setenv("ESM_FAST_SERVE", "0")
    config = load_config(str(ROOT / "mkdocs.yml"))
    options = config.plugins["esm"].config
    assert (options.cache, options.cache_dir, options.jobs, options.fast_serve) == \
        (False, str(tmp_path / "elsewhere"), 1, False)
    monkeypatch.delenv("ESM_CACHE")
    monkeypatch.delenv("ESM_CACHE_DIR")
    options = load_config(str(ROOT / "mkdocs.yml")).plugins["esm"].config
    assert (options.cache, options.cache_dir) == (True, ".cache/esm-exec")


def test_the_page_record_shares_only_what_other_pages_read():
    state = BuildState(root=ROOT)
    page = state.page("a.md")
    before = page.shared()
    page.blocks, page.refs, page.held = ["block 1"], [(1, "x", "sec-x")], ["<pre>"]
    assert page.shared() == before
    for field, value in (("values", {"n": {"value": 1, "fmt": ""}}), ("equations", {"e": "1.1"}),
                         ("stats", {"minutes": 2})):
        setattr(state.page("b.md"), field, value)
        assert state.page("b.md").shared() != before, field
    state.forget("b.md")
    assert state.page("b.md").shared() == before


@pytest.mark.parametrize("module, distribution", [(markdown_exec, "markdown-exec"), (material, "mkdocs-material"),
                                                  (print_site, "mkdocs-print-site-plugin"),
                                                  (autorefs, "mkdocs-autorefs"), (mkdocs, "mkdocs"),
                                                  (mkdocs_jupyter, "mkdocs-jupyter")])
def test_each_compat_module_accepts_the_installed_version(module, distribution):
    assert compat.require(distribution, module.RANGE, "x") == importlib.metadata.version(distribution)


@pytest.mark.parametrize("module, distribution", [(markdown_exec, "markdown-exec"), (material, "mkdocs-material"),
                                                  (print_site, "mkdocs-print-site-plugin"),
                                                  (autorefs, "mkdocs-autorefs"), (mkdocs, "mkdocs"),
                                                  (mkdocs_jupyter, "mkdocs-jupyter")])
def test_a_version_outside_the_range_fails_the_build_naming_package_and_range(module, distribution, monkeypatch):
    monkeypatch.setattr(compat.importlib.metadata, "version", lambda name: "999.0")
    with pytest.raises(compat.IncompatibleVersion) as caught:
        compat.require(distribution, module.RANGE, "its internals")
    message = str(caught.value)
    assert distribution in message and module.RANGE in message and "999.0" in message


def test_the_compat_entry_points_check_before_they_patch(monkeypatch):
    """Each public function of a compat module that reaches into internals checks first."""
    monkeypatch.setattr(compat.importlib.metadata, "version", lambda name: "0.0.1")
    from types import SimpleNamespace
    with pytest.raises(compat.IncompatibleVersion, match="markdown-exec"):
        markdown_exec.use_python_formatter(lambda original, **kw: "")
    with pytest.raises(compat.IncompatibleVersion, match="mkdocs-print-site-plugin"):
        print_site.faster_anchor_ids()
    with pytest.raises(compat.IncompatibleVersion, match="mkdocs-autorefs"):
        autorefs.plugin_of(SimpleNamespace(plugins={"autorefs": object()}))
    with pytest.raises(compat.IncompatibleVersion, match="mkdocs"):
        mkdocs.populate_page(None, None, None)
    index = SimpleNamespace(add_entry_from_context=lambda page: None, entries=[])
    with pytest.raises(compat.IncompatibleVersion, match="mkdocs-material"):
        material.index_through(SimpleNamespace(plugins={"search": SimpleNamespace(search_index=index)}),
                               lambda *a: None)
    with pytest.raises(compat.IncompatibleVersion, match="wrapped by the theme override"):
        material.check_wrapped_runtime(SimpleNamespace(theme=SimpleNamespace(custom_dir=str(ROOT / "overrides"))))
    for checked, call, name in ((material._widgets_checked, lambda: material.name_widgets("<p>"), "mkdocs-material"),
                                (mkdocs_jupyter._checked, lambda: mkdocs_jupyter.replace_render(None, None),
                                 "mkdocs-jupyter")):
        checked.cache_clear()              # checked once per process: again under this version
        with pytest.raises(compat.IncompatibleVersion, match=name):
            call()
        checked.cache_clear()


def test_a_missing_package_is_named_too(monkeypatch):
    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)
    monkeypatch.setattr(compat.importlib.metadata, "version", missing)
    with pytest.raises(compat.IncompatibleVersion, match="installed: none"):
        compat.require("mkdocs-print-site-plugin", print_site.RANGE, "x")


def test_the_plugin_source_holds_no_global_statement_and_edits_no_import_path_but_one():
    """No module-level state is rebound (no ``global``), and the import path is extended in one
    place only: the book's ``python_path`` folders (plugin.py)."""
    import ast

    src = ROOT / "src" / "mkdocs_esm"
    edits = []
    for path in sorted(src.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert not [n for n in ast.walk(tree) if isinstance(n, (ast.Global, ast.Nonlocal))], path
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in ("insert", "append", "remove", "extend") \
                    and isinstance(node.value, ast.Attribute) and node.value.attr == "path" \
                    and isinstance(node.value.value, ast.Name) and node.value.value.id == "sys":
                edits.append(f"{path.relative_to(src)}:{node.lineno}")
    assert [e.split(":")[0] for e in edits] == ["plugin.py"], edits
