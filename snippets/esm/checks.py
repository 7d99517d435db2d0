"""Checks: each compares a computed value with an independent route and returns one line,
``PASS [label] claim — detail``, that names the values compared (print it). A failing check
raises `CheckFailed`, whose message is the ``FAIL`` line, so a bad claim stops the build. A
check of a displayed formula names it with ``eq="label"``: the build insists that every
``\\label{...}`` on a page has one, and shows the line as the page's check line (its
``[label]`` as the formula's number, linked). Each passed check is also raised as the audit
event ``esm.check`` (the line, claim, detail and label): the build's runner listens and reads the
checks from those records, not from the printed text; elsewhere nothing listens."""

from __future__ import annotations

import re
import sys

import numpy as np

__all__ = ['CheckFailed', 'check_close', 'check_equal', 'check_true', 'check_less', 'expect_failure']

# ---------------------------------------------------------------------------------------------
# Checks (introduced in 1.1; every demo uses them)
# ---------------------------------------------------------------------------------------------

#: between a check line's claim and its detail
SEPARATOR = " — "


class CheckFailed(AssertionError):
    """A demo's claim did not survive being computed. The message is the FAIL line."""


def _fmt(x) -> str:
    """Short, stable text for a number, an array or anything else."""
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return f"{x:.6g}" if x != 0 else "0"
    if isinstance(x, np.ndarray):
        if x.size <= 8:
            return "[" + ", ".join(_fmt(v) for v in x.ravel()) + "]"
        return f"array{x.shape}"
    if isinstance(x, tuple):
        return "(" + ", ".join(_fmt(v) for v in x) + ("," if len(x) == 1 else "") + ")"
    return str(x)


def _emit(ok: bool, claim: str, detail: str, eq: str | None) -> str:
    """The check's line, ``PASS [label] claim — detail``; raises `CheckFailed` when it failed.
    The build reads the line back at its first " — ", so a claim holds none, and neither part
    holds a line break."""
    if SEPARATOR in claim or "\n" in claim or "\n" in detail:
        raise ValueError(f"a check's claim holds no {SEPARATOR!r} and no line break, nor its detail a line break: "
                         f"{claim!r}")
    tag = f" [{eq}]" if eq else ""
    if not ok:
        failed = CheckFailed(f"FAIL{tag} {claim}: {detail}")
        failed.claim, failed.detail = claim, detail
        raise failed
    line = f"PASS{tag} {claim}{SEPARATOR}{detail}" if detail else f"PASS{tag} {claim}"
    sys.audit("esm.check", line, claim, detail, eq)     # to a runner that listens (the build); else nothing
    return line


def check_close(claim: str, got, expected, *, eq: str | None = None,
                atol: float = 1e-9, rtol: float = 0.0) -> str:
    """PASS when ``|got - expected| <= atol + rtol*|expected|`` everywhere (numbers or arrays).

    The passing line states the bound, never the measured difference: a difference at rounding
    level depends on the CPU, the BLAS kernel and the summation order, while the bound holds on
    every machine. A failing line gives the measured values."""
    g = np.asarray(got, dtype=float)
    e = np.asarray(expected, dtype=float)
    if g.shape != e.shape:
        return _emit(False, claim, f"shape {g.shape} != {e.shape}", eq)
    diff = np.abs(g - e)
    bound = atol + rtol * np.abs(e)
    ok = bool(np.all(diff <= bound))
    tol = f"{atol:g}" + (f" + {rtol:g}·|expected|" if rtol else "")
    if g.ndim == 0:
        detail = (f"expected {_fmt(e.item())}, |got - expected| <= {tol}" if ok else
                  f"got {_fmt(g.item())}, expected {_fmt(e.item())}, |diff| {_fmt(diff.item())} > {tol}")
    else:
        detail = (f"|got - expected| <= {tol} everywhere over shape {g.shape}" if ok else
                  f"max |diff| {_fmt(diff.max() if diff.size else 0.0)} > {tol} somewhere over shape {g.shape}")
    return _emit(ok, claim, detail, eq)


def check_equal(claim: str, got, expected, *, eq: str | None = None) -> str:
    """PASS when ``got == expected`` exactly (ids, shapes, counts, labels, integer arrays). The
    passing line says the value once (`_same`); a failing one gives both."""
    if isinstance(got, np.ndarray) or isinstance(expected, np.ndarray):
        ok = bool(np.array_equal(got, expected))
    else:
        ok = bool(got == expected)
    if not ok:
        return _emit(ok, claim, f"got {_fmt(got)}, expected {_fmt(expected)}", eq)
    return _emit(ok, claim, _same(got), eq)


def _same(x) -> str:
    """A passing equality's detail: the one value both routes gave, said once; nothing for a
    condition that holds (the claim says it); the size of a large array."""
    if isinstance(x, (bool, np.bool_)) or (isinstance(x, tuple) and x and all(isinstance(v, (bool, np.bool_)) for v in x)):
        return ""
    if isinstance(x, np.ndarray) and x.size > 8:
        shape = " × ".join(map(str, x.shape))
        return f"all {shape} entries {_fmt(x.flat[0])}" if (x == x.flat[0]).all() else f"all {shape} entries as expected"
    return _fmt(x)


def check_true(claim: str, condition, detail: str, *, eq: str | None = None) -> str:
    """PASS when ``condition`` holds; ``detail`` must state the values behind it."""
    return _emit(bool(condition), claim, detail, eq)


def check_less(claim: str, smaller, larger, *, eq: str | None = None,
               names: tuple[str, str] = ("a", "b")) -> str:
    """PASS when ``smaller < larger`` (both numbers). Where the short forms print alike, both are
    printed with 17 significant digits, so that the line is true as printed."""
    a, b = names
    x, y = _fmt(smaller), _fmt(larger)
    if x == y and isinstance(smaller, (float, np.floating)) and isinstance(larger, (float, np.floating)):
        x, y = f"{float(smaller):.17g}", f"{float(larger):.17g}"

    def side(name, text, value):       # a constant named by its own value prints once: "0.9 < ...", not "0.9 = 0.9 < ..."
        try:
            same = float(name) == float(value)
        except (TypeError, ValueError):
            same = False
        return text if same else f"{name} = {text}"
    return _emit(bool(smaller < larger), claim, f"{side(a, x, smaller)} < {side(b, y, larger)}", eq)


# ---------------------------------------------------------------------------------------------
# A planted bug (introduced on the exercises pages: each debugging task shows its failure)
# ---------------------------------------------------------------------------------------------

def expect_failure(run) -> str:
    """Run ``run()``, code with a planted bug that ends in a check, and return the line
    ``EXPECTED FAILURE (this is the bug): claim: `detail` `` naming the check it failed (the
    detail as code, like a check line's). If that check passes, the bug is not shown and the
    page is wrong: raises `CheckFailed`. Any other exception propagates (the broken code must run)."""
    try:
        got = run()
    except CheckFailed as failed:
        claim = getattr(failed, "claim", None)
        if claim is None:                    # raised by hand, not by a check: keep its message
            return "EXPECTED FAILURE (this is the bug): " + re.sub(r"^FAIL(?: \[[^\]]*\])? ", "", str(failed))
        return f"EXPECTED FAILURE (this is the bug): {claim}: `{failed.detail}`"
    raise CheckFailed(f"FAIL the code with the planted bug passed its check, so it shows no bug: {got}")
