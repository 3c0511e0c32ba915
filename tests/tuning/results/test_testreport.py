"""``tune test``'s reported Elo (issue 32): after a stop at a bound the stop-adjusted estimate under
the old keys, the fixed-sample one under its own, and the verdict line naming both."""
import numpy as np

from tuning.driver.bottest import Tally, judge
from tuning.results.testreport import _reported_estimate, verdict_line
from tuning.stats.sprt import estimate
from tuning.study.testspec import TestOptions, build_spec


def test_a_stopped_test_reports_the_stop_adjusted_elo_and_keeps_the_fixed_sample_one():
    spec = build_spec("t", TestOptions(new="chaser", base="random", batch_pairs=50))
    verdict = judge(spec, [Tally(np.array([6, 0, 22, 0, 22]), {}, {})] * 10)
    assert verdict.result == "H1"
    out = _reported_estimate(spec, verdict)
    fixed = estimate(verdict.counts)
    assert out["estimate"] == "stop-adjusted"
    assert out["fixed_elo"] == round(fixed.elo, 6) and out["fixed_elo_ci"] == [round(fixed.elo_low, 6),
                                                                                round(fixed.elo_high, 6)]
    assert out["elo"] < out["fixed_elo"] and out["elo_ci"][0] < out["fixed_elo_ci"][0]
    assert out["elo_ci"][0] < out["elo"] < out["elo_ci"][1] and out["nelo_ci"][0] < out["nelo"] < out["nelo_ci"][1]
    line = verdict_line({"result": "H1", "new": "chaser", "base": "random", "elo0": 0, "elo1": 5, "normalized": False,
                         "llr": verdict.llr, "bounds": [-2.94, 2.94], "games": verdict.games, "pairs": verdict.units,
                         "opponents": None, **out})
    assert "(95%, stop-adjusted; fixed-sample Elo " in line


def test_a_test_still_running_or_at_its_maximum_reports_the_fixed_sample_elo():
    spec = build_spec("t", TestOptions(new="chaser", base="random", batch_pairs=50))
    verdict = judge(spec, [Tally(np.array([10, 0, 30, 0, 10]), {}, {})])
    out = _reported_estimate(spec, verdict)
    assert verdict.result is None and out["estimate"] == "fixed-sample"
    assert (out["elo"], out["elo_ci"]) == (out["fixed_elo"], out["fixed_elo_ci"])
