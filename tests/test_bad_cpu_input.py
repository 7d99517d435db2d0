"""Bad input stays a clear error (issue 44): `OPENBLAS_CORETYPE` set to a name OpenBLAS does not
know, or a machine without AVX2, never stops a demo on a check about rounding.

What OpenBLAS does with an unknown name: it ignores it and picks the kernel of the CPU it runs
on, as with no variable (it says "Core not found: Nonsense" only with OPENBLAS_VERBOSE=2). So the
build passes; these tests run the demos whose checks once depended on the kernel's rounding
(3.3's Gram route) and a softmax's, as a reader would (`python demo.py`), under such input."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

from sitebuild import ROOT
from test_cache_across_cpus import probe

SNIPPETS = ROOT / "snippets"
DEMOS = ["part1/similarity-geometry/euclid.py", "part1/similarity-geometry/dot.py",
         "primer/softmax-and-scores/scaling.py"]
X86 = platform.machine().lower() in ("x86_64", "amd64")


def run_demo(demo: str, **env: str) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": str(SNIPPETS), "MPLBACKEND": "Agg", **env}
    return subprocess.run([sys.executable, str(SNIPPETS / demo)], cwd=ROOT, env=full,
                          capture_output=True, text=True, timeout=120)


def _passes(done: subprocess.CompletedProcess) -> None:
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert any(line.startswith("PASS") for line in lines)
    assert not [line for line in lines if line.startswith("FAIL")]


def test_an_unknown_openblas_coretype_is_the_cpus_own_kernel():
    assert probe({"OPENBLAS_CORETYPE": "Nonsense"})["blas"] == probe({"OPENBLAS_CORETYPE": None})["blas"]


@pytest.mark.parametrize("demo", DEMOS)
def test_a_demo_passes_under_an_unknown_openblas_coretype(demo):
    _passes(run_demo(demo, OPENBLAS_CORETYPE="Nonsense"))


#: A CPU without AVX2 (nor AVX-512), as far as numpy's SIMD dispatch and OpenBLAS can be told:
#: Sandybridge's kernel (AVX, no FMA), numpy's X86_V3 (AVX2, FMA3) and AVX-512 targets off.
NO_AVX2 = {"OPENBLAS_CORETYPE": "Sandybridge", "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR X86_V3"}


@pytest.mark.skipif(not X86, reason="OpenBLAS's and numpy's x86-64 names")
def test_the_simulated_cpu_has_no_avx2():
    seen = probe(NO_AVX2)
    assert seen["blas"] == ["Sandybridge"]
    assert "X86_V3" not in seen["simd"] and "X86_V4" not in seen["simd"] and "AVX512_ICL" not in seen["simd"]


@pytest.mark.skipif(not X86, reason="OpenBLAS's and numpy's x86-64 names")
@pytest.mark.parametrize("demo", DEMOS)
def test_a_demo_passes_without_avx2(demo):
    _passes(run_demo(demo, **NO_AVX2))
