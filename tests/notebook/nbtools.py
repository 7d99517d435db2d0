"""Shared by the notebook tests: the hook that makes the notebook, the notebook it makes, and
a Jupyter kernel that can import numpy, matplotlib and the kernel's own packages, nothing else."""

from __future__ import annotations

import json
import re
import sys
from functools import cache
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from sitebuild import ROOT, load_hook

SOURCE = ROOT / "docs" / "notebook" / "theory.py"
ESM = ROOT / "snippets" / "esm"
PAGE = "notebook/theory.py"
KERNEL_NAME = "esm-numpy-matplotlib-only"
SETUP_TAG = "esm-setup"


@cache
def hook():
    """mkdocs_esm/notebook.py as a module, loaded once."""
    return load_hook("notebook")


def made_notebook(source: Path = SOURCE, esm: Path = ESM):
    """The notebook the build makes from the source (and esm's package)."""
    return hook().build_notebook(source, esm)


def code_cells(nb) -> list:
    """The notebook's own code cells: those of its source (the setup cells that write esm left out)."""
    return [c for c in source_cells(nb) if c.cell_type == "code"]


def source_cells(nb) -> list:
    """The cells made from the source, in its order (the setup cells that write esm left out)."""
    return [c for c in nb.cells if SETUP_TAG not in c.metadata.get("tags", [])]


def setup_modules(nb) -> dict[str, str]:
    """esm's files as the setup cells write them: path in the package -> text."""
    out = {}
    for c in nb.cells:
        if SETUP_TAG in c.metadata.get("tags", []) and c.source.startswith("%%esm_module "):
            first, _, body = c.source.partition("\n")
            out[first.split(None, 1)[1]] = body
    return out


def demos(nb) -> list[tuple[str, str, str]]:
    """(heading, markdown, code) of every numbered demo: a '## k. ...' cell and its code."""
    out = []
    for k, cell in enumerate(nb.cells):
        m = re.match(r"##\s+(\d+\.\s+.+)", cell.source) if cell.cell_type == "markdown" else None
        if m:
            code = next(c.source for c in nb.cells[k + 1:] if c.cell_type == "code")
            out.append((m[1].strip(), cell.source, code))
    return out


def restricted_kernel(tmp: Path, extra: tuple[str, ...] = ()) -> Path:
    """A kernelspec dir (for JUPYTER_PATH) whose kernel sees only numpy, matplotlib, ipykernel,
    the distributions ``extra`` and the distributions they require: ``python -S`` (no
    site-packages) with PYTHONPATH set to a directory of links to exactly those distributions' files."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    seen: dict[str, object] = {}
    todo = ["numpy", "matplotlib", "ipykernel", *extra]
    while todo:
        name = canonicalize_name(todo.pop())
        if name in seen:
            continue
        try:
            dist = distribution(name)
        except PackageNotFoundError:      # an optional requirement that is not installed
            continue
        seen[name] = dist
        for text in dist.requires or []:
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    site = tmp / "site-packages"
    site.mkdir(parents=True)
    for dist in seen.values():
        for f in dist.files or []:
            top = f.parts[0]
            if top in ("..", "__pycache__") or top.endswith(".pth"):
                continue
            src, dst = Path(dist.locate_file(top)), site / top
            if src.exists() and not dst.exists():
                dst.symlink_to(src)
    spec = tmp / "kernels" / KERNEL_NAME
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-S", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "numpy and matplotlib only",
        "language": "python",
        "env": {"PYTHONPATH": str(site), "PYTHONNOUSERSITE": "1"},
    }))
    return tmp
