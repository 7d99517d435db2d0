"""`make portable`: the same book on every CPU path. Builds the site under deliberately different
CPU paths this host can run, each from an empty execution cache, and diffs the builds byte for
byte (pages, page notebooks, the theory notebook, the search index, figures' data files); then
runs every demo alone, as a reader runs it, with BLAS on one thread and on four, and diffs what
they print. Prints every difference as text, and exits 1 if there is any; silent agreement
ends with one line.

    python tools/portable.py                 # every path below that this host supports
    python tools/portable.py --paths 2       # the first two only (native and one other)
    python tools/portable.py --list          # the paths, and which this host supports
    python tools/portable.py --diff A B      # only compare two built sites (CI: x86-64 and arm64)

A CPU path is what decides how a float computation is rounded on a machine: OpenBLAS's kernel
(``OPENBLAS_CORETYPE``; numpy's wheels choose one by CPU at import), numpy's own SIMD loops
(``NPY_DISABLE_CPU_FEATURES`` turns targets off) and the number of BLAS threads (a sum split over
threads is added in another order). The book states rounding-level results only as bounds, so
every path must give the same bytes. A kernel that needs instructions the host lacks cannot be
forced (it would stop on an illegal instruction): such paths are skipped and listed.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import os
import platform
import re
import runpy
import shutil
import subprocess
import sys
import time
from pathlib import Path

import measurements

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / ".cache" / "portable"
MKDOCS = Path(sys.executable).with_name("mkdocs")

NO_AVX512 = "X86_V4 AVX512_ICL AVX512_SPR"
NO_AVX2 = NO_AVX512 + " X86_V3"

#: (name, environment, CPU flags the path needs). The first is the reference. Every listed value
#: of each knob is tried at least once: kernels Prescott, Haswell, SkylakeX, SapphireRapids, Zen;
#: numpy's SIMD native, without AVX-512, without AVX2 either. Builds run each block on one BLAS
#: thread (mkdocs_esm.execution); the demos-alone pass tries one and four.
X86_PATHS = [
    ("SkylakeX, numpy native", {"OPENBLAS_CORETYPE": "SkylakeX"}, {"avx512f", "avx512bw", "avx512vl"}),
    ("Haswell, numpy without AVX-512", {"OPENBLAS_CORETYPE": "Haswell", "NPY_DISABLE_CPU_FEATURES": NO_AVX512},
     {"avx2", "fma"}),
    ("Prescott, numpy without AVX-512 and AVX2", {"OPENBLAS_CORETYPE": "Prescott", "NPY_DISABLE_CPU_FEATURES": NO_AVX2},
     set()),
    ("Zen, numpy native", {"OPENBLAS_CORETYPE": "Zen"}, {"avx2", "fma"}),
    ("SapphireRapids, numpy native", {"OPENBLAS_CORETYPE": "SapphireRapids"},
     {"avx512f", "avx512bw", "avx512vl", "avx512_bf16"}),
]
ARM_PATHS = [
    ("native", {}, set()),
    ("ARMV8 (generic), numpy native", {"OPENBLAS_CORETYPE": "ARMV8"}, set()),
]
#: Variables of the caller that would choose a path for every build: each build sets its own.
CLEARED = ("OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES", "NPY_ENABLE_CPU_FEATURES", "OPENBLAS_VERBOSE")


def cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    m = re.search(r"^flags\s*:(.*)$", text, re.M)
    return set(m[1].split()) if m else set()


def paths() -> list[tuple[str, dict, bool]]:
    """Every path for this host's architecture, with whether the host can run it."""
    if platform.machine().lower() in {"x86_64", "amd64"}:
        flags = cpu_flags()
        return [(name, env, needs <= flags) for name, env, needs in X86_PATHS]
    return [(name, env, True) for name, env, _ in ARM_PATHS]


def environment(extra: dict, cache: Path | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in CLEARED and not k.startswith("ESM_")}
    env.update(extra)
    env["SOURCE_DATE_EPOCH"] = os.environ.get("SOURCE_DATE_EPOCH") or subprocess.run(
        ["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True, text=True).stdout.strip() or "0"
    if cache is not None:
        env["ESM_CACHE_DIR"] = str(cache)          # empty: every block and the training run afresh
    return env


def build(name: str, extra: dict, index: int) -> Path:
    site, cache = WORK / f"site-{index}", WORK / f"cache-{index}"
    shutil.rmtree(site, ignore_errors=True)
    shutil.rmtree(cache, ignore_errors=True)
    start = time.monotonic()
    done = subprocess.run([str(MKDOCS), "build", "--strict", "--clean", "-q", "-d", str(site)], cwd=ROOT,
                          env=environment(extra, cache), capture_output=True, text=True)
    if done.returncode:
        sys.stdout.write(done.stdout + done.stderr)
        raise SystemExit(f"portable: the build under {name} failed (above)")
    print(f"built under {name} in {time.monotonic() - start:.0f} s", flush=True)
    return site


def _text(path: Path) -> list[str]:
    """A built file as lines to diff: HTML broken before its block elements, tags dropped, so
    that a difference reads as the sentence or the number that changed."""
    data = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".html":
        data = re.sub(r"(<(?:p|li|tr|td|th|pre|div|h\d|figcaption|math|svg|path|g|text)\b)", r"\n\1", data)
        return [line for line in (re.sub(r"<[^>]+>", "", raw).strip() or raw.strip() for raw in data.splitlines())
                if line]
    return data.splitlines()


def diff_trees(a: Path, b: Path, label: str) -> int:
    """Print the differences of two built sites; return how many files differ."""
    files_a = {p.relative_to(a) for p in a.rglob("*") if p.is_file()}
    files_b = {p.relative_to(b) for p in b.rglob("*") if p.is_file()}
    differ = 0
    for rel in sorted(files_a ^ files_b):
        differ += 1
        print(f"--- {label}: only in {'the reference' if rel in files_a else 'this build'}: {rel}")
    for rel in sorted(files_a & files_b):
        pa, pb = a / rel, b / rel
        if pa.read_bytes() == pb.read_bytes():
            continue
        differ += 1
        print(f"--- {label}: {rel} differs")
        if rel.suffix in {".html", ".json", ".ipynb", ".js", ".css", ".xml", ".txt", ".svg"}:
            lines = difflib.unified_diff(_text(pa), _text(pb), n=0, lineterm="")
            for line in list(lines)[2:60]:
                if not line.startswith("@@"):
                    print("   " + line[:400])
    return differ


# ---------------------------------------------------------------------------------------------
# Demos alone, as a reader runs them (one process per path, every demo in turn)
# ---------------------------------------------------------------------------------------------

#: A value line carries the value's full float after its format (``[.3f of 0.12345...]``) for the
#: build to reformat; the page shows only the formatted text, which is what must agree.
_RAW = re.compile(r"^(value [A-Za-z][A-Za-z0-9_]* = .*?)  \[[^\]]* of .*\]$", re.M)


def _demos() -> list[Path]:
    snippets = ROOT / "snippets"
    return sorted(p for p in snippets.rglob("*.py") if p.relative_to(snippets).parts[0] != "esm"
                  and "__pycache__" not in p.parts)


def run_demos(out: Path) -> None:
    """In this process: run every demo as `python demo.py` would, write what each printed."""
    sys.path.insert(0, str(ROOT / "snippets"))
    import matplotlib
    matplotlib.use("Agg")
    from threadpoolctl import threadpool_limits
    threads = int(os.environ.get("OPENBLAS_NUM_THREADS", "1"))
    out.mkdir(parents=True, exist_ok=True)
    for demo in _demos():
        threadpool_limits(limits=threads, user_api="blas")     # again: a demo may have set its own
        buffer = io.StringIO()
        cwd = os.getcwd()
        try:
            os.chdir(demo.parent)
            with contextlib.redirect_stdout(buffer):
                runpy.run_path(str(demo), run_name="__main__")
        finally:
            os.chdir(cwd)
        rel = demo.relative_to(ROOT / "snippets").as_posix().replace("/", "__")
        (out / f"{rel}.out").write_text(_RAW.sub(r"\1", buffer.getvalue()), encoding="utf-8")


def demos(name: str, extra: dict, index: int) -> Path:
    out = WORK / f"demos-{index}"
    shutil.rmtree(out, ignore_errors=True)
    start = time.monotonic()
    done = subprocess.run([sys.executable, __file__, "--run-demos", str(out)], cwd=ROOT,    # ESM_CACHE=0: P11 trains
                          env=environment({**extra, "ESM_CACHE": "0"}), capture_output=True, text=True)   # under this path
    if done.returncode:
        sys.stdout.write(done.stdout + done.stderr)
        raise SystemExit(f"portable: a demo failed under {name} (above)")
    print(f"ran the demos alone under {name} in {time.monotonic() - start:.0f} s", flush=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--paths", type=int, default=0, help="build under only the first N supported paths (at least 2)")
    ap.add_argument("--list", action="store_true", help="list the paths and whether this host supports them")
    ap.add_argument("--no-demos", action="store_true", help="skip the demos-alone pass (one and four BLAS threads)")
    ap.add_argument("--diff", nargs=2, type=Path, metavar=("SITE", "OTHER"),
                    help="only compare two built sites (CI: the x86-64 site against the arm64 one)")
    ap.add_argument("--run-demos", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.run_demos:
        run_demos(args.run_demos)
        return 0
    if args.diff:
        a, b = args.diff
        differ = diff_trees(a, b, f"{a} vs {b}")
        print(f"portable: {differ} files differ between {a} and {b}" if differ else f"portable: {a} and {b} are the same")
        return 1 if differ else 0
    every = paths()
    if args.list:
        for name, env, ok in every:
            print(f"{'yes' if ok else 'no ':3}  {name}  {' '.join(f'{k}={v!r}' for k, v in env.items())}")
        return 0
    usable = [(n, e) for n, e, ok in every if ok]
    skipped = [n for n, e, ok in every if not ok]
    if args.paths:
        usable = usable[:max(2, args.paths)]
    if len(usable) < 2:
        raise SystemExit("portable: this host supports fewer than two CPU paths; nothing to compare")
    WORK.mkdir(parents=True, exist_ok=True)
    differ = 0
    sites = [build(name, env, i) for i, (name, env) in enumerate(usable)]
    for (name, _), site in zip(usable[1:], sites[1:]):
        differ += diff_trees(sites[0], site, f"{usable[0][0]} vs {name}")
    if not args.no_demos:
        one = demos(f"{usable[0][0]}, 1 BLAS thread", {**usable[0][1], "OPENBLAS_NUM_THREADS": "1"}, 0)
        # OPENBLAS_THREAD_TIMEOUT=4: idle BLAS threads sleep at once instead of spinning (the
        # default spins 2^28 cycles), which on a loaded 2-core host made this pass 20x slower; it
        # changes how threads wait, not how the work is split or summed
        four = demos(f"{usable[-1][0]}, 4 BLAS threads", {**usable[-1][1], "OPENBLAS_NUM_THREADS": "4",
                                                          "OPENBLAS_THREAD_TIMEOUT": "4"}, 1)
        differ += diff_trees(one, four, "demos alone, 1 vs 4 BLAS threads")
    names = "; ".join(n for n, _ in usable)
    if skipped:
        print(f"skipped (this CPU cannot run them): {'; '.join(skipped)}")
    measurements.record("portable", "make portable", {"paths": [n for n, _ in usable], "skipped": skipped,
                                                      "demos_1_vs_4_threads": not args.no_demos, "files_differ": differ})
    if differ:
        print(f"portable: {differ} files differ between CPU paths ({names})")
        return 1
    print(f"portable: the same site under {len(usable)} CPU paths ({names}), and the same demo output "
          f"with 1 and 4 BLAS threads" if not args.no_demos else
          f"portable: the same site under {len(usable)} CPU paths ({names})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
