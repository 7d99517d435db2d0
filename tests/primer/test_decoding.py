"""Primer chapter P12 (decoding): the test the demo applies to its sampler's draws, by simulation.

The demo (snippets/primer/decoding/methods.py) accepts each kept token's count of N draws when
neither exact binomial tail beyond it holds at most level / 2, with level = alpha / n_tests, and
states that a correct sampler then fails any count with probability at most alpha. Here many runs
of a correct sampler (multinomial counts, the distribution a correct sampler's counts have) measure
that rate, and runs of a sampler at a wrong temperature measure how often the test catches it. The
earlier test (each frequency within z_crit binomial standard deviations, z_crit from a Bonferroni
bound on the normal approximation) is simulated too: its rate was not the alpha it claimed, because
the normal approximation fails for the rare tokens that temperature 0.5 keeps (N q_j far below 1).
"""
from __future__ import annotations

import math
import runpy
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pytest

import esm

DEMO = Path(__file__).resolve().parents[2] / "snippets" / "primer" / "decoding" / "methods.py"
RUNS = 100_000                      # runs of the whole test (all methods): about 2 s


@pytest.fixture(scope="module")
def demo():
    return runpy.run_path(str(DEMO))


def failures(demo, draw, runs: int, rng) -> np.ndarray:
    """For each of `runs` runs, whether the demo's test fails: draw(q, runs, rng) gives the counts
    of N draws per run for each method's q."""
    failed = np.zeros(runs, bool)
    for name, (q, _) in demo["methods"].items():
        lo, hi = demo["bounds"][name]
        counts = draw(q, runs, rng)
        failed |= ((counts < lo) | (counts > hi)).any(axis=1)
    return failed


def test_a_correct_sampler_fails_at_most_alpha_of_the_time(demo):
    rng = np.random.default_rng(48)
    N, alpha = demo["N"], demo["alpha"]
    rate = failures(demo, lambda q, r, g: g.multinomial(N, q, size=r), RUNS, rng).mean()
    # The bound holds with room: the count of failures is binomial, its sd at most sqrt(alpha / RUNS).
    assert rate <= alpha, rate
    # and it is the summed exact tails the demo computes (failures of two tokens at once are rare)
    assert abs(rate - demo["fail_sum"]) < 5 * math.sqrt(demo["fail_sum"] / RUNS), (rate, demo["fail_sum"])


def test_the_normal_approximation_test_failed_far_more_often_than_it_claimed(demo):
    """The earlier claim (probability at most alpha = 1e-3 with the normal approximation) was false:
    about 2% of correct runs failed it, as the mathematician's simulation found."""
    rng = np.random.default_rng(49)
    N, alpha = demo["N"], 1e-3
    n_old = sum(int((q > 0).sum()) for q, _ in demo["methods"].values())
    z_crit = NormalDist().inv_cdf(1 - alpha / (2 * n_old))
    runs = 20_000
    failed = np.zeros(runs, bool)
    for q, _ in demo["methods"].values():
        live = (q > 0) & (q < 1)
        if not live.any():
            continue
        counts = rng.multinomial(N, q, size=runs)[:, live]
        z = np.abs(counts / N - q[live]) / np.sqrt(q[live] * (1 - q[live]) / N)
        failed |= (z > z_crit).any(axis=1)
    assert failed.mean() > 10 * alpha, failed.mean()


@pytest.mark.parametrize("tau", [0.45, 0.55])
def test_a_sampler_at_a_wrong_temperature_fails(demo, tau):
    rng = np.random.default_rng(50)
    N, name = demo["N"], f"temperature {demo['tau']}"
    wrong = esm.softmax(demo["z"], temperature=tau)
    lo, hi = demo["bounds"][name]
    counts = rng.multinomial(N, wrong, size=2_000)
    assert ((counts < lo) | (counts > hi)).any(axis=1).mean() > 0.99


def test_a_sampler_that_leaks_mass_to_dropped_tokens_fails(demo):
    """Top-k that keeps a sixth token with a little mass: a dropped token's count must be 0."""
    rng = np.random.default_rng(51)
    name = next(n for n in demo["methods"] if n.startswith("top-k"))
    q, keep = demo["methods"][name]
    leaky = np.where(keep, q, 0.0)
    leaky[np.flatnonzero(~keep)[0]] = 0.01
    lo, hi = demo["bounds"][name]
    counts = rng.multinomial(demo["N"], leaky / leaky.sum(), size=2_000)
    assert ((counts < lo) | (counts > hi)).any(axis=1).mean() > 0.99


def test_the_bounds_are_the_exact_tails_computed_by_hand(demo):
    """One rare and one common token of temperature 0.5: the bounds from binomial sums in logs."""
    N, level = demo["N"], demo["level"]
    name = f"temperature {demo['tau']}"
    q = demo["methods"][name][0]
    lo, hi = demo["bounds"][name]
    for j in (int(np.argmin(q)), int(np.argmax(q))):
        logpmf = [math.lgamma(N + 1) - math.lgamma(c + 1) - math.lgamma(N - c + 1)
                  + c * math.log(q[j]) + (N - c) * math.log1p(-q[j]) for c in range(N + 1)]
        pmf = np.exp(logpmf)
        below, above = np.cumsum(pmf), np.cumsum(pmf[::-1])[::-1]     # P(X <= c), P(X >= c)
        passes = np.flatnonzero((below > level / 2) & (above > level / 2))
        assert (lo[j], hi[j]) == (passes[0], passes[-1]), (j, q[j], lo[j], hi[j], passes[[0, -1]])
