"""The GitHub Actions workflow: linted by zizmor (its strictest persona, offline), every
action pinned to a full commit SHA with its release noted, least-privilege permissions,
and the job that deploys to Pages runs only after the tests and only from main."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

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


def test_least_privilege_and_deploy_after_tests():
    wf = load(SITE)
    assert wf["permissions"] == {}, "no permission at workflow level: each job asks for its own"
    jobs = wf["jobs"]
    assert jobs["test"]["permissions"] == {"contents": "read"}
    deploy = jobs["deploy"]
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["needs"] == "test"
    assert "refs/heads/main" in deploy["if"] and "push" in deploy["if"]
    assert deploy["environment"]["name"] == "github-pages"
    steps = jobs["test"]["steps"]
    runs = [s.get("run", "") for s in steps]
    assert any(r.strip() == ".ci/run" for r in runs), "the tests run as a developer runs them"
    build = next(s for s in steps if s.get("run", "").strip() == "make build")
    assert runs.index(".ci/run") < runs.index("make build")
    uploads = [s for s in steps if "upload-pages-artifact" in s.get("uses", "")]
    assert uploads and uploads[0]["with"]["path"] == "site"
    assert build.get("if") == uploads[0].get("if")
    assert any("deploy-pages" in s.get("uses", "") for s in deploy["steps"])
    checkout = next(s for s in steps if "actions/checkout" in s.get("uses", ""))
    assert checkout["with"]["persist-credentials"] is False


def test_ci_entry_only_calls_make_test_which_installs_chromium_when_missing():
    """.ci/run runs `make test` and nothing else; `make test` sets up its own browser."""
    text = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = [l for l in text.splitlines() if l.strip() and not l.lstrip().startswith("#")]
    assert commands[-1].strip() in ("make test", "exec make test")
    assert not any("apt-get" in c or "pip " in c or "npm " in c for c in commands)
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^test: .*\bbrowser\b", make, re.M)
    browser = make.split("\nbrowser:", 1)[1].split("\n\n", 1)[0]
    assert "apt-get update" in browser and "apt-get install -y -qq chromium" in browser
    assert "DEBIAN_FRONTEND=noninteractive" in browser
