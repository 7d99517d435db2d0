"""esm.expect_failure: a debugging exercise shows the check its broken code fails, and the build
stops if the broken code passes."""

from __future__ import annotations

import pytest

import esm


def test_a_failed_check_becomes_the_expected_failure_line():
    line = esm.expect_failure(lambda: esm.check_equal("rows", [1, 2], [1, 3], eq="e"))
    assert line == "EXPECTED FAILURE (this is the bug): rows: `got [1, 2], expected [1, 3]`"
    assert not line.startswith(("FAIL", "PASS")) and "FAIL [" not in line


def test_a_check_failure_raised_by_hand_keeps_its_message():
    def by_hand():
        raise esm.CheckFailed("FAIL [e] rows differ")
    assert esm.expect_failure(by_hand) == "EXPECTED FAILURE (this is the bug): rows differ"


def test_broken_code_that_passes_fails_the_build():
    with pytest.raises(esm.CheckFailed, match=r"^FAIL the code with the planted bug passed its check"):
        esm.expect_failure(lambda: esm.check_equal("rows", 1, 1))


def test_other_errors_are_not_swallowed():
    def crash():
        raise IndexError("past the end")
    with pytest.raises(IndexError):
        esm.expect_failure(crash)
