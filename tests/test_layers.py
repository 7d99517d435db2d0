"""The layers: ``esm`` (the helpers a reader's notebook carries) holds no build infrastructure,
and the build hands it what it keeps between processes (P11's training runs)."""
from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
ESM = ROOT / "snippets" / "esm"
#: What keeps state between processes or reads how a build runs: not the helpers' business.
INFRASTRUCTURE = {"filelock", "fcntl", "msvcrt", "tempfile", "shelve", "sqlite3", "mkdocs_esm"}


def test_esm_holds_no_cache_lock_or_environment_code():
    for source in sorted(ESM.glob("*.py")):
        tree = ast.parse(source.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = {(node.module or "").split(".")[0]}
            else:
                names = set()
            assert not names & INFRASTRUCTURE, f"{source.name}:{node.lineno} imports {names & INFRASTRUCTURE}"
            if isinstance(node, ast.Attribute) and node.attr in {"environ", "getenv"}:
                raise AssertionError(f"{source.name}:{node.lineno} reads the environment")
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert ".cache" not in node.value, f"{source.name}:{node.lineno} names a cache folder"


def _train_twice(code: str, tmp_path: Path) -> subprocess.CompletedProcess:
    script = textwrap.dedent("""
        import sys, time
        sys.path.insert(0, {snippets!r})
        import numpy as np
        import esm.train as et
        calls = []
        real = et.train
        et.train = lambda *a, **k: (calls.append(1), real(*a, **k))[1]
        tokens = np.random.default_rng(0).integers(0, 20, 3000)
        cfg = dict(et.TRAIN, d=8, n_heads=2, T=8, batch=2, steps=3, eval_every=3, eval_batches=1)
        """).format(snippets=str(ROOT / "snippets")) + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=120)


def test_a_run_is_made_once_per_process_without_a_store(tmp_path):
    """A reader's notebook: two cells ask for the same run, it trains once, and nothing is
    written anywhere."""
    done = _train_twice("""
        a = et.trained(tokens[:2500], tokens[2500:], 20, cfg)
        b = et.trained(tokens[:2500], tokens[2500:], 20, cfg)
        assert np.array_equal(a[1], b[1])
        print(len(calls))
        """, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1"]
    assert list(tmp_path.iterdir()) == []


def test_the_build_hands_its_runs_to_each_process(tmp_path):
    """Two processes given the build's store (as the plugin gives each worker before a block
    runs): the first trains, the second reads the same arrays; a change to the esm sources
    (another salt) would train afresh."""
    from mkdocs_esm.runs import Runs

    store = tmp_path / "train"
    code = f"""
        from pathlib import Path
        from mkdocs_esm import runs
        runs.hand_over(Path({str(store)!r}))
        a = et.trained(tokens[:2500], tokens[2500:], 20, cfg)
        print(len(calls), float(a[1].sum()))
        """
    first, second = _train_twice(code, tmp_path), _train_twice(code, tmp_path)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert first.stdout.split()[0] == "1" and second.stdout.split()[0] == "0"
    assert first.stdout.split()[1] == second.stdout.split()[1]
    (npz,) = store.glob("*.npz")
    assert npz.name.endswith(Runs(store, ESM).salt + ".npz")
    with np.load(npz) as f:
        assert {"curve", "evals"} <= set(f.files)


def test_a_kept_run_depends_on_the_modules_that_train_not_on_the_others(tmp_path):
    """The store's salt hashes train.py and what it imports of esm: an edit to the checks (the
    bench's 'esm edit') keeps P11's run, an edit to the math it uses trains afresh."""
    import shutil

    from mkdocs_esm.runs import Runs

    package = tmp_path / "esm"
    shutil.copytree(ESM, package, ignore=shutil.ignore_patterns("records", "__pycache__"))
    salt = Runs(tmp_path / "train", package).salt
    (package / "checks.py").write_text((package / "checks.py").read_text() + "\n# edited\n")
    assert Runs(tmp_path / "train", package).salt == salt
    (package / "math.py").write_text((package / "math.py").read_text() + "\n# edited\n")
    assert Runs(tmp_path / "train", package).salt != salt
