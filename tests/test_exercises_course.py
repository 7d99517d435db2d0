"""The exercises across the course: numbered 1, 2, ... in navigation order, at least 4 per part
and the primer, at least 17 in all, and enough predict, derive/prove and debug parts."""

from __future__ import annotations

from collections import Counter

from exercises_common import PAGES, exercises, kinds


def test_numbering_runs_through_the_course_in_order():
    numbers = [n for page in PAGES for n, _, _ in exercises(page)]
    assert numbers == list(range(1, len(numbers) + 1))
    assert len(numbers) >= 17
    assert all(len(exercises(page)) >= 4 for page in PAGES)


def test_kinds_of_parts():
    count = Counter(k for page in PAGES for k in kinds(page))
    assert count["Predict"] >= 6
    assert count["Derive"] + count["Prove"] >= 6
    assert count["Debug"] >= 3 * 2      # five tasks, two parts each
