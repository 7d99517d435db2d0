"""The exercises of Part 1: each part labelled with its kind, each exercise naming its section,
hints and solutions folded, debugging tasks whose broken code fails its check."""

from __future__ import annotations

import pytest

from exercises_common import check_built, check_debug_demo, check_page

PAGE = "part1/exercises.md"


def test_exercises_are_labelled_and_folded():
    check_page(PAGE)


def test_built_page_folds_solutions(site):
    check_built(site, PAGE)
