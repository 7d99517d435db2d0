"""Every demo runs on its own, as a reader would run it, and all its checks pass."""

from __future__ import annotations

import pytest

from conftest import ROOT, demo_snippets, snippet_output


@pytest.mark.parametrize("path", demo_snippets(), ids=lambda p: p.relative_to(ROOT / "snippets").as_posix())
def test_snippet_runs_and_passes(path):
    out = snippet_output(path)
    lines = out.splitlines()
    passed = [line for line in lines if line.startswith("PASS")]
    assert passed, f"{path.name} printed no PASS line"
    assert not [line for line in lines if line.startswith("FAIL")]
