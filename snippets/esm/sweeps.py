"""Recorded seed sweeps: what a page claims about a run too costly to repeat in a build (the primer's
training), measured over many seeds by ``tools/seed_sweep.py`` (``make sweep``) and kept in
``records/<name>.json`` beside this module. A page reads a record like a cited figure: its date
and command go into the prose with the spread (`Record.cited`, `Record.spread`), and the build
checks its own run against it (`Record.matches`).

A module of the esm package that its ``__init__`` does not re-export (demos import it as
``esm.sweeps``). It only reads: the sweeps themselves, and what each quantity is, are defined in
tools/seed_sweep.py.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

__all__ = ["RECORDS", "Record", "record"]

#: Where the records are: records/<name>.json beside this module (so that a page notebook, which
#: carries esm's files, carries the records its demos read).
RECORDS = Path(__file__).resolve().parent / "records"


class Record:
    """One sweep's record: ``date``, ``command``, ``commit``, ``numpy``, ``seeds`` and, per
    quantity, the value of every seed (`values`) and its spread."""

    def __init__(self, data: dict) -> None:
        self.data = data
        self.name, self.date, self.command = data["name"], data["date"], data["command"]
        self.commit, self.numpy = data["commit"], data["numpy"]
        self.seeds = [int(s) for s in data["seeds"]]
        self.per_seed = {int(s): v for s, v in data["per_seed"].items()}
        #: How closely a build's run of a recorded seed must agree with the record (relative, per
        #: value): the sweep's measured spread across CPU paths with a margin (``agreement`` in the
        #: record, set in tools/seed_sweep.py), or 1e-9 where rounding cannot build up.
        self.rtol = float(data.get("agreement", {}).get("rtol", 1e-9))
        #: The quantities of such a run whose rounding does not grow (its start): these keep 1e-9.
        self.exact = set(data.get("agreement", {}).get("exact", ()))
        #: Per seed, the curves some sweeps keep beside their numbers (each a list, by name).
        self.curves = {int(s): c for s, c in data.get("curves", {}).items()}

    def values(self, q: str) -> dict[int, float]:
        """The quantity ``q`` of every recorded seed."""
        return {s: self.per_seed[s][q] for s in self.seeds}

    def curve(self, seed: int, name: str) -> list[float]:
        """The curve ``name`` of a recorded seed (a sweep that keeps curves: ``curves_about`` says what
        each is)."""
        return self.curves[seed][name]

    def spread(self, q: str, decimals: int | None = None) -> tuple[float, float]:
        """(min, max) of ``q`` over the recorded seeds; with ``decimals``, rounded outward (the
        minimum down, the maximum up), so that the printed range holds every recorded value."""
        v = self.values(q).values()
        if decimals is None:
            return min(v), max(v)
        scale = 10 ** decimals
        return math.floor(min(v) * scale) / scale, math.ceil(max(v) * scale) / scale

    def mean(self, q: str) -> float:
        v = self.values(q).values()
        return math.fsum(v) / len(v)

    def share(self, q: str, holds) -> float:
        """The share of the recorded seeds whose ``q`` satisfies ``holds``."""
        return sum(bool(holds(v)) for v in self.values(q).values()) / len(self.seeds)

    def cited(self) -> str:
        """How a check cites the record: its seeds and date (the command that makes it is in the
        record, and in the message of a check that finds it stale)."""
        return f"{len(self.seeds)} seeds, recorded on {self.date}"

    def matches(self, seed: int, measured: dict[str, float], rtol: float | None = None) -> tuple[bool, str]:
        """Whether this build's run agrees with the record: when ``seed`` is a recorded seed, every
        value of ``measured`` is the recorded one (to ``rtol``, by default the record's `rtol`: above
        what another CPU's rounding gives, and far below the digits a page shows of its own run; a run
        whose rounding differences grow, P16's, has a wider bound, and its page shows the record's values);
        otherwise each lies inside the recorded [min, max]. Returns (holds, a detail naming the
        quantities that do not)."""
        exact = self.exact & set(measured)                # to 1e-9, or rtol if tighter
        rtol = self.rtol if rtol is None else rtol
        bad, n = [], f"{len(measured)} value" + "s" * (len(measured) != 1)
        if seed in self.per_seed:
            for q, v in measured.items():
                r, tol = self.per_seed[seed][q], min(rtol, 1e-9) if q in exact else rtol
                if not abs(v - r) <= tol * max(1.0, abs(r)):
                    bad.append(f"{q} {v!r} != recorded {r!r}")
            how = f"seed {seed} is recorded: {n} equal to rtol {rtol:g}" + (
                f" ({', '.join(sorted(exact))} to 1e-09)" if exact else "")
        else:
            for q, v in measured.items():
                lo, hi = self.spread(q)
                if not lo <= v <= hi:
                    bad.append(f"{q} {v:.6g} outside [{lo:.6g}, {hi:.6g}]")
            how = f"seed {seed} is not recorded: {n} inside the recorded [min, max]"
        stale = f"; the record ({self.date}, commit {self.commit[:10]}) is stale: run `{self.command}`"
        return not bad, how + ("; " + "; ".join(bad) + stale if bad else "")


def record(name: str) -> Record:
    """The record of the sweep ``name`` (records/<name>.json); a missing one names its command."""
    path = RECORDS / f"{name}.json"
    if not path.is_file():
        raise FileNotFoundError(f"no seed-sweep record {path}: run `make sweep SWEEP={name}` and commit it")
    with open(path, encoding="utf-8") as f:
        return Record(json.load(f))
