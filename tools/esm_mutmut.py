"""pytest plugin loaded only by `make mutate` (see [tool.mutmut] in pyproject.toml: `-p tools.esm_mutmut`).

mutmut 3 names each mutant after the file's path (``snippets.esm.x_cosine__mutmut_3``) and
switches it on only in functions whose ``__module__`` is that dotted name. Tests and demos
import the helper module as plain ``esm`` (``pythonpath = ["snippets", ...]``), which would
leave every mutant unselected ("no tests"). Import mutmut's mutated copy once as
``snippets.esm`` and let ``import esm`` return that module.

Hypothesis runs derandomized and without deadlines here: a mutant is killed by a wrong
value, never by a slow example on a busy machine or by a lucky draw.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from hypothesis import settings

esm = importlib.import_module("snippets.esm")
sys.modules["esm"] = esm
# Every module of the package too: `import esm.train` (P11's demos, the page tests) would
# otherwise make a second copy of it (and of what it imports relatively, `esm.weights` among
# them), set as the package's attribute in place of the mutated one: a test that patches
# `esm.weights.X` then patched a module the loaders do not read (the stats run failed on it).
for _path in sorted(Path(esm.__file__).parent.glob("*.py")):
    if _path.stem != "__init__":
        sys.modules[f"esm.{_path.stem}"] = importlib.import_module(f"snippets.esm.{_path.stem}")

settings.register_profile("mutmut", deadline=None, derandomize=True, database=None)
settings.load_profile("mutmut")


def pytest_collection_modifyitems(session, config, items):
    """Run a mutant's tests cheapest first (mutmut runs them with -x, so a killed mutant stops at
    the first failure): the helper tests, then the pages' tests, then whole demos. The verdict
    does not depend on the order; only the time to reach it does."""
    def cost(item) -> int:
        path = item.nodeid.split("::")[0]
        if path.startswith("tests/test_esm") or path == "tests/test_glue.py":
            return 0
        if path == "tests/test_snippets.py":
            return 2
        return 1
    items.sort(key=cost)        # stable: the order within each group is kept
