"""The GitHub Actions workflow: linted by zizmor (its strictest persona, offline), every
action pinned to a full commit SHA with its release noted, least-privilege permissions,
and the job that deploys to Pages runs only after the tests and only from main."""

from __future__ import annotations

import functools
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
SITE = ROOT / ".github" / "workflows" / "site.yml"


def zizmor() -> str:
    local = Path(sys.executable).parent / "zizmor"
    return str(local) if local.exists() else (shutil.which("zizmor") or "zizmor")


def load(path: Path) -> dict:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))        # YAML 1.1 reads the key `on` as True
    return data


def test_zizmor_finds_nothing():
    assert WORKFLOWS
    done = subprocess.run([zizmor(), "--offline", "--persona=pedantic", "--no-progress",
                           *map(str, WORKFLOWS)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actions_are_pinned_to_a_commit_with_their_release_noted():
    for path in WORKFLOWS:
        for line in path.read_text(encoding="utf-8").splitlines():
            m = re.match(r"\s*(?:-\s+)?uses:\s*(\S+)(.*)", line)
            if not m:
                continue
            ref = m[1]
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref), f"{path.name}: {ref} is not pinned to a SHA"
            assert re.search(r"#\s*v\d+(\.\d+)*", m[2]), f"{path.name}: {ref} has no '# vX.Y.Z' comment"
        for image in re.findall(r"image:\s*(\S+)", path.read_text(encoding="utf-8")):
            assert re.search(r"@sha256:[0-9a-f]{64}$", image), f"{path.name}: image {image} is not pinned"


TEST_JOBS = ("unit", "browser", "pdf-links", "faults")


def test_least_privilege_and_deploy_after_tests():
    """Pages gets the build the test jobs tested: the build job uploads its session build's
    site, and deploy waits for the build and every test job; no job builds the site for Pages
    again."""
    wf = load(SITE)
    assert wf["permissions"] == {}, "no permission at workflow level: each job asks for its own"
    jobs = wf["jobs"]
    for name in ("build", *TEST_JOBS):
        assert jobs[name]["permissions"] == {"contents": "read"}, name
    deploy = jobs["deploy"]
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert set(deploy["needs"]) == {"build", *TEST_JOBS}
    assert "refs/heads/main" in deploy["if"] and "push" in deploy["if"]
    assert deploy["environment"]["name"] == "github-pages"
    assert any("deploy-pages" in s.get("uses", "") for s in deploy["steps"])
    build = jobs["build"]
    assert "github.io" in build["env"]["SITE_URL"]
    runs = [s.get("run", "").strip() for s in build["steps"]]
    uploads = [s for s in build["steps"] if "upload-pages-artifact" in s.get("uses", "")]
    assert runs.index("make ci-build") < build["steps"].index(uploads[0])
    assert uploads[0]["with"]["path"] == "session/site" and "refs/heads/main" in uploads[0]["if"]
    kept = next(s for s in build["steps"] if "upload-artifact" in s.get("uses", "") and s["with"]["name"] == "session")
    assert kept["with"]["path"] == "session"
    measured = next(s for s in build["steps"] if "upload-artifact" in s.get("uses", "") and s["with"]["name"] == "measurements")
    assert measured["with"]["path"] == ".cache/measurements.jsonl" and measured["with"]["if-no-files-found"] == "ignore"
    assert build["steps"].index(measured) > runs.index("make ci-build")
    assert not [r for job in jobs.values() for r in (s.get("run", "") for s in job["steps"]) if r.strip() == "make build"]
    for name in TEST_JOBS:
        job = jobs[name]
        assert job["needs"] == "build" and job["env"]["SITE_URL"] == build["env"]["SITE_URL"], name
        fetch = next(s for s in job["steps"] if "download-artifact" in s.get("uses", ""))
        assert fetch["with"] == {"name": "session", "path": "session"}, name
        assert [s["run"].strip() for s in job["steps"] if "make ci-part" in s.get("run", "")] == \
            [f"make ci-part PART={name} PREBUILT_SESSION=session"], name
    for job in jobs.values():
        for step in job["steps"]:
            if "actions/checkout" in step.get("uses", ""):
                assert step["with"]["persist-credentials"] is False
    assert any(s.get("run", "").strip() == ".ci/run" for s in jobs["arm64"]["steps"]), "one machine: the whole suite"


def test_the_ci_parts_cover_the_suite_exactly_once(marks):
    """The four jobs' selections (the Makefile's CI_PART_*) split the suite: every test in one."""
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    parts = re.search(r"^CI_PARTS := (.+)$", make, re.M)[1].split()
    assert parts == list(TEST_JOBS)
    seen: dict[str, str] = {}
    for part in parts:
        args = shlex.split(re.search(rf"^CI_PART_{re.escape(part)}\s*:= (.+)$", make, re.M)[1])
        for test in _selected(args, marks):
            assert test not in seen, f"{test} in both {seen[test]} and {part}"
            seen[test] = part
    assert set(seen) == set(marks), sorted(set(marks) - set(seen))[:10]


def test_ci_entry_only_calls_make_test():
    """.ci/run runs `make test` and nothing else; `make test` sets up its own tools (below)."""
    text = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = [l for l in text.splitlines() if l.strip() and not l.lstrip().startswith("#")]
    assert commands[-1].strip() in ("make test", "exec make test")
    assert not any("apt-get" in c or "pip " in c or "npm " in c for c in commands)
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^test: .*\bbrowser\b", make, re.M)


def _make_browser(tmp_path: Path, *, uid: int, present: tuple[str, ...], chromium: str | None = None,
                  debian_chromium: bool = False) -> tuple[subprocess.CompletedProcess, str]:
    """`make browser` run with a PATH of stand-ins: `apt-get` records its DEBIAN_FRONTEND and its
    arguments, `id -u` says ``uid``, and the tools in ``present`` exist; Debian's chromium path
    points at a stand-in with ``debian_chromium``, else nowhere; ``chromium`` is $CHROMIUM."""
    stubs = tmp_path / "bin"
    stubs.mkdir(parents=True)
    calls = tmp_path / "apt-calls"
    for tool in ("sort", "tr", "sed"):       # what the recipe runs besides the shell's builtins
        (stubs / tool).symlink_to(shutil.which(tool))
    scripts = {"apt-get": f'echo "$DEBIAN_FRONTEND $*" >> {calls}', "id": f"echo {uid}",
               **{tool: "exit 0" for tool in present}}
    for name, body in scripts.items():
        (stubs / name).write_text(f"#!/bin/sh\n{body}\n")
        (stubs / name).chmod(0o755)
    env = {"PATH": str(stubs), "HOME": str(tmp_path), **({"CHROMIUM": chromium} if chromium else {})}
    deb = tmp_path / ("debian-chromium" if debian_chromium else "no-chromium")
    if debian_chromium:
        deb.write_text("#!/bin/sh\n")
        deb.chmod(0o755)
    done = subprocess.run([shutil.which("make"), "-s", "-C", str(ROOT), "browser", f"CHROMIUM_DEB={deb}"],
                          env=env, capture_output=True, text=True)
    return done, calls.read_text() if calls.exists() else ""


ALL = ("chromium", "chromium-headless-shell", "pdftotext", "pdftoppm")


def test_make_test_installs_chromium_its_headless_shell_and_poppler_when_missing(tmp_path):
    """As root, the missing Debian packages are installed, non-interactively, after an update."""
    done, calls = _make_browser(tmp_path, uid=0, present=())
    assert done.returncode == 0, done.stdout + done.stderr
    assert calls.splitlines() == ["noninteractive update -qq",
                                  "noninteractive install -y -qq chromium chromium-headless-shell poppler-utils"], calls


def test_make_test_installs_only_what_is_missing(tmp_path):
    for k, (present, wanted) in enumerate([(("chromium", "chromium-headless-shell"), "poppler-utils"),
                                           (("chromium", "pdftotext", "pdftoppm"), "chromium-headless-shell"),
                                           (("chromium-headless-shell", "pdftotext", "pdftoppm"), "chromium")]):
        done, calls = _make_browser(tmp_path / str(k), uid=0, present=present)
        assert done.returncode == 0, done.stdout + done.stderr
        assert calls.splitlines() == ["noninteractive update -qq", f"noninteractive install -y -qq {wanted}"], calls
    done, calls = _make_browser(tmp_path / "all", uid=0, present=ALL)
    assert done.returncode == 0 and calls == "", calls


def test_a_chromium_of_ones_own_stands_for_both_packages(tmp_path):
    """With $CHROMIUM set, neither Debian package is wanted: that binary drives everything."""
    done, calls = _make_browser(tmp_path, uid=0, present=("pdftotext", "pdftoppm"), chromium="/opt/chrome")
    assert done.returncode == 0 and calls == "", calls
    done, calls = _make_browser(tmp_path / "poppler", uid=0, present=(), chromium="/opt/chrome")
    assert calls.splitlines() == ["noninteractive update -qq", "noninteractive install -y -qq poppler-utils"], calls
    done, _ = _make_browser(tmp_path / "user", uid=1000, present=(), chromium="/opt/chrome")
    assert done.returncode != 0 and "install -y poppler-utils\n" in done.stdout, done.stdout
    assert "point CHROMIUM" not in done.stdout


def test_debian_chromium_off_the_path_still_wants_its_headless_shell(tmp_path):
    done, calls = _make_browser(tmp_path, uid=0, present=("pdftotext", "pdftoppm"), debian_chromium=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert calls.splitlines() == ["noninteractive update -qq", "noninteractive install -y -qq chromium-headless-shell"], calls


def test_without_root_a_missing_headless_shell_is_a_note_not_a_failure(tmp_path):
    """The headless shell only makes the browser tests faster (they fall back to chromium)."""
    done, calls = _make_browser(tmp_path, uid=1000, present=("chromium", "pdftotext", "pdftoppm"))
    assert done.returncode == 0 and calls == "", done.stdout + done.stderr
    assert "apt-get install -y chromium-headless-shell\n" in done.stdout and "error" not in done.stdout, done.stdout


def test_make_test_says_what_to_install_when_not_root(tmp_path):
    done, calls = _make_browser(tmp_path, uid=1000, present=("pdftotext", "pdftoppm"))
    assert done.returncode != 0 and calls == ""
    assert "need Debian's chromium chromium-headless-shell. As root" in done.stdout, done.stdout   # no stray space
    assert "apt-get update && apt-get install -y chromium chromium-headless-shell\n" in done.stdout, done.stdout
    assert "point CHROMIUM" in done.stdout
    done, _ = _make_browser(tmp_path / "shell", uid=1000, present=("chromium-headless-shell", "pdftotext", "pdftoppm"))
    assert done.returncode != 0 and "install -y chromium\n" in done.stdout, done.stdout
    assert "point CHROMIUM" in done.stdout
    done, _ = _make_browser(tmp_path / "poppler", uid=1000, present=("chromium", "chromium-headless-shell"))
    assert done.returncode != 0 and "install -y poppler-utils\n" in done.stdout, done.stdout
    assert "point CHROMIUM" not in done.stdout, "the Chromium hint when only poppler is missing"


# -- the Makefile's other recipes, read with `make -n` (printed, not run) ------------------------

def _dry(*targets: str) -> str:
    done = subprocess.run([shutil.which("make"), "-n", "-C", str(ROOT), *targets], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_every_program_the_makefile_runs_exists():
    """The programs that are not tests live in tools/ (bench, lighthouse, pdf, mutation score,
    lock, timing, zensical canary), and every path a recipe names is there."""
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    paths = set(re.findall(r"\b((?:tools|tests)/[\w/.-]+\.py|tests/[\w/-]+)\b", make))
    assert {"tools/bench.py", "tools/lighthouse.py", "tools/pdf.py", "tools/mutation_score.py", "tools/lock.py",
            "tools/timed.py", "tools/zensical_canary.py"} <= paths
    assert [p for p in sorted(paths) if not (ROOT / p).exists()] == []
    for target, tool in [("bench", "tools/bench.py"), ("pdf", "tools/pdf.py"), ("lighthouse", "tools/lighthouse.py"),
                         ("zensical-canary", "tools/zensical_canary.py"), ("mutate", "tools/mutation_score.py"),
                         ("upgrade", "tools/lock.py --upgrade"), ("lock", "tools/lock.py"),
                         ("sweep", "tools/seed_sweep.py")]:
        assert tool in _dry(target), f"make {target} does not run {tool}"


def test_make_test_and_make_check_print_their_time_and_check_is_the_quick_tier():
    test = next(l for l in _dry("test").splitlines() if "pytest" in l)
    assert "tools/timed.py" in test and "-m pytest -n auto" in test and " -m " not in test.split("pytest")[1]
    check = _dry("check")
    command = check[check.index("tools/timed.py"):]
    # by marker, not a list of files: a new unit test is in the quick tier without anyone adding it
    assert '-m "not build and not site and not browser and not sweep"' in command and "tests/" not in command
    assert not re.search(r"^check: .*\bbrowser\b", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M)


@pytest.fixture
def marks(suite_marks) -> dict[str, set[str]]:
    """Every test of the suite with its markers: this run's own collection where it collected
    the whole suite (`make test`, `make check`; conftest.suite_marks), else one in a subprocess."""
    return suite_marks if suite_marks is not None else _collected_marks()


@functools.cache
def _collected_marks() -> dict[str, set[str]]:
    """Every test of the suite with its markers (those conftest sets included), from one
    collection in a subprocess."""
    import json
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "marks.json"
        done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
                              cwd=ROOT, capture_output=True, text=True, timeout=300,
                              env={**os.environ, "COLLECTED_MARKS": str(out), "PYTEST_XDIST_WORKER": ""})
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        return {k: set(v) for k, v in json.loads(out.read_text()).items()}


def _selected(args: list[str], marks: dict[str, set[str]]) -> set[str]:
    """The tests pytest would run with ``args`` (-m EXPR, paths, --ignore=path), by pytest's own
    marker-expression matcher."""
    from _pytest.mark.expression import Expression
    expr, paths, ignored = None, [], []
    it = iter(args)
    for arg in it:
        if arg == "-m":
            expr = Expression.compile(next(it))
        elif arg.startswith("--ignore="):
            ignored.append(arg.removeprefix("--ignore="))
        else:
            paths.append(arg)
    return {t for t, found in marks.items()
            if (not paths or any(t.startswith(p) for p in paths)) and not any(t.startswith(p) for p in ignored)
            and (expr is None or expr.evaluate(lambda name, **kw: name in found))}


def test_the_quick_tier_holds_every_unit_test_and_nothing_that_builds_or_browses(marks):
    """What `make check` selects: the unit tests that a list of files once left to `make test`
    are in; no test of tests/browser/, none that builds (test_faults, the PDF, links, serve's
    builds) or reads the session build."""
    command = _dry("check")
    ids = _selected(["-m", re.search(r'-m "([^"]+)"', command)[1]], marks)
    files = {i.split("::")[0] for i in ids}
    assert {"tests/test_expect_failure.py", "tests/test_esm_explore.py", "tests/test_exec_blocks.py",
            "tests/test_plugin.py", "tests/test_snippets.py", "tests/test_esm.py", "tests/part1/test_intuition.py",
            "tests/primer/test_training.py", "tests/notebook/test_notebook.py"} <= files, sorted(files)
    assert not [f for f in files if f.startswith("tests/browser/")]
    assert not files & {"tests/test_faults.py", "tests/test_cache_faults.py", "tests/test_pdf.py", "tests/test_links.py",
                        "tests/test_build.py", "tests/notebook/test_notebook_faults.py"}
    assert not [i for i in ids if "test_page_notebook_runs_alone" in i]


def test_deps_install_the_lock_exactly_then_the_project_without_resolving():
    lines = [l for l in _dry("-B", ".venv/.installed").splitlines() if "pip install" in l]
    lock_line = next(k for k, l in enumerate(lines) if "-r requirements-lock.txt" in l)
    project = next(k for k, l in enumerate(lines) if "-e ." in l)
    assert lock_line < project
    for line in (lines[lock_line], lines[project]):
        uv, _, pip = line.partition(" || ")
        assert "uv pip install" in uv and "-m pip install" in pip, "uv first, pip where uv cannot"
        assert uv.count("--no-deps") == pip.count("--no-deps") == 1
    assert lines[lock_line].count("--require-hashes") == 2
    assert re.search(r"^\$\(PY_OK\): \$\(LOCK\)", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M)
