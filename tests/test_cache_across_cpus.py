"""One cache for every machine (issue 44): the execution cache's key holds no CPU path, so a cache
filled under one CPU path (OpenBLAS's kernel, numpy's SIMD targets) serves a build under another:
every block reused, the same site. That the other path, running everything itself, makes that
same site too is what `make portable` shows, for the whole book."""

from __future__ import annotations

import hashlib
import json
import platform
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import environ
from sitebuild import build

pytestmark = pytest.mark.build

#: Two small pages whose blocks go through BLAS (3.3's Gram routes, in float32 and float64) and
#: numpy's SIMD loops (exp, the softmax): what differs between CPU paths if anything does.
PAGES = ["part1/similarity-geometry.md", "primer/softmax-and-scores.md"]
SUMMARY = re.compile(r"execution cache: (\d+) reused, (\d+) ran \((\d+) ahead[^)]*\), (\d+) stale, (\d+) discarded")
_PROBE = """
import json
import numpy
from numpy._core._multiarray_umath import __cpu_features__
from threadpoolctl import threadpool_info
print(json.dumps({"blas": sorted({i.get("architecture") for i in threadpool_info() if i.get("internal_api") == "openblas"}),
                  "simd": sorted(k for k, on in __cpu_features__.items() if on)}))
"""


def _flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    m = re.search(r"^flags\s*:(.*)$", text, re.M)
    return set(m[1].split()) if m else set()


def cpu_paths() -> tuple[dict, dict]:
    """Two CPU paths this host can run, as environment variables. On x86-64: OpenBLAS's Haswell
    kernel with every numpy SIMD target, and its SkylakeX kernel (Sandybridge's on a CPU without
    AVX-512) with numpy's AVX-512 targets turned off. Elsewhere: the native kernel, and ARMV8's."""
    if platform.machine().lower() in ("x86_64", "amd64"):
        second = "SkylakeX" if "avx512f" in _flags() else "Sandybridge"
        return ({"OPENBLAS_CORETYPE": "Haswell", "NPY_DISABLE_CPU_FEATURES": None},
                {"OPENBLAS_CORETYPE": second, "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR"})
    return {"OPENBLAS_CORETYPE": None, "NPY_DISABLE_CPU_FEATURES": None}, {"OPENBLAS_CORETYPE": "ARMV8",
                                                                         "NPY_DISABLE_CPU_FEATURES": None}


def probe(path: dict) -> dict:
    """The OpenBLAS kernel and numpy's SIMD targets a process started under ``path`` uses."""
    with environ(**path):
        done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _build(out: Path) -> tuple[dict[str, int], dict[str, str]]:
    result = build(out, pages=PAGES)
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-3000:]
    m = SUMMARY.search(log)
    counts = dict(zip(("reused", "ran", "ahead", "stale", "discarded"), map(int, m.groups()))) if m else {}
    return counts, _digest(out)


def test_a_cache_made_under_one_cpu_path_serves_another(tmp_path):
    first, second = cpu_paths()
    one, two = probe(first), probe(second)
    if one == two:
        pytest.skip(f"this host runs one CPU path only ({one})")
    cache = tmp_path / "exec-cache"
    with environ(ESM_CACHE=None, ESM_CACHE_DIR=str(cache), ESM_JOBS="1", **first):
        filled, site_one = _build(tmp_path / "one")
    assert filled["ran"] > 0 and filled["reused"] == 0, filled
    with environ(ESM_CACHE=None, ESM_CACHE_DIR=str(cache), ESM_JOBS="1", **second):
        served, site_two = _build(tmp_path / "two")
    assert served == {"reused": filled["ran"], "ran": 0, "ahead": 0, "stale": 0, "discarded": 0}, (one, two, served)
    assert [k for k in site_one if site_one[k] != site_two.get(k)] == [] and site_one.keys() == site_two.keys()
