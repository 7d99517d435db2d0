"""Computed prose: a demo publishes a value, the page's text quotes it as ``{{name}}``.

``glue`` returns the line ``value name = text  [fmt of json]`` (print it): the value as its
format prints it, then the format and the exact value, from which the build writes the value
into the prose in any format the text asks for (``{{name:.1%}}``) and takes the line out of the
page. The value also goes out as the audit event ``esm.value`` (the line, name, exact value,
format and text): the build's runner listens and reads values from those records, not from the
printed text. ``share_of_seeds`` measures how far a conclusion drawn from one random draw carries."""

from __future__ import annotations

import json
import numpy as np
import re
import sys
from typing import Iterable


__all__ = ['glue', 'share_of_seeds']

# ---------------------------------------------------------------------------------------------
# Computed prose (introduced in 1.1; every page quotes its numbers this way)
# ---------------------------------------------------------------------------------------------

_GLUE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
#: Below this size a published float is taken for rounding noise (the agreement of two routes, a
#: residual), which differs from machine to machine: `glue` refuses it, and an exact zero in
#: scientific notation. The book's smallest true quantities are far above it (float32's epsilon,
#: 1.2e-7; 3.3's squared distance of near-duplicate rows, 1e-6).
ROUNDING_LEVEL = 1e-8


def _glue_value(value):
    """A JSON-able copy of a published value: int, float, str, or a flat list of numbers."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("glue: publish a bool as the string you want the prose to show")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if not np.isfinite(value):
            raise ValueError(f"glue: {value} cannot be quoted in prose")
        return value
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        items = np.asarray(value).ravel().tolist() if isinstance(value, np.ndarray) else list(value)
        return [_glue_value(v) for v in items]
    raise TypeError(f"glue: cannot publish a {type(value).__name__}")


def glue(name: str, value, fmt: str | None = None) -> str:
    """Publish ``value`` under ``name`` for the prose of the page, which quotes it as
    ``{{name}}`` (or ``{{name:.1%}}`` for another format). ``fmt`` is a Python format spec
    (``.3f``, ``.2g``, ``,``, ``.1%``, ``.1e``, ``+.3f``); floats need one. The build
    substitutes the value into the prose, and into formulas in math form. Print the result."""
    if not isinstance(name, str) or not _GLUE_NAME.fullmatch(name):
        raise ValueError(f"glue: bad name {name!r} (letters, digits, _; a letter first)")
    v = _glue_value(value)
    numbers = v if isinstance(v, list) else [v]
    if fmt is None and any(isinstance(x, float) for x in numbers):
        raise ValueError(f"glue: {name} is a float: give it a format such as '.3f'")
    if isinstance(v, str) and fmt:
        raise ValueError(f"glue: {name} is a string: it takes no format")
    for x in numbers:
        if isinstance(x, float) and (0 < abs(x) < ROUNDING_LEVEL or (x == 0 and fmt and fmt[-1] in "eE")):
            raise ValueError(f"glue: {name} = {x!r} is at rounding level, where each CPU prints another value "
                             "(an exact 0 on one is 1e-16 on another): prose does not quote it. Let the check "
                             "below the demo state the bound, and say 'to rounding' in the text")
    text = ", ".join(format(x, fmt or "") for x in numbers)   # raises if fmt does not apply
    if isinstance(v, list):
        text = f"({text})"
    line = f"\nvalue {name} = {text}  [{fmt or ''} of {json.dumps(v)}]\n"
    sys.audit("esm.value", line, name, v, fmt or "", text)    # to a runner that listens (the build)
    return line


def share_of_seeds(holds, seeds: Iterable[int] = range(50)) -> float:
    """The share of ``seeds`` for which ``holds(seed)`` is true: how far a conclusion drawn
    from the seed shown carries. Introduced in section 10 (every exercise with randomness
    states its conclusions for the seed shown and over 50 seeds)."""
    seeds = list(seeds)
    return sum(bool(holds(s)) for s in seeds) / len(seeds)

