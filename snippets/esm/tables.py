"""Shape tables: the objects a subsection uses, their symbols and their real shapes, each shape
checked against its symbolic form (`ShapeMismatch` otherwise); and plain Markdown tables."""

from __future__ import annotations

import numpy as np
from typing import Iterable
from typing import Sequence

__all__ = ['ShapeMismatch', 'SYMBOLS', 'table', 'shape_table', 'folded']

# ---------------------------------------------------------------------------------------------
# Tables (introduced in 1.1)
# ---------------------------------------------------------------------------------------------

class ShapeMismatch(AssertionError):
    """A shape table's symbolic shape does not match the demo's array."""


#: How shape symbols are typeset. Anything not listed is typeset as written.
SYMBOLS = {
    "V": r"\lvert\mathcal V\rvert", "T_max": r"T_{\max}", "d_k": "d_k", "d_v": "d_v",
    "d_ff": r"d_{\mathrm{ff}}", "d/2": "d/2", "V+k": r"(\lvert\mathcal V\rvert+k)",
}


def _tex_shape(symbols: Sequence[str]) -> str:
    if not symbols:
        return "scalar"
    return "$" + r"\times ".join(SYMBOLS.get(s, s) for s in symbols) + "$"


def _cell(x) -> str:
    return str(x).replace("|", r"\|").replace("\n", " ")


def table(header: Sequence[str], rows: Iterable[Sequence]) -> str:
    """A markdown table (cells, header too, are written as given; ``|`` is escaped)."""
    lines = ["| " + " | ".join(_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n" + "\n".join(lines) + "\n"


def shape_table(dims: dict[str, int], rows: Iterable[tuple]) -> str:
    """The objects a subsection uses, their symbolic and real shapes, and their roles.

    ``rows`` holds ``(object, tex_symbol, array, "B T d", role)``; the symbolic shape is a
    space-separated list of keys of ``dims`` (``""`` for a scalar). Raises `ShapeMismatch`
    when an array's shape is not the symbolic shape evaluated with ``dims``.
    """
    out = []
    for name, symbol, array, spec, role in rows:
        symbols = spec.split()
        try:
            expected = tuple(int(dims[s]) for s in symbols)
        except KeyError as missing:
            raise ShapeMismatch(f"{name}: no size for symbol {missing} in dims {dims}") from None
        actual = tuple(np.shape(array))
        if actual != expected:
            raise ShapeMismatch(f"{name}: array shape {actual} != {spec or 'scalar'} = {expected}")
        sym = f"${symbol}$" if symbol else ""
        out.append((name, sym, _tex_shape(symbols), f"`{actual}`", role))
    sizes = ", ".join(f"${SYMBOLS.get(k, k)}={v}$" for k, v in dims.items())
    body = table(("object", "symbol", "shape", "in this demo", "role"), out) + f"\nSizes in this demo: {sizes}.\n"
    return folded("Shapes in this demo", body)


def folded(summary: str, text: str) -> str:
    """``text`` (Markdown) folded under ``summary``: a closed details block on the page, one
    click away (pymdownx.details' ``???``), and indented text where Markdown is not read."""
    inner = "\n".join(("    " + line) if line.strip() else "" for line in text.strip("\n").split("\n"))
    return f'\n??? abstract "{summary}"\n\n{inner}\n'

