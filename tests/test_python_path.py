"""The plugin's ``python_path`` option is honoured: the fixture book built with its snippets
folder under another name (the helpers imported, the demo included, the notebooks made from it)."""

from __future__ import annotations

import shutil

import pytest

from sitebuild import build

pytestmark = pytest.mark.build


def _replace(path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} not found once in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_the_fixture_builds_with_its_snippets_folder_renamed(fixture_project, tmp_path):
    shutil.move(fixture_project / "snippets", fixture_project / "demos")
    config = fixture_project / "mkdocs.yml"
    _replace(config, "base_path: !relative $config_dir/snippets", "base_path: !relative $config_dir/demos")
    _replace(config, "\n  - snippets\n", "\n  - demos\n")
    _replace(config, "      cache_dir: !ENV", "      python_path: [demos]\n      cache_dir: !ENV")
    result = build(tmp_path / "site", root=fixture_project, fork=True)
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    html = (tmp_path / "site" / "part1" / "lesson" / "index.html").read_text(encoding="utf-8")
    assert html.count('<div class="esm-check"') == 1
    notebook = (tmp_path / "site" / "part1" / "lesson" / "lesson.ipynb").read_text(encoding="utf-8")
    assert "%%esm_module" in notebook and "lookup" in notebook      # esm copied in, the demo pasted
    assert (tmp_path / "site" / "notebook" / "theory.ipynb").is_file()
