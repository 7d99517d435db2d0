"""Structured values: a block's checks and published values reach the plugin as records that
esm's helpers raise (audit events) and the build's runner hears (execution.run_block), not as
printed lines read back; the cache keeps them with the output."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "snippets"))

from mkdocs_esm import execcache, execution, output  # noqa: E402

import printed  # noqa: E402

BLOCK = '''from esm import check_close, check_equal, glue
x = check_close("the sum", 1.0 + 2.0, 3.0, eq="sum")
print("a table row | with PASS in it")
print(glue("v", 2.5, ".1f"), glue("n", 3), sep="")
print("".join([glue("joined", 1234, ","), glue("again", 0.5, ".0%")]))
print(x)
print(check_equal("a count", 2, 2))
'''


def test_records_name_what_was_checked_and_published_and_where():
    out, records = execution.run_block(BLOCK, id="t")
    lines = out.split("\n")
    by = {(r["kind"], r.get("name") or r["claim"]): r for r in records}
    assert set(by) == {("check", "the sum"), ("check", "a count"), ("value", "v"), ("value", "n"),
                       ("value", "joined"), ("value", "again")}
    assert by["value", "v"]["value"] == 2.5 and by["value", "v"]["fmt"] == ".1f" and by["value", "v"]["text"] == "2.5"
    assert by["check", "the sum"]["eq"] == "sum"
    for r in records:                          # each stands on the line it was printed on
        assert r["line"] is not None
        assert lines[r["line"]].startswith("PASS" if r["kind"] == "check" else f"value {r['name']} = ")


def test_the_page_made_from_records_is_the_page_made_from_the_text():
    out, records = execution.run_block(BLOCK, id="t")
    assert output.for_page(out, records) == printed.for_page(out)
    assert sorted(records, key=lambda r: r["line"]) == printed.records_of(out)


def test_a_check_or_value_printed_nowhere_is_not_lost():
    code = ('from esm import check_close, glue\nprint("hello")\ncheck_close("quiet", 1, 1, eq="q")\n'
            'glue("hidden", 7)\n')
    out, records = execution.run_block(code, id="t")
    assert out == "hello\n" and [r["line"] for r in records] == [None, None]
    page = output.for_page(out, records)
    assert "1 check passed" in page and 'data-eq="q"' in page and "quiet" in page
    assert output.marker("hidden", 7, "") in page
    assert printed.for_page(out) == out        # read back from the text, both were lost


def test_a_line_that_only_looks_like_a_record_is_left_as_printed():
    code = 'print("PASS [x] hand-made — not a check")\nprint("value y = 1  [ of 1]")\n'
    out, records = execution.run_block(code, id="t")
    assert records == [] and output.for_page(out, records) == out


def test_the_cache_keeps_the_records_with_the_output(tmp_path):
    cache = execcache.ExecCache(tmp_path)
    parts = ["code", "id"]
    made = cache.run("block", parts, lambda: execution.run_block(BLOCK, id="t"), code=BLOCK, records=True)
    again = execcache.ExecCache(tmp_path).run("block", parts, lambda: 1 / 0, code=BLOCK, records=True)
    assert again[0] == made[0] and again[1] == made[1] and made[1]
    assert execcache.ExecCache(tmp_path).get("block", parts) == made[0]    # the output alone, as before


def test_without_a_runner_the_helpers_print_as_before():
    from esm import check_close, glue
    assert glue("v", 2.5, ".1f") == "\nvalue v = 2.5  [.1f of 2.5]\n"
    assert check_close("c", 1, 1) == "PASS c — expected 1, |got - expected| <= 1e-09"
