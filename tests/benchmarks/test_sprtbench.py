"""The simulation of the test: its stopping rule is ``tune test``'s, and a quick run finds the
error rates within their nominal values."""
import numpy as np
import pytest

from ocean.bots import resolve_bot
from tuning.driver.bottest import Tally, judge
from tuning.stats.sprt import PENTANOMIAL, Settings
from benchmarks.sprtbench import SHAPES, distribution_at, main, run_bench, simulate
from tuning.study.testspec import TestSpec


@pytest.mark.parametrize("normalized", [False, True])
def test_a_quick_run_finds_both_error_rates_within_nominal(normalized):
    # Wide bounds so each simulated test ends in a few batches; 2,000 runs per point.
    s = Settings(0.0, 40.0, 0.05, 0.05, normalized)
    points = run_bench(settings=s, elos=[0.0, 20.0, 40.0], runs=2000, batch_pairs=10, max_games=40_000, seed=3)
    at0, mid, at1 = points
    assert at0.rate(at0.h1)[1] <= s.alpha  # the false positives' interval reaches down to alpha
    assert at1.rate(at1.h0 + at1.max)[1] <= s.beta
    # and the test is not blind: it says H1 at elo1 and H0 at elo0 most of the time, half-half between
    assert at0.h0 / at0.runs > 0.9 and at1.h1 / at1.runs > 0.9
    assert 0.25 < mid.h1 / mid.runs < 0.75
    assert mid.mean_games > max(at0.mean_games, at1.mean_games)  # the middle is the hardest to decide


def test_the_distribution_at_an_elo_has_that_expected_score_and_the_shape():
    pdf = distribution_at(SHAPES["no-draws"], 35.0)
    assert (pdf * PENTANOMIAL).sum() == pytest.approx(1 / (1 + 10 ** (-35 / 400)))
    assert pdf[1] == 0.0 and pdf[3] == 0.0  # no draws stays no draws


def test_the_simulated_stopping_rule_is_the_one_tune_test_applies():
    """One simulated test, replayed batch by batch through ``judge`` on the same draws."""
    s = Settings(0.0, 30.0)
    pdf = distribution_at(SHAPES["independent"], 12.0)
    for seed in range(8):
        result, games = simulate(pdf, s, runs=1, batch_pairs=10, max_batches=40, rng=np.random.default_rng(seed))
        spec = TestSpec("sim", resolve_bot("random"), resolve_bot("chaser"), None, None, s, 800, 0, 10, 50, 1000, 1.0)
        rng = np.random.default_rng(seed)
        tallies = []
        verdict = judge(spec, tallies)
        while verdict.result is None:
            tallies.append(Tally(rng.multinomial(10, pdf, size=1)[0], {}, {}))
            verdict = judge(spec, tallies)
        assert verdict.result == result[0] and verdict.games == games[0]


def test_bad_arguments_are_one_line_errors(capsys):
    assert main(["--elo0", "5", "--elo1", "0"]) == 2
    assert "elo1 must be above elo0" in capsys.readouterr().err
    assert main(["--shape", "0.5,0.5"]) == 2
    assert "--shape" in capsys.readouterr().err
    assert main(["--runs", "1"]) == 2
