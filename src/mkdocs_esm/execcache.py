"""The execution cache: a block's (or the notebook's) captured output, reused only while none of
its inputs changed.

An entry is found by a *primary key* (the code itself, its kind, the Python version, the
cache format) and is then *validated* against the dependencies recorded when it ran:

- files: every file the code opened for reading while it ran (an audit hook on ``open``
  events: data files read with ``np.load``, ``open``, ``pathlib``; the source files of the
  modules it imported for the first time) and the files of the local modules it imports, found
  transitively from the import statements of its code and of those modules (``esm``
  included). Each is stored with the SHA-256 of its bytes (or as absent);
- distributions: a file inside an installed distribution (site-packages) and every module
  imported from one stand for that distribution's name and version, with the versions of the
  distributions it requires, transitively (numpy, matplotlib, a model package and its data
  files). The standard library is covered by the Python version in the primary key.

The entry is served only if every recorded file still has its hash and every distribution its
version; otherwise the code runs again and the entry is replaced. What is cached is the output
string only (what the code printed), never a side effect. A run that raises is never stored.
An entry that cannot be read, does not parse or fails its own checksum is deleted and the code
runs again: it is never served.

Where: the plugin's ``cache_dir``, ``.cache/esm-exec/`` in the project (git-ignored, outside
``site/``); ``cache: false`` (``ESM_CACHE=0`` through mkdocs.yml) turns the cache off: every
block and the notebook run, nothing is read or written.

Not seen: a file read by native code that never passes through Python's ``open`` (a Rust or
C++ reader given a path) unless it lies in an installed distribution, and the environment
beyond ``ESM_*``/``MPLBACKEND``. ``ESM_CACHE=0`` or deleting the directory forces a full re-run.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.metadata as metadata
import importlib.util
import json
import os
import re
import site
import sys
import sysconfig
import tempfile
import threading
import time
from collections import Counter
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Callable, Iterable

FORMAT = 2                                  # bump when an entry's meaning changes (2: a block's records)
#: ESM_* variables that say where and how a build runs, never what a block prints: not in any key
#: (the plugin's options read through !ENV: the cache's switch and folder, the font cache's
#: folder, the number of worker processes, serve's route; the tests' built site)
NOT_INPUTS = frozenset({"ESM_CACHE", "ESM_CACHE_DIR", "ESM_FONT_CACHE_DIR", "ESM_SITE", "ESM_JOBS",
                        "ESM_FAST_SERVE"})


def interpreter() -> str:
    """What the standard library and bytecode depend on: the implementation (cpython, pypy), its
    version to the micro release and pre-release (``3.11.2 final 0``: a micro release may change
    what the standard library computes or prints) and its bytecode's cache tag (``cpython-311``).

    Nothing of the machine: not ``platform.machine()`` (x86_64, aarch64), nor the rest of
    ``sys.version`` (the compiler and the date CPython was built with), nor the CPU path the
    build takes (OpenBLAS's kernel, numpy's SIMD targets, the number of BLAS threads). What a
    block prints is the same on every CPU path (issue 44: `make portable` builds under
    different ones and diffs the sites, the arm64 job compares its site with x86-64's), so an
    entry made on one machine or CI runner serves another. Packages are keyed by their
    versions (``dists`` of an entry's dependencies), which do not name the wheel's platform,
    for the same reason."""
    major, minor, micro, level, serial = sys.version_info[:5]
    return f"{sys.implementation.name} {major}.{minor}.{micro} {level} {serial} {sys.implementation.cache_tag}"


def _digest(*parts: str) -> str:
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


# ---------------------------------------------------------------------------------------------
# Where a path or a module comes from: a distribution, the standard library, or a plain file
# ---------------------------------------------------------------------------------------------

def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _holds_distributions(path: str) -> bool:
    try:
        return any(e.name.endswith((".dist-info", ".egg-info")) for e in os.scandir(path))
    except OSError:
        return False


def _scan_by_name() -> dict[str, metadata.Distribution]:
    by_name: dict[str, metadata.Distribution] = {}
    for dist in metadata.distributions():
        found = dist.metadata["Name"] if dist.metadata is not None else None
        if found:
            by_name.setdefault(_norm(found), dist)
    return by_name


#: The last scans of the installed distributions, with the folders of sys.path as they stood
#: (installing, removing or upgrading a package adds or removes a ``*.dist-info`` folder in one
#: of them, which changes its time): a new Environment (each build, each rebuild of `mkdocs
#: serve`) scans again only when one of them changed. A scan reads every METADATA: 0.1-0.3 s.
_SCANS: dict[str, tuple[tuple, object]] = {}


def _installed(what: str, scan: Callable):
    stamp = []
    for entry in sys.path:
        try:
            stamp.append((entry, os.stat(entry or ".").st_mtime_ns))
        except OSError:
            stamp.append((entry, None))
    stamp = tuple(stamp)
    kept = _SCANS.get(what)
    if kept is None or kept[0] != stamp:
        kept = _SCANS[what] = (stamp, scan())
    return kept[1]


class Environment:
    """Classifies paths and modules; memoises distribution lookups for one process."""

    def __init__(self) -> None:
        sites = set(site.getsitepackages()) | {site.getusersitepackages()}
        sites |= {sysconfig.get_paths()[k] for k in ("purelib", "platlib")}
        sites |= {p for p in sys.path if p and _holds_distributions(p)}     # PYTHONPATH, --target
        self.sites = sorted({os.path.realpath(s) for s in sites if s}, key=len, reverse=True)
        stdlib = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib")}
        self.stdlib = sorted({os.path.realpath(s) for s in stdlib if s}, key=len, reverse=True)
        self._top_to_dists: dict[str, list[str]] | None = None
        self._closure: dict[str, dict[str, str]] = {}
        self._by_name: dict[str, metadata.Distribution] | None = None
        self._versions: dict[str, str] = {}
        self._classified: dict[str, tuple[str, str] | None] = {}

    def distribution(self, name: str) -> metadata.Distribution | None:
        """The installed distribution ``name`` (normalised), as ``metadata.distribution`` finds
        it (the first on ``sys.path``), from one scan of ``sys.path`` instead of one per name."""
        if self._by_name is None:
            self._by_name = _installed("by name", _scan_by_name)
        return self._by_name.get(_norm(name))

    def version(self, name: str) -> str:
        """``name``'s installed version: "absent" if it is not installed, "?" if it has none."""
        key = _norm(name)
        if key not in self._versions:          # Distribution.version parses its METADATA each time
            dist = self.distribution(key)
            self._versions[key] = "absent" if dist is None else (dist.version or "?")
        return self._versions[key]

    def top_to_dists(self) -> dict[str, list[str]]:
        if self._top_to_dists is None:
            self._top_to_dists = _installed("top-level", metadata.packages_distributions)
        return self._top_to_dists

    def classify(self, path: str) -> tuple[str, str] | None:
        """("dist", name) / ("file", realpath) / None for the standard library and devices."""
        if path not in self._classified:          # a build asks about the same paths for each block
            self._classified[path] = self._classify(path)
        return self._classified[path]

    def _classify(self, path: str) -> tuple[str, str] | None:
        real = os.path.realpath(path)
        if real.startswith(("/dev/", "/proc/", "/sys/")):
            return None
        for base in self.sites:
            if real.startswith(base + os.sep):
                first = real[len(base) + 1:].split(os.sep, 1)[0]
                m = re.match(r"(.+?)-[^-]+\.(?:dist|egg)-info$", first)
                if m:
                    return ("dist", _norm(m[1]))
                top = first.split(".", 1)[0] if first.endswith((".py", ".so", ".pth")) else first
                dists = self.top_to_dists().get(top)
                if dists:
                    return ("dist", _norm(dists[0]))
                return ("file", real)       # in site-packages but no distribution claims it
        for base in self.stdlib:
            if real.startswith(base + os.sep) and f"{os.sep}site-packages{os.sep}" not in real:
                return None
        return ("file", real)

    def dist_closure(self, name: str) -> dict[str, str]:
        """``name``'s version and those of the distributions it requires, transitively."""
        name = _norm(name)
        if name in self._closure:
            return self._closure[name]
        out: dict[str, str] = {}
        todo = [name]
        while todo:
            current = todo.pop()
            if current in out:
                continue
            dist = self.distribution(current)
            out[current] = self.version(current)
            if dist is None:
                continue
            for req in dist.requires or []:
                if "extra ==" in req or "extra==" in req:
                    continue
                m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
                if m and _norm(m[1]) not in out:
                    todo.append(_norm(m[1]))
        self._closure[name] = out
        return out

    def module_origin(self, name: str) -> str | None:
        """The file a top-level module is loaded from (None: built-in, namespace or absent)."""
        mod = sys.modules.get(name)
        path = getattr(mod, "__file__", None) if mod is not None else None
        if path is None and mod is None:
            try:
                spec = importlib.util.find_spec(name)
            except (ImportError, ValueError):
                return None
            path = spec.origin if spec is not None and spec.has_location else None
        return path


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@functools.lru_cache(maxsize=1024)       # esm's modules are parsed once per process, not once per block
def imports_of(code: str) -> frozenset[str]:
    """Absolute module names imported anywhere in ``code`` (functions included), and string
    constants shaped like a module name: a package found by name (``find_spec("pkg")``,
    ``importlib.resources.files("pkg")``) and read without an import counts too (names that
    are no installed module are dropped later)."""
    return frozenset(_imports_of(code))


@functools.lru_cache(maxsize=1024)
def relative_imports_of(code: str, package: str) -> frozenset[str]:
    """Absolute names of the modules that ``code``, a module of ``package``, imports relatively
    (``from . import x``, ``from .x import y``, ``from ..x import y``)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return frozenset()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            parts = package.split(".")
            base = ".".join(parts[:len(parts) - node.level + 1]) if node.level <= len(parts) else ""
            if not base:
                continue
            module = f"{base}.{node.module}" if node.module else base
            names.add(module)
            names |= {f"{module}.{alias.name}" for alias in node.names}
    return frozenset(names)


def _imports_of(code: str) -> set[str]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _NAME.match(node.value):
            names.add("string:" + node.value)
    return names


# ---------------------------------------------------------------------------------------------
# Recording what a run reads
# ---------------------------------------------------------------------------------------------

_WRITE = re.compile(r"[wax+]")
#: the recorder active in this thread (a new thread starts with none)
_ACTIVE: ContextVar["Recorder | None"] = ContextVar("esm_recorder", default=None)


def _audit(event: str, args: tuple) -> None:
    if event not in ("open", "import"):
        return
    rec = _ACTIVE.get()
    if rec is None:
        return
    if event == "open":
        path, mode, flags = args[0], args[1], args[2] if len(args) > 2 else 0
        if isinstance(path, (str, bytes, os.PathLike)):
            path = os.fsdecode(path)
            if isinstance(mode, str):
                written = bool(_WRITE.search(mode))
            else:                          # os.open: no mode string, only flags
                written = bool((flags or 0) & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))
            (rec.written if written else rec.opened).add(os.path.abspath(path))
    elif event == "import":
        rec.modules.add(args[0])


@functools.cache
def _install_hook() -> None:
    """Once per process: audit hooks cannot be removed (it idles when no recorder is active)."""
    sys.addaudithook(_audit)


class Recorder:
    """Collects the paths opened and the modules first imported by this thread while active."""

    def __init__(self) -> None:
        self.opened: set[str] = set()
        self.written: set[str] = set()
        self.modules: set[str] = set()

    @contextmanager
    def active(self):
        _install_hook()
        token = _ACTIVE.set(self)
        try:
            yield self
        finally:
            _ACTIVE.reset(token)


# ---------------------------------------------------------------------------------------------
# The cache
# ---------------------------------------------------------------------------------------------

def _stored(path: str) -> str:
    """A dependency's path as an entry records it: relative to the working directory (the
    project's folder, where the build runs) when it lies below it, so that a cache made in one
    checkout serves another in any folder; absolute otherwise. Read back from another working
    directory, a relative path names another file, whose hash differs: the entry runs again."""
    cwd = os.path.realpath(os.getcwd())          # the paths compared are real paths too
    return os.path.relpath(path, cwd) if path.startswith(cwd + os.sep) else path


class ExecCache:
    """Entries under ``directory`` (None: the cache is off and ``run`` always runs)."""

    def __init__(self, directory: Path | None, *, ignore: Iterable[Path] = ()) -> None:
        self.dir = Path(directory) if directory is not None else None
        self.env = Environment()
        self.stats: Counter = Counter()
        self.ignore = [os.path.realpath(p) for p in ignore]
        if self.dir is not None:
            self.ignore.append(os.path.realpath(self.dir))
        self._hashes: dict[str, tuple] = {}      # path -> (its stat when hashed, hash)
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.dir is not None

    def new_build(self) -> None:
        """Forget the file hashes and package versions of the previous build (``mkdocs serve``):
        files and installed packages are read again."""
        with self._lock:
            self._hashes.clear()
            self.env = Environment()
        self.stats.clear()

    # -- keys and dependencies -----------------------------------------------------------------

    def file_hash(self, path: str) -> str | None:
        """The file's content hash, remembered while its time, size and inode stay the same (a
        file edited between two rebuilds that `mkdocs serve` makes without a new_build is read
        again)."""
        try:
            st = os.stat(path)
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            stamp = None
        with self._lock:
            known = self._hashes.get(path)
            if known is not None and stamp is not None and known[0] == stamp:
                return known[1]
        try:
            h = hashlib.sha256()
            with open(path, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
            value: str | None = h.hexdigest()
        except FileNotFoundError:
            value = None
        except IsADirectoryError:
            value = "directory"
        except OSError:
            value = "unreadable"
        with self._lock:
            self._hashes[path] = (stamp, value)
        return value

    def _ignored(self, path: str) -> bool:
        return any(path == base or path.startswith(base + os.sep) for base in self.ignore)

    def dependencies(self, codes: Iterable[str], rec: Recorder | None = None) -> dict:
        """Files (hash) and distributions (version) that code and what it recorded depend on."""
        files: dict[str, str | None] = {}
        dists: dict[str, str] = {}

        def add_path(path: str) -> None:
            kind = self.env.classify(path)
            if kind is None:
                return
            if kind[0] == "dist":
                dists.update(self.env.dist_closure(kind[1]))
            elif not self._ignored(kind[1]):
                files[_stored(kind[1])] = self.file_hash(kind[1])

        seen: set[str] = set()
        todo = set()
        for code in codes:
            todo |= imports_of(code)
        if rec is not None:
            todo |= rec.modules
        while todo:
            name = todo.pop()
            if name.startswith("string:"):          # a package named in a string: its version
                dist = self.env.top_to_dists().get(name[7:])
                if dist:
                    dists.update(self.env.dist_closure(dist[0]))
                continue
            top = name.split(".", 1)[0]
            for candidate in {name, top}:
                if candidate in seen:
                    continue
                seen.add(candidate)
                mod = sys.modules.get(candidate)
                origin = getattr(mod, "__file__", None) if mod is not None else None
                if origin is None and candidate == top:
                    origin = self.env.module_origin(top)
                if origin is None:
                    continue
                kind = self.env.classify(origin)
                add_path(origin)
                if kind is not None and kind[0] == "file" and origin.endswith(".py"):
                    try:   # a local module: what it imports counts too, relative imports included
                        source = Path(origin).read_text(encoding="utf-8")
                        package = candidate if origin.endswith("__init__.py") else candidate.rpartition(".")[0]
                        todo |= (imports_of(source) | (relative_imports_of(source, package) if package else set())) - seen
                    except OSError:
                        pass
        if rec is not None:
            for path in sorted(rec.opened - rec.written):
                if path.endswith(".pyc"):
                    continue        # bytecode: its source (opened too, or hashed) decides
                add_path(path)
        return {"files": dict(sorted(files.items())), "dists": dict(sorted(dists.items()))}

    def _valid(self, deps: dict) -> bool:
        for path, digest in deps.get("files", {}).items():
            if self.file_hash(os.path.join(os.path.realpath(os.getcwd()), path)) != digest:   # an absolute one stays
                return False
        for name, version in deps.get("dists", {}).items():
            if self.env.version(name) != version:
                return False
        return True

    def primary(self, kind: str, parts: Iterable[str]) -> str:
        return _digest(f"esm-exec {FORMAT}", kind, interpreter(), *parts)

    # -- entries -------------------------------------------------------------------------------

    def _path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def peek(self, kind: str, parts: Iterable[str]) -> bool:
        """Whether ``get`` would serve a value (only discarded entries are counted)."""
        stats = self.stats
        self.stats = Counter()
        try:
            return self.get(kind, parts) is not None
        finally:            # an entry deleted as corrupt while peeking is still counted
            stats["discarded"] += self.stats["discarded"]
            self.stats = stats

    def get(self, kind: str, parts: Iterable[str], *, records: bool = False):
        """The stored value for this key if its dependencies are unchanged, else None; with
        ``records``, the value and the records stored with it."""
        if self.dir is None:
            return None
        key = self.primary(kind, parts)
        path = self._path(key)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            self.stats["miss"] += 1
            return None
        except OSError:
            self._discard(path)
            return None
        try:
            entry = json.loads(raw)
            body = entry["body"]
            ok = (entry["format"] == FORMAT and entry["key"] == key
                  and entry["sha256"] == hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest())
            value, deps = body["value"], body["deps"]
            if records:
                value = (value, list(body["records"]))
        except (ValueError, KeyError, TypeError):
            ok = False
        if not ok:
            self._discard(path)
            return None
        if not self._valid(deps):
            self.stats["stale"] += 1
            return None
        self.stats["hit"] += 1
        return value

    def _discard(self, path: Path) -> None:
        self.stats["discarded"] += 1
        try:
            path.unlink()
        except OSError:
            pass

    def put(self, kind: str, parts: Iterable[str], value, deps: dict, records: list | None = None,
            seconds: float | None = None) -> None:
        if self.dir is None:
            return
        key = self.primary(kind, parts)
        body = {"kind": kind, "value": value, "deps": deps}
        if records is not None:
            body["records"] = records
        entry = {"format": FORMAT, "key": key, "body": body,
                 "sha256": hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()}
        if seconds is not None:            # the run's CPU time, for tools/timed.py (not part of the value)
            entry["seconds"] = round(seconds, 3)
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(entry, f)
            os.replace(tmp, path)          # readers see the old entry or the new one, whole
            self.stats["stored"] += 1
        except OSError:                    # a cache that cannot be written only costs time
            self.stats["unwritable"] += 1

    def run(self, kind: str, parts: list[str], fn: Callable[[], str], *, code: str, records: bool = False,
            prepare: Callable[[], None] = lambda: None):
        """``fn()``'s output, from the cache when valid; recorded and stored when it succeeds.
        With ``records``, ``fn()`` returns (output, records), stored together and returned so.
        ``prepare()`` runs first when ``fn`` is about to run, outside the recording (what it
        imports or opens is not the code's)."""
        if self.dir is None:
            prepare()
            return fn()
        cached = self.get(kind, parts, records=records)
        if cached is not None:
            return cached
        prepare()
        rec = Recorder()
        start = time.process_time()
        with rec.active():
            result = fn()                  # an exception propagates: nothing is stored
        output, made = result if records else (result, None)
        self.put(kind, parts, output, self.dependencies([code], rec), made, time.process_time() - start)
        self.stats["ran"] += 1
        return result


# ---------------------------------------------------------------------------------------------
# Running blocks ahead of the build in worker processes (execution.py plans them)
# ---------------------------------------------------------------------------------------------

@functools.cache
def _worker_cache(directory: str) -> ExecCache:
    """A worker process's cache (one for the worker's life)."""
    return ExecCache(Path(directory))


def run_block_in_worker(directory: str, parts: list[str], code: str, block_id: str,
                        returncode: int, extra: dict) -> bool:
    """In a worker process: run one block exactly as the build runs it (execution.run_block)
    and store its output and records in the cache. False if it failed: nothing is stored, and the build runs
    it again in-process (where its error is reported, naming page and block)."""
    from .execution import before_block, run_block

    cache = _worker_cache(directory)
    try:
        cache.run("block", parts, lambda: run_block(code, returncode, None, block_id, **extra), code=code,
                  records=True, prepare=lambda: before_block(Path(directory) / "train"))
    except Exception:               # noqa: BLE001 - the in-process run reports it
        return False
    return True
