"""The execution cache (mkdocs_esm/execcache.py) on its own: an output is reused only while every
input it recorded is unchanged; failures are never stored; a corrupt entry is never served."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from sitebuild import ROOT


from mkdocs_esm import execcache  # noqa: E402


class Runner:
    """Runs code the way markdown-exec does (exec, printed text captured), counting runs."""

    def __init__(self, cache):
        self.cache = cache
        self.runs = 0

    def __call__(self, code: str) -> str:
        def run() -> str:
            self.runs += 1
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                exec(compile(code, "<block>", "exec"), {"__name__": "block"})
            return buf.getvalue()

        return self.cache.run("block", [code], run, code=code)


@pytest.fixture
def cache(tmp_path):
    return execcache.ExecCache(tmp_path / "cache")


@pytest.fixture
def run(cache):
    return Runner(cache)


@pytest.fixture
def modules(tmp_path, monkeypatch):
    """A directory of local modules on sys.path; the modules are forgotten afterwards."""
    d = tmp_path / "mods"
    d.mkdir()
    monkeypatch.syspath_prepend(str(d))
    before = set(sys.modules)
    yield d
    for name in set(sys.modules) - before:
        del sys.modules[name]


def edit(path: Path, text: str) -> None:
    """An author's later edit of a module: its time moves on by two seconds. Where Python writes
    bytecode (every machine by default), an edit in the same second that keeps the file's size
    would leave its old bytecode valid (a .pyc records the source's whole seconds and size), and
    the test would see Python's import, not the cache."""
    before = path.stat().st_mtime_ns
    path.write_text(text)
    os.utime(path, ns=(before + 2_000_000_000, before + 2_000_000_000))


def entries(cache) -> list[Path]:
    return sorted(cache.dir.rglob("*.json"))


def test_same_code_is_reused_and_other_code_runs(run):
    assert run("print(6 * 7)") == "42\n"
    assert run("print(6 * 7)") == "42\n"
    assert run.runs == 1
    assert run("print(6 * 8)") == "48\n"
    assert run.runs == 2


def test_a_file_the_code_reads_is_a_dependency(run, tmp_path):
    data = tmp_path / "data.txt"
    data.write_text("first")
    code = f"print(open({str(data)!r}).read())"
    assert run(code) == "first\n"
    assert run(code) == "first\n" and run.runs == 1
    data.write_text("second")
    run.cache.new_build()
    assert run(code) == "second\n" and run.runs == 2


def test_a_numpy_file_read_with_mmap_is_a_dependency(run, tmp_path):
    np = pytest.importorskip("numpy")
    path = tmp_path / "w.npy"
    np.save(path, np.arange(3.0))
    code = f"import numpy as np\nprint(np.load({str(path)!r}, mmap_mode='r').sum())"
    assert run(code) == "3.0\n"
    np.save(path, np.arange(4.0))
    run.cache.new_build()
    assert run(code) == "6.0\n" and run.runs == 2


def test_a_file_that_was_missing_and_appears_reruns(run, tmp_path):
    path = tmp_path / "later.txt"
    code = f"import os\ntry:\n    print(open({str(path)!r}).read())\nexcept FileNotFoundError:\n    print('none')"
    assert run(code) == "none\n"
    path.write_text("here")
    run.cache.new_build()
    assert run(code) == "here\n" and run.runs == 2


def test_files_the_code_writes_are_not_dependencies(run, tmp_path):
    out = tmp_path / "scratch.txt"
    code = f"open({str(out)!r}, 'w').write('x')\nprint('wrote')"
    run(code)
    out.write_text("changed by someone else")
    run.cache.new_build()
    run(code)
    assert run.runs == 1


def test_local_modules_count_transitively_even_when_already_imported(run, modules):
    (modules / "helper_a.py").write_text("from helper_b import VALUE\n")
    (modules / "helper_b.py").write_text("VALUE = 1\n")
    code = "import helper_a\nprint(helper_a.VALUE)"
    assert run(code) == "1\n"
    # helper_a is in sys.modules now; an edit to helper_b must still be seen
    edit(modules / "helper_b.py", "VALUE = 2\n")
    for name in ("helper_a", "helper_b"):
        del sys.modules[name]           # what mkdocs_esm/execution.py does before each build
    run.cache.new_build()
    assert run(code) == "2\n" and run.runs == 2
    run.cache.new_build()
    assert run(code) == "2\n" and run.runs == 2


def test_a_local_packages_relative_imports_count(run, modules):
    """A package whose __init__ imports its modules relatively (snippets/esm/): an edit to one of
    them is seen by every block that imports the package, even one imported before (whose
    import events were recorded by an earlier block only)."""
    pkg = modules / "helperpkg"
    (pkg / "inner").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .values import *\nfrom . import inner\n")
    (pkg / "values.py").write_text("from .inner.deep import BASE\nVALUE = BASE + 1\n")
    (pkg / "inner" / "__init__.py").write_text("")
    (pkg / "inner" / "deep.py").write_text("BASE = 1\n")
    warm = "import helperpkg\nprint('warm')"
    code = "from helperpkg import VALUE\nprint(VALUE)"
    assert run(warm) == "warm\n"
    assert run(code) == "2\n" and run.runs == 2
    for path, text, expected in (("values.py", "from .inner.deep import BASE\nVALUE = BASE + 2\n", "3\n"),
                                 ("inner/deep.py", "BASE = 10\n", "12\n")):
        edit(pkg / path, text)
        for name in [m for m in sys.modules if m == "helperpkg" or m.startswith("helperpkg.")]:
            del sys.modules[name]           # what the build does before each build
        run.cache.new_build()
        runs = run.runs
        assert run(code) == expected and run.runs == runs + 1, path


def test_relative_imports_resolve_against_the_package():
    code = "from . import a\nfrom .b import c\nfrom ..d import e\nimport f\n"
    assert execcache.relative_imports_of(code, "p.q") == {"p.q.a", "p.q.b", "p.q.b.c", "p.d", "p.d.e", "p.q"}
    assert execcache.relative_imports_of("from ... import x\n", "p") == set()


def test_a_function_level_import_of_a_local_module_counts(run, modules):
    (modules / "helper_c.py").write_text(textwrap.dedent("""
        def value():
            from helper_d import V
            return V
    """))
    (modules / "helper_d.py").write_text("V = 'd1'\n")
    code = "from helper_c import value\nprint(value())"
    assert run(code) == "d1\n"
    edit(modules / "helper_d.py", "V = 'd2'\n")
    for name in ("helper_c", "helper_d"):
        sys.modules.pop(name, None)
    run.cache.new_build()
    assert run(code) == "d2\n" and run.runs == 2


def test_imported_packages_are_recorded_with_their_versions(cache, run):
    pytest.importorskip("numpy")
    run("import numpy\nprint('ok')")
    (entry,) = entries(cache)
    dists = json.loads(entry.read_text())["body"]["deps"]["dists"]
    import numpy
    assert dists["numpy"] == numpy.__version__


def test_a_package_version_change_reruns(run, monkeypatch):
    pytest.importorskip("numpy")
    code = "import numpy\nprint('ok')"
    run(code)
    real = execcache.Environment.distribution

    class Bumped:                       # numpy as an upgrade would leave it
        def __init__(self, dist):
            self.version, self.requires = dist.version + ".post1", dist.requires

    monkeypatch.setattr(execcache.Environment, "distribution",
                        lambda env, name: Bumped(real(env, name)) if name == "numpy" else real(env, name))
    run(code)
    assert run.runs == 1                # versions are read once per build ...
    run.cache.new_build()               # ... and again in the next (mkdocs serve's rebuilds)
    run(code)
    assert run.runs == 2


def test_a_python_version_change_reruns(run, monkeypatch):
    run("print(1)")
    monkeypatch.setattr(execcache, "interpreter", lambda: "cpython 9.9")
    run("print(1)")
    assert run.runs == 2


def test_the_key_holds_the_python_version_and_nothing_of_the_machine(run, monkeypatch):
    """The interpreter's part of the key: implementation, version (micro and pre-release
    included) and bytecode tag. Another machine (arm64), another build of the same CPython (its
    compiler and date in sys.version) is the same key: an entry made there is served here."""
    import platform
    key = execcache.interpreter()
    v = sys.version_info
    assert key == f"{sys.implementation.name} {v.major}.{v.minor}.{v.micro} {v.releaselevel} {v.serial} " \
                  f"{sys.implementation.cache_tag}"
    run("print(1)")
    monkeypatch.setattr(platform, "machine", lambda: "aarch64")
    monkeypatch.setattr(sys, "version", sys.version.split(" ")[0] + " (main, Jan  1 1999, 00:00:00) [Clang 99.0]")
    assert execcache.interpreter() == key
    run("print(1)")
    assert run.runs == 1


def test_a_failure_is_not_stored_and_fails_again(cache, run):
    for _ in range(2):
        with pytest.raises(ZeroDivisionError):
            run("print('partial')\n1 / 0")
    assert run.runs == 2
    assert entries(cache) == []


@pytest.mark.parametrize("damage", ["garbage", "truncated", "tampered", "empty", "wrong key"])
def test_a_corrupt_entry_is_discarded_and_rerun(cache, run, damage):
    assert run("print('good')") == "good\n"
    (entry,) = entries(cache)
    text = entry.read_text()
    if damage == "garbage":
        entry.write_bytes(b"\x00\xff not json")
    elif damage == "truncated":
        entry.write_text(text[: len(text) // 2])
    elif damage == "tampered":     # valid JSON, but the output no longer matches its checksum
        entry.write_text(text.replace("good", "evil"))
    elif damage == "empty":
        entry.write_text("")
    else:
        data = json.loads(text)
        data["key"] = "0" * 64
        entry.write_text(json.dumps(data))
    assert run("print('good')") == "good\n"
    assert run.runs == 2
    assert cache.stats["discarded"] == 1
    assert run("print('good')") == "good\n" and run.runs == 2     # stored again, whole


def test_switched_off(tmp_path):
    """A cache without a folder (the plugin's ``cache: false``) runs every time and writes nothing."""
    cache = execcache.ExecCache(None)
    assert not cache.enabled
    run = Runner(cache)
    run("print(1)")
    run("print(1)")
    assert run.runs == 2
    assert not list(tmp_path.iterdir())


def test_the_default_directory_is_ignored_by_git_and_outside_the_site():
    from mkdocs_esm.config import EsmConfig

    ignored = (ROOT / ".gitignore").read_text().splitlines()
    assert ".cache/" in ignored
    assert EsmConfig.cache_dir.default.split("/")[0] == ".cache"


def test_what_is_stored_is_the_printed_output_only(cache, run):
    """Values published for the prose (glue markers) travel in the output: a hit returns them."""
    code = "print('<!-- glue x=1 -->')\nprint('text')"
    first = run(code)
    assert run(code) == first == "<!-- glue x=1 -->\ntext\n"
    (entry,) = entries(cache)
    assert json.loads(entry.read_text())["body"]["value"] == first


def test_an_entry_records_its_runs_cpu_time_outside_its_value(cache, run):
    """tools/timed.py's cold execution time per page: the CPU seconds of the run, stored beside the
    hashed body (a hit returns the value alone, the time changes no key)."""
    code = "s = 0\nfor k in range(2_000_000):\n    s += k\nprint(s)"
    first = run(code)
    (entry,) = entries(cache)
    stored = json.loads(entry.read_text())
    assert "seconds" not in stored["body"] and stored["seconds"] > 0.01, stored.get("seconds")
    assert run(code) == first


def test_a_package_found_by_name_without_an_import_counts(cache, run, modules):
    """A helper that locates a data package with find_spec("pkg") (and reads its files with
    native code, or only once per process) still makes that package's version a dependency."""
    pytest.importorskip("numpy")
    (modules / "helper_e.py").write_text(
        "import importlib.util\n\ndef where():\n    return importlib.util.find_spec('numpy').origin\n")
    run("import helper_e\nprint(bool(helper_e.where()))")
    (entry,) = entries(cache)
    assert "numpy" in json.loads(entry.read_text())["body"]["deps"]["dists"]


def test_an_entry_made_in_one_checkout_serves_a_copy_in_another_folder(tmp_path, monkeypatch):
    """A dependency below the working directory (the project's folder) is recorded by its path
    relative to it: the cache serves a checkout in another folder, another machine's or a CI
    runner's, while the files' bytes are the same, and runs the code again when one differs."""
    cache = execcache.ExecCache(tmp_path / "cache")
    run = Runner(cache)
    code = "print(open('data/table.txt').read())"
    for name in ("one", "two"):
        (tmp_path / name / "data").mkdir(parents=True)
        (tmp_path / name / "data" / "table.txt").write_text("rows")
    monkeypatch.chdir(tmp_path / "one")
    assert run(code) == "rows\n" and run.runs == 1
    assert all(not Path(p).is_absolute() for p in json.loads(entries(cache)[0].read_text())["body"]["deps"]["files"])
    monkeypatch.chdir(tmp_path / "two")
    cache.new_build()
    assert run(code) == "rows\n" and run.runs == 1          # served in the other folder
    (tmp_path / "two" / "data" / "table.txt").write_text("other rows")
    cache.new_build()
    assert run(code) == "other rows\n" and run.runs == 2


def test_a_package_installed_after_a_scan_is_seen_by_the_next_build(tmp_path, monkeypatch):
    """The scan of the installed distributions is kept while the folders of sys.path stand as
    they were: a package installed (its ``.dist-info`` folder added) or upgraded after one build
    is seen by the next build's Environment."""
    def install(name: str, version: str) -> None:
        info = tmp_path / f"{name}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")

    monkeypatch.syspath_prepend(str(tmp_path))
    install("esm-probe-one", "1.0")
    assert execcache.Environment().version("esm-probe-one") == "1.0"
    assert execcache.Environment().version("esm-probe-two") == "absent"
    install("esm-probe-two", "2.0")
    shutil.rmtree(tmp_path / "esm-probe-one-1.0.dist-info")
    install("esm-probe-one", "1.1")
    again = execcache.Environment()
    assert (again.version("esm-probe-one"), again.version("esm-probe-two")) == ("1.1", "2.0")
