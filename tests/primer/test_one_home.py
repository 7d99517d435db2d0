"""One home per idea (COMMON decisions of issue 32): the primer, its skill checks and the theory
notebook state GPT-2 small's total only in chapter P8, do not re-tell the river/savings "bank"
example (home: section 1.4) or the "ids are addresses" non-example (home: section 1.1)."""

from __future__ import annotations

import re

from conftest import DOCS, SNIPPETS

P8 = {"primer/counting-gpt2.md", "skill-checks/primer-8-counting-gpt2.yml"}


def files():
    paths = [*DOCS.glob("primer/*.md"), *DOCS.glob("skill-checks/primer-*.yml"), DOCS / "notebook" / "theory.py",
             DOCS / "index.md", DOCS / "overview.md", DOCS / "notation.md", DOCS / "notation-full.md"]
    return {p.relative_to(DOCS).as_posix(): p.read_text(encoding="utf-8") for p in paths}


def test_gpt2_small_total_is_stated_only_in_its_chapter():
    total = re.compile(r"124[,_ ]?439[,_ ]?808|124\s*million|counting-gpt2\.md#total")
    outside = sorted(name for name, text in files().items() if name not in P8 and total.search(text))
    assert not outside, f"GPT-2 small's total stated outside chapter P8: {outside}"


def test_primer_demos_do_not_print_gpt2_small_total():
    # kv_cache.py (P13) needs the parameter count to size the weights in bytes; it prints sizes in MB only.
    total = re.compile(r"124[,_]?439[,_]?808")
    users = sorted(p.relative_to(SNIPPETS).as_posix() for p in SNIPPETS.glob("primer/**/*.py") if total.search(p.read_text()))
    assert set(users) <= {"primer/counting-gpt2/count.py", "primer/modern-block/kv_cache.py"}, users


def test_the_bank_example_is_not_retold():
    bank = re.compile(r"river bank|deposited money|savings bank|\bbank\b.*\bbank\b", re.I)
    retold = sorted(name for name, text in files().items() if bank.search(text))
    assert not retold, f"the bank example lives in section 1.4; re-told in {retold}"


def test_ids_are_addresses_lives_in_section_1_1():
    addresses = re.compile(r"`dog` would sit between|id 7 is not more than|an order and a distance the words do not have",
                           re.I)
    found = sorted(name for name, text in files().items() if addresses.search(text))
    assert not found, found
