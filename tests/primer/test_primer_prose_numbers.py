"""The numbers the primer's prose states are the numbers its demos print (so the text cannot
drift from the computation when a demo changes)."""
from __future__ import annotations

import pytest

from conftest import ROOT, snippet_output

DEMOS = ROOT / "snippets" / "primer"

STATED = {
    "token-embeddings/ids-to-vectors.py": ["0.794", "0.167", "1.414"],
    "token-embeddings/analogies.py": ["queen** | 0.680", "girl (0.482)", "woman (0.851)", "Berlin", "swam",
                                      "wonderful", "0.49714", "0.000812779"],
    "softmax-and-scores/worked-example.py": ["7.389", "54.598", "2.718", "64.705", "0.1142", "0.8438", "0.0420"],
    "softmax-and-scores/temperature.py": ["| 0.5 | 0.018 | 0.980 | 0.002", "| 2 | 0.231 | 0.629 | 0.140", "1.0986"],
    "softmax-and-scores/scaling.py": ["| 4 | 4.2 |", "| 16 | 16.5 |", "| 64 | 64.2 |", "| 256 | 253.3 |",
                                     "| 1024 | 978.0 |", "1.055", "0.955", "22.85", "0.943", "5.00e-04", "0.254",
                                     "3.05e-01"],
    "softmax-and-scores/fading.py": ["0.8585", "0.3555", "0.0518", "0.0054", "0.891", "0.882", "0.3128", "0.0029"],
}


@pytest.mark.parametrize("demo", sorted(STATED))
def test_page_numbers_come_from_the_demo(demo):
    out = snippet_output(DEMOS / demo)
    missing = [s for s in STATED[demo] if s not in out]
    assert not missing, f"{demo} no longer prints {missing}"
