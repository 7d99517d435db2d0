"""tools/measurements.py: the measuring tools append one JSON line per measurement to a file kept
out of git; `MEASUREMENTS=` turns it off; a line cut short is skipped when read."""

from __future__ import annotations

import json

import measurements


def test_a_measurement_is_one_json_line_with_its_context(tmp_path, monkeypatch):
    target = tmp_path / "m.jsonl"
    monkeypatch.setenv("MEASUREMENTS", str(target))
    first = measurements.record("timed", "make check", {"wall_s": 12.5}, cpu_index="1500")
    measurements.record("bench", "make bench", {"rows": {"warm build": {"median_s": 2.1}}})
    lines = target.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and json.loads(lines[0]) == first
    assert first["tool"] == "timed" and first["label"] == "make check" and first["wall_s"] == 12.5
    assert first["host"]["cpu_index"] == "1500" and first["host"]["cpus"] >= 1
    assert first["commit"] and first["time"].endswith("+00:00")
    with target.open("a", encoding="utf-8") as out:
        out.write('{"tool": "cut sho')                      # a run killed while writing
    assert [m["tool"] for m in measurements.read()] == ["timed", "bench"]


def test_measurements_can_be_turned_off_and_default_to_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MEASUREMENTS", "")
    assert measurements.record("timed", "x", {}) is None and measurements.read() == []
    monkeypatch.delenv("MEASUREMENTS")
    assert measurements.path() == measurements.ROOT / ".cache" / "measurements.jsonl"
    assert ".cache/" in (measurements.ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()


def test_every_measuring_tool_records(tmp_path):
    for tool in ("bench", "lighthouse", "timed", "portable"):
        source = (measurements.ROOT / "tools" / f"{tool}.py").read_text(encoding="utf-8")
        assert f'measurements.record("{tool}"' in source, tool
