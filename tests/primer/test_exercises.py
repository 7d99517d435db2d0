"""The exercises of the primer: each part labelled with its kind, each exercise naming its section,
hints and solutions folded, debugging tasks whose broken code fails its check."""

from __future__ import annotations

import pytest

from exercises_common import check_built, check_debug_demo, check_page

PAGE = "primer/exercises.md"


def test_exercises_are_labelled_and_folded():
    check_page(PAGE)


@pytest.mark.parametrize("demo", ['primer/exercises/sqrt_bug', 'primer/exercises/decay_bug',
                                  'primer/exercises/p14_online_bug', 'primer/exercises/p15_window_bug',
                                  'primer/exercises/p16_rope_bug'])
def test_debug_task_broken_code_fails_and_fix_passes(demo):
    check_debug_demo(demo)


def test_built_page_folds_solutions(site):
    check_built(site, PAGE)
