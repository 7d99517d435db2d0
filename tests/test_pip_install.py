"""`pip install .` (not editable) gives a whole plugin (issue 44): in a fresh virtual environment,
the locked packages, the weights and the project installed from its sources, the build makes the
same site, byte for byte, as the editable install of `make deps`."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sitebuild import ROOT, source_date_epoch

pytestmark = pytest.mark.build

PACKAGE = ROOT / "src" / "mkdocs_esm"


def _uv() -> str | None:
    here = ROOT / ".venv" / "bin" / "uv"
    return str(here) if here.exists() else shutil.which("uv")


def _digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _data_files(package: Path) -> set[str]:
    """What the plugin's folder holds besides Python code and what Python makes of it."""
    return {p.relative_to(package).as_posix() for p in package.rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh virtual environment (this interpreter's version) holding exactly the lock, the
    weights of data-requirements.txt and the project installed as a wheel would be. The
    project is installed from a copy of what its wheel is made of (pyproject.toml, README.md,
    src/): setuptools writes build/ into the folder it builds, which must not be the checkout."""
    uv = _uv()
    if uv is None:
        pytest.skip("uv is not installed (make deps installs it into .venv)")
    base = tmp_path_factory.mktemp("pip-install")
    venv, source = base / "venv", base / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("VIRTUAL_ENV")}
    python = str(venv / "bin" / "python")
    for cmd in ([uv, "venv", "--quiet", "--python", sys.executable, str(venv)],
                [uv, "pip", "install", "--quiet", "--python", python, "--no-deps", "--require-hashes", "-r", str(ROOT / "requirements-lock.txt")],
                [uv, "pip", "install", "--quiet", "--python", python, "--no-deps", "--require-hashes", "-r", str(ROOT / "data-requirements.txt")],
                [uv, "pip", "install", "--quiet", "--python", python, "--no-deps", str(source)]):
        done = subprocess.run(cmd, cwd=base, env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{cmd}:\n{done.stderr[-3000:]}"
    return venv


def _plugin_folder(venv: Path) -> Path:
    done = subprocess.run([str(venv / "bin" / "python"), "-c", "import mkdocs_esm; print(mkdocs_esm.__file__)"],
                          cwd=venv, capture_output=True, text=True, timeout=60,
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert done.returncode == 0, done.stderr
    return Path(done.stdout.strip()).parent


def test_the_installed_plugin_holds_every_data_file_of_its_folder(installed):
    """Every file of src/mkdocs_esm/ that is not code (the node scripts, the math font and its
    licence note) is in the installed package, and the plugin is imported from there."""
    folder = _plugin_folder(installed)
    assert folder.is_relative_to(installed), folder
    wanted = _data_files(PACKAGE)
    assert {"temml_render.cjs", "purge_css.cjs", "fonts/latinmodern-math.woff2"} <= wanted
    assert wanted - _data_files(folder) == set()


#: What the demos printed (their blocks, the theory notebook's cells): a non-editable install runs
#: them with the same code as the editable one, which ran them in the session build.
RUN_KINDS = ("block", "notebook-run")


def _runs_only(cache: Path, into: Path) -> int:
    """Copy the entries of ``cache`` that hold what code printed (RUN_KINDS), none of what the
    plugin makes of it (HTML, math, font subsets, the CSS purge, search, the rendered notebook)."""
    import json
    copied = 0
    for entry in cache.rglob("*.json"):
        if json.loads(entry.read_text(encoding="utf-8"))["body"]["kind"] in RUN_KINDS:
            (into / entry.parent.name).mkdir(parents=True, exist_ok=True)
            shutil.copy2(entry, into / entry.parent.name / entry.name)
            copied += 1
    return copied


def test_a_non_editable_install_builds_the_same_site(installed, site, tmp_path):
    """The whole site built with the installed plugin is byte-identical to the session's build
    by the editable install. The demos' outputs come from the session build's cache (every block
    and the notebook's cells found under the keys the installed plugin plans: no demo runs a
    third time); everything the plugin makes of them (HTML, math through its node script, font
    subsets, the CSS purge, search, the rendered notebook) it makes afresh from its installed
    files."""
    out, cache = tmp_path / "site", tmp_path / "exec-cache"
    assert _runs_only(site.cache, cache) > 100
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith(("VIRTUAL_ENV", "ESM_CACHE"))}
    env |= {"NO_MKDOCS_2_WARNING": "1", "ESM_CACHE_DIR": str(cache),
            "ESM_FONT_CACHE_DIR": str(tmp_path / "font-cache")}
    env.setdefault("SOURCE_DATE_EPOCH", source_date_epoch(ROOT))
    done = subprocess.run([str(installed / "bin" / "mkdocs"), "build", "--strict", "--clean", "-f", str(ROOT / "mkdocs.yml"),
                           "-d", str(out)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    log = done.stdout + done.stderr
    assert done.returncode == 0, log[-4000:]
    m = re.search(r"execution cache: (\d+) reused, (\d+) ran", log)
    assert m and int(m[1]) > 100 and int(m[2]) == 0, log[-3000:]
    assert "cell outputs reused from the execution cache" in log, log[-3000:]
    a, b = _digest(site.dir), _digest(out)
    assert sorted(a.keys() - b.keys()) == [] and sorted(b.keys() - a.keys()) == []
    assert [k for k in a if a[k] != b[k]] == []
