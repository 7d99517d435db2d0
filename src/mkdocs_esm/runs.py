"""Training runs kept between the build's processes.

The training chapter's blocks ask `esm.train.trained` for the same run; the build runs them side by side in
worker processes and again in later builds. `Runs` keeps each finished run as an ``.npz`` in a
folder of the execution cache (``<cache_dir>/train``), made once under a lock, so that a block
that asks while another process trains waits for that run instead of repeating it; `hand_over`
gives it to ``esm.train`` in the process about to run a block. ``esm`` itself keeps runs in its
own process only (a reader's notebook), and holds no cache or lock code.

A run's file name hashes its inputs (from ``esm.train``) with the sources of the modules of
``esm`` that training imports and numpy's version, so that a change to the code that trains, or
to numpy, trains afresh (an edit to another module does not);
`make clean` or an empty execution cache deletes the runs with it.
"""
from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

class Runs:
    """A folder of finished runs: ``get(name, make)`` returns the arrays ``make()`` returns,
    made once under ``name`` by whichever process asks first."""

    def __init__(self, folder: Path, package: Path) -> None:
        self.folder = Path(folder)
        salt = hashlib.sha256()
        for source in _trains_with(Path(package)):
            salt.update(source.name.encode() + b"\0" + source.read_bytes())
        import numpy as np
        salt.update(np.__version__.encode())
        self.salt = salt.hexdigest()[:16]

    def get(self, name: str, make):
        import numpy as np
        from filelock import FileLock          # a lock on every OS (fcntl is POSIX only)

        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{name}-{self.salt}.npz"
        with FileLock(str(self.folder / "lock")):
            if not path.exists():
                tmp = path.with_suffix(".tmp.npz")
                np.savez(tmp, **make())
                os.replace(tmp, path)
        with np.load(path) as f:
            return {k: f[k] for k in f.files}


def _trains_with(package: Path) -> list[Path]:
    """The modules of the helper package that a run depends on: ``train.py`` and what it imports
    of the package, relatively or by name (the page's code writes ``from esm.backward import``),
    transitively (an edit to the checks or the figures trains nothing again)."""
    from .execcache import imports_of, relative_imports_of

    todo, seen = ["train"], set()
    while todo:
        name = todo.pop()
        path = package / f"{name}.py"
        if name in seen or not path.is_file():
            continue
        seen.add(name)
        text = path.read_text(encoding="utf-8")
        todo += [m.split(".")[1] for m in relative_imports_of(text, "esm") | imports_of(text)
                 if m.startswith("esm.")]
    return sorted(package / f"{name}.py" for name in seen)


def hand_over(folder: Path | None) -> None:
    """Before a block runs: have ``esm.train`` (imported now if the block has not yet; the
    build's python_path holds ``esm``) keep its runs in ``folder``; None leaves them in the
    process that made them (the build without its cache)."""
    if folder is None:
        return
    train = sys.modules.get("esm.train")
    if train is None:
        try:
            import esm.train as train
        except ImportError:                  # a book without esm.train
            return
    if not isinstance(train.store, Runs) or train.store.folder != Path(folder):
        train.store = Runs(folder, Path(train.__file__).parent)
