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
    "positional-encoding/word-order.py": ["distance 0.849"],
    "positional-encoding/sinusoids.py": ["| 6.3 |", "54,410.1", "1.953 (offset 1)"],
    "self-attention/from-scratch.py": ["0.728"],
    "self-attention/coreference.py": ["1 cat | 0.829 | 0.368", "5 mat | 0.099 | 0.368"],
    "softmax-and-scores/worked-example.py": ["7.389", "54.598", "2.718", "64.705", "0.1142", "0.8438", "0.0420"],
    "softmax-and-scores/temperature.py": ["| 0.5 | 0.018 | 0.980 | 0.002", "| 2 | 0.231 | 0.629 | 0.140", "1.0986"],
    "softmax-and-scores/scaling.py": ["| 4 | 4.2 |", "| 16 | 16.5 |", "| 64 | 64.2 |", "| 256 | 253.3 |",
                                     "| 1024 | 978.0 |", "1.055", "0.955", "22.85", "0.943", "5.00e-04", "0.254",
                                     "3.05e-01"],
    "softmax-and-scores/fading.py": ["0.8585", "0.3555", "0.0518", "0.0054", "0.891", "0.882", "0.3128", "0.0029"],
    "multi-head-attention/split-attend-concat.py": ["(12, 5, 64)", "(12, 5, 5)", "max change 0.181", "2,362,368"],
    "transformer-block/parameters.py": ["7,087,872", "4,722,432", "3,072", "85,054,464", "124,439,808",
                                        "174,604,259,328"],
}


@pytest.mark.parametrize("demo", sorted(STATED))
def test_page_numbers_come_from_the_demo(demo):
    out = snippet_output(DEMOS / demo)
    missing = [s for s in STATED[demo] if s not in out]
    assert not missing, f"{demo} no longer prints {missing}"
