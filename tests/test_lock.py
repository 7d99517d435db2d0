"""The lock (requirements-lock.txt, written by tools/lock.py) and the pinned weights
(data-requirements.txt): they fit pyproject.toml, name no local path or host, pin one version of
each package with the hashes of its files, and are what this environment has installed."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import lock

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements-lock.txt"
DATA = ROOT / "data-requirements.txt"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def entries(path: Path) -> list[tuple[Requirement, list[str]]]:
    """(requirement, its sha256 hashes) for each requirement of a hashed requirements file."""
    text = re.sub(r"\\\n", " ", path.read_text(encoding="utf-8"))
    out = []
    for line in text.splitlines():
        line = line.split(" #")[0].strip()
        if not line or line.startswith("#"):
            continue
        spec, *options = re.split(r"\s+(?=--)", line)
        assert all(o.startswith("--hash=sha256:") for o in options), f"{path.name}: an option other than a hash: {line}"
        out.append((Requirement(spec), [o.removeprefix("--hash=sha256:") for o in options]))
    return out


LOCKED = entries(LOCK)
PINS = {canonicalize_name(r.name): r for r, _ in LOCKED}


def here(req: Requirement, extra: str = "") -> bool:
    return req.marker is None or req.marker.evaluate({**default_environment(), "extra": extra})


def test_the_lock_names_no_index_no_local_path_and_no_host():
    text = LOCK.read_text(encoding="utf-8") + DATA.read_text(encoding="utf-8")
    for needle in ("://", "file:", "/opt/", "--index-url", "--extra-index-url", "--find-links", "-e ", "--trusted-host"):
        assert needle not in text, f"{needle!r} in the lock: it must install from the public index alone"


def test_every_package_is_pinned_once_to_one_version_with_the_hashes_of_its_files():
    names = [canonicalize_name(r.name) for r, _ in LOCKED]
    assert len(names) == len(set(names)), "a package pinned twice (a fork by Python version)"
    for req, hashes in LOCKED + entries(DATA):
        assert len(req.specifier) == 1 and next(iter(req.specifier)).operator == "==", f"{req} is not pinned"
        assert hashes and all(re.fullmatch(r"[0-9a-f]{64}", h) for h in hashes), f"{req} has no sha256"


def test_the_lock_fits_pyproject():
    """Every requirement of pyproject.toml, and of each extra, is locked within its range: after
    an edit of pyproject.toml, `make lock` writes the lock again."""
    wanted = [(Requirement(r), "") for r in PYPROJECT["dependencies"]]
    wanted += [(Requirement(r), extra) for extra, reqs in PYPROJECT["optional-dependencies"].items() for r in reqs]
    for req, extra in wanted:
        if not here(req, extra):
            continue
        pin = PINS.get(canonicalize_name(req.name))
        assert pin is not None, f"{req} (pyproject.toml) is not in the lock: run `make lock`"
        version = next(iter(pin.specifier)).version
        assert req.specifier.contains(version, prereleases=True), f"locked {pin}, outside {req}: run `make lock`"


@pytest.mark.parametrize("name, major", [("mkdocs", 2), ("mkdocs-material", 10), ("markdown-exec", 2),
                                         ("mkdocs-jupyter", 1), ("mkdocs-autorefs", 2),
                                         ("mkdocs-print-site-plugin", 3), ("mutmut", 4)])
def test_packages_whose_internals_we_rely_on_stop_below_their_next_major(name, major):
    reqs = [Requirement(r) for r in PYPROJECT["dependencies"]]
    reqs += [Requirement(r) for group in PYPROJECT["optional-dependencies"].values() for r in group]
    req = next(r for r in reqs if canonicalize_name(r.name) == name)
    assert f"<{major}" in {f"{s.operator}{s.version}" for s in req.specifier}, f"{req}: no bound <{major}"


def test_this_environment_has_exactly_the_locked_versions():
    """What `make deps` installed is the lock and the pinned weights, version for version."""
    for req, _ in LOCKED + entries(DATA):
        if not here(req):
            continue
        try:
            installed = importlib.metadata.version(req.name)
        except importlib.metadata.PackageNotFoundError:
            pytest.fail(f"{req} is locked but not installed: run `make deps`")
        assert installed == next(iter(req.specifier)).version, f"{req.name} {installed} installed, {req} locked"


def test_upgrade_lists_each_change_as_old_to_new():
    old = "a==1.0 \\\n    --hash=sha256:00\nb-c==2.0 ; python_full_version >= '3.12' \\\n    --hash=sha256:11\nd==1\n"
    new = "A==1.1 \\\n    --hash=sha256:22\nb_c==2.0\ne==3.0\n"
    assert lock.pins(old) == {"a": "1.0", "b-c": "2.0", "d": "1"}
    assert lock.changes(lock.pins(old), lock.pins(new)) == ["a: 1.0 -> 1.1", "d: 1 -> (removed)", "e: (new) -> 3.0"]
    assert lock.changes(lock.pins(old), lock.pins(old)) == []
