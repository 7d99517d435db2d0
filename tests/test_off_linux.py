"""Off Linux and outside the tree (issue 44): nothing POSIX-only on the build's path, and
`esm.project` finds the project or stops at once naming where it looked."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

from sitebuild import ROOT

SNIPPETS = ROOT / "snippets"


def _python(code: str, cwd, pythonpath, timeout: float = 60) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_the_helpers_and_the_plugin_import_without_fcntl(tmp_path):
    """As on Windows, where there is no fcntl: every module of esm and of the plugin (runs.py,
    whose runs are locked with filelock, included) imports."""
    done = _python("""
        import importlib, pkgutil, sys
        sys.modules["fcntl"] = None                 # `import fcntl` now raises ImportError
        import esm, mkdocs_esm
        names = sorted(m.name for m in pkgutil.iter_modules(esm.__path__, "esm."))
        names += sorted(m.name for m in pkgutil.walk_packages(mkdocs_esm.__path__, "mkdocs_esm."))
        assert "esm.train" in names and "mkdocs_esm.runs" in names, names
        for name in names:
            importlib.import_module(name)
        print(len(names), "modules")
        """, cwd=ROOT, pythonpath=SNIPPETS)
    assert done.returncode == 0, done.stderr
    assert "modules" in done.stdout


def test_no_module_of_the_build_names_a_posix_only_module():
    """Nothing on the build's path (the helpers, the plugin) imports fcntl, resource or
    termios, forks, or starts processes with the fork method (the workers are spawned)."""
    import re
    posix_only = re.compile(r"^\s*(import|from)\s+(fcntl|resource|termios|pwd|grp)\b|os\.fork\(|get_context\(\s*['\"]fork['\"]", re.M)
    files = sorted((SNIPPETS / "esm").glob("*.py")) + sorted((ROOT / "src" / "mkdocs_esm").rglob("*.py"))
    assert files
    found = [f"{p.relative_to(ROOT)}: {m[0].strip()}" for p in files for m in posix_only.finditer(p.read_text(encoding="utf-8"))]
    assert not found, found


def test_esm_project_finds_the_project_from_a_folder_outside_it(tmp_path):
    """Started in a folder outside the project (snippets/ on the path): the project is the one
    above the module's own folder."""
    done = _python("import esm.project as p; print(p.root); print(p.sections[0][0])",
                   cwd=tmp_path, pythonpath=SNIPPETS, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == str(ROOT)


def test_esm_project_outside_any_project_stops_at_once_naming_where_it_looked(tmp_path):
    """A copy of the module outside any project, started from a folder outside it, imports, and
    fails fast when asked for the project
    (it used to walk up from the working directory for ever) with an error naming the places it
    looked: the working directory, the folders above it and the module's own folder."""
    (tmp_path / "lib" / "esm").mkdir(parents=True)
    (tmp_path / "lib" / "esm" / "__init__.py").write_text("", encoding="utf-8")
    shutil.copy2(SNIPPETS / "esm" / "project.py", tmp_path / "lib" / "esm" / "project.py")
    work = tmp_path / "work"
    work.mkdir()
    done = _python("import esm.project; print('imported'); esm.project.root", cwd=work,
                   pythonpath=tmp_path / "lib", timeout=30)
    assert done.stdout.split() == ["imported"], "importing the module looks nothing up"
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("FileNotFoundError: esm.project:"), done.stderr[-2000:]
    for folder in (work, tmp_path, tmp_path / "lib" / "esm"):
        assert str(folder) in last, (folder, last)
    assert "mkdocs.yml" in last
