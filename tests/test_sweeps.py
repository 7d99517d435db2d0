"""Seed-sweep records (tools/seed_sweep.py, `make sweep`; read by esm.sweeps): each record is well
formed and names the command that regenerates it, its summary is its per-seed values', the reader
compares a run with it as the pages rely on, and recorded seeds rerun give the recorded values
(the initialisation of every seed, marked `sweep`; 5.2's runs). A whole training run of a recorded seed
other than the build's is rerun by `make sweep` right after it writes the record (seed_sweep.verify),
not here: it costs minutes, and the record changes only there."""
from __future__ import annotations

import json
import math
import re

import pytest

import seed_sweep
from esm import sweeps

RECORDS = sorted(sweeps.RECORDS.glob("*.json"))


def test_every_named_sweep_has_its_record_and_every_record_a_sweep():
    assert {p.stem for p in RECORDS} == set(seed_sweep.SWEEPS)


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.stem)
def test_a_record_is_well_formed_and_names_its_command(path):
    rec = json.loads(path.read_text(encoding="utf-8"))
    sweep = seed_sweep.SWEEPS[path.stem]
    assert rec["name"] == path.stem
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", rec["date"])
    assert rec["command"] == f"make sweep SWEEP={path.stem}"       # the whole sweep, not a subset
    assert re.fullmatch(r"[0-9a-f]{40}", rec["commit"]) and rec["dirty"] is False
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", rec["numpy"])
    assert rec["seeds"] == sweep["seeds"]() and len(rec["seeds"]) >= 20
    assert rec["settings"] == sweep["settings"](), "the settings changed since the sweep: run its command"
    assert rec.get("agreement") == sweep.get("agreement")
    assert rec["quantities"] == sweep["quantities"]
    assert set(rec["per_seed"]) == {str(s) for s in rec["seeds"]}
    for values in rec["per_seed"].values():
        assert set(values) == set(rec["quantities"]) and all(math.isfinite(v) for v in values.values())
    assert rec["summary"] == seed_sweep.summary(rec["per_seed"])
    r = sweeps.record(path.stem)
    for q in rec["quantities"]:
        vals = [rec["per_seed"][str(s)][q] for s in rec["seeds"]]
        assert r.spread(q) == (min(vals), max(vals)) == (rec["summary"][q]["min"], rec["summary"][q]["max"])
        assert r.mean(q) == pytest.approx(sum(vals) / len(vals), rel=1e-14, abs=1e-15)   # fsum against a plain sum
    assert r.cited() == f"{len(rec['seeds'])} seeds, recorded on {rec['date']}"
    # curves, where a sweep keeps them: one of each named curve for every seed, equal lengths, finite
    assert rec.get("curves_about") == sweep.get("curves")
    if "curves" in sweep:
        assert set(rec["curves"]) == set(rec["per_seed"])
        lengths = {len(c) for per in rec["curves"].values() for c in per.values()}
        assert all(set(per) == set(sweep["curves"]) for per in rec["curves"].values()) and len(lengths) == 1
        assert all(math.isfinite(v) for per in rec["curves"].values() for c in per.values() for v in c)


def _fake():
    per = {"1": {"x": 1.0}, "2": {"x": 3.0}}
    return sweeps.Record({"name": "f", "date": "2026-01-01", "command": "make sweep SWEEP=f", "commit": "0" * 40,
                          "numpy": "2.0.0", "seeds": [1, 2], "per_seed": per})


def test_matches_a_recorded_seed_only_with_its_recorded_value():
    rec = _fake()
    assert rec.matches(2, {"x": 3.0})[0]
    assert rec.matches(2, {"x": 3.0 * (1 + 1e-12)})[0]
    ok, detail = rec.matches(2, {"x": 2.0})                 # inside the spread, but not seed 2's value
    assert not ok and "stale" in detail and "make sweep SWEEP=f" in detail


def test_a_recorded_seed_agrees_to_the_records_bound():
    rec = _fake()
    assert not rec.matches(2, {"x": 3.0 * (1 + 1e-8)})[0]          # no bound recorded: 1e-9
    rec = sweeps.Record({**rec.data, "agreement": {"rtol": 1e-6}})
    assert rec.rtol == 1e-6 and "rtol 1e-06" in rec.matches(2, {"x": 3.0})[1]
    assert rec.matches(2, {"x": 3.0 * (1 + 5e-7)})[0]
    assert not rec.matches(2, {"x": 3.0 * (1 + 2e-6)})[0]
    assert not rec.matches(2, {"x": 3.0 * (1 + 2e-6)}, rtol=1e-9)[0]
    # a quantity the record names exact keeps 1e-9 under a wider bound
    rec = sweeps.Record({**rec.data, "agreement": {"rtol": 1e-2, "exact": ["x"]}})
    assert rec.matches(2, {"x": 3.0 * (1 + 5e-10)})[0] and not rec.matches(2, {"x": 3.0 * (1 + 1e-6)})[0]


@pytest.mark.parametrize("name", [n for n in seed_sweep.SWEEPS if "agreement" in seed_sweep.SWEEPS[n]])
def test_a_records_bound_leaves_room_over_its_measured_spread_and_stays_below_a_pages_digits(name):
    """A bound far above the spread across CPU paths and below the digits a page prints of its own run.
    A run whose rounding differences grow fast (its sweep says "shown": "record": the page prints and draws
    the record's values, not its own run's) has a bound at least twice its measured spread on the recorded
    quantities, and an early stretch of its curves checked far tighter, where no two recorded seeds agree:
    the check still tells the seed (and its batches) from every other."""
    bound = seed_sweep.SWEEPS[name]["agreement"]
    if bound.get("shown") == "record":
        assert 2 * bound["measured"] <= bound["rtol"]
        early = bound["early"]
        assert 100 * early["measured"] <= early["rtol"] <= 1e-5
        rec = sweeps.record(name)
        steps = rec.data["settings"]["eval_every"]
        k = early["steps"] // steps + 1                      # evaluations at steps 0 .. early["steps"]
        curves = {s: [v for c in sorted(rec.curves[s]) for v in rec.curves[s][c][:k]] for s in rec.seeds}
        for a in rec.seeds:
            for b in rec.seeds:
                if a < b:
                    assert max(abs(x - y) / abs(y) for x, y in zip(curves[a], curves[b])) > early["rtol"], (a, b)
    else:
        assert 100 * bound["measured"] <= bound["rtol"] <= 1e-5


def test_matches_another_seed_inside_the_recorded_spread():
    rec = _fake()
    assert rec.matches(7, {"x": 1.0})[0] and rec.matches(7, {"x": 2.5})[0]
    assert not rec.matches(7, {"x": 3.5})[0] and not rec.matches(7, {"x": 0.9})[0]
    assert rec.share("x", lambda v: v > 2) == 0.5


def test_a_missing_record_names_the_command():
    with pytest.raises(FileNotFoundError, match="make sweep SWEEP=nothing"):
        sweeps.record("nothing")


@pytest.mark.sweep
@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.stem)
def test_the_initialisation_of_every_recorded_seed_gives_the_recorded_values(path):
    """A few forward passes a seed, about 8 CPU-s for P11's 20 (`make test` runs it, `make check`
    leaves it with the other reruns of a record): the quantities P11's initial-loss claims and the
    std 0.1 question rely on, for every seed of the record; P16's loss before training likewise."""
    cheap = {"p11": seed_sweep.p11_init, "p16": seed_sweep.p16_init}
    if path.stem not in cheap:
        pytest.skip("no cheap part")
    rec = sweeps.record(path.stem)
    for seed in rec.seeds:
        ok, detail = rec.matches(seed, cheap[path.stem](seed))
        assert ok, detail


def test_the_seeds_at_the_extremes_of_the_sgns_record_rerun_to_it():
    """5.2's learned space (a training run of a fraction of a second): every seed at which a
    recorded quantity reaches its min or max, rerun with the demo's code, gives every recorded value;
    the page's thresholds are those extremes."""
    rec = sweeps.record("sgns")
    extremes = sorted({s for q in rec.data["quantities"] for s in (rec.data["summary"][q]["seed_min"],
                                                                   rec.data["summary"][q]["seed_max"])})
    for seed in extremes:
        ok, detail = rec.matches(seed, seed_sweep.sgns(seed))
        assert ok, detail


def test_a_passing_match_says_how_and_nothing_more():
    rec = _fake()
    assert rec.matches(2, {"x": 3.0}) == (True, "seed 2 is recorded: 1 value equal to rtol 1e-09")
    assert rec.matches(7, {"x": 2.0}) == (True, "seed 7 is not recorded: 1 value inside the recorded [min, max]")


def test_spread_rounds_outward_to_the_decimals_asked():
    """0.123 and 0.456: the minimum rounded down, the maximum up."""
    rec = sweeps.Record({**_fake().data, "per_seed": {"1": {"x": 0.123}, "2": {"x": 0.456}}})
    assert rec.spread("x", 2) == (0.12, 0.46)
    assert rec.spread("x", 0) == (0.0, 1.0)
    assert rec.spread("x", 1) == (0.1, 0.5)
