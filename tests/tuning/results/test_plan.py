"""tune plan's measures: a pilot in a pool, a stored study's games, and the plan made of them."""
import math

import pytest

from tests.tuning.fakes import FakePool, tiny_spec_dict
from tuning.driver.runner import StudyRunner
from tuning.errors import TuningError
from tuning.results.plan import from_stored, pilot, plan
from tuning.stats.power import detectable_gain, half_width
from tuning.storage.handle import create_study
from tuning.study.opponents import resolve_panel
from tuning.study.spec import parse_spec

FIELDS = {"games_per_s", "pair_sd", "detectable_gain", "games_for_gain"}


def _p(params):
    return 0.2 + 0.4 * params["silence_cost"] / 10


def test_a_pilot_plays_the_defaults_and_measures_their_spread():
    spec = parse_spec(tiny_spec_dict(seed_bank={"start": 100, "count": 40}))
    pool = FakePool(p_win=lambda p: 0.5)
    measured = pilot(spec, resolve_panel(spec.panel), 20, 2, pool)
    assert {b.trial for b in pool.submitted} == {0} and len(pool.submitted) >= 4  # two batches a worker at least
    assert sum(b.games for b in pool.submitted) == measured.games == 2 * 2 * 20
    assert 0.2 < measured.pair_sd < 0.6 and measured.diff_sd == pytest.approx(math.sqrt(2) * measured.pair_sd)
    assert not measured.diff_sd_measured and measured.games_per_s > 0
    with pytest.raises(TuningError, match="--pilot-pairs must be at least 2"):
        pilot(spec, resolve_panel(spec.panel), 1, 2, pool)


def test_a_stored_study_is_measured_on_its_paired_games(sqlite_url):
    handle = create_study(parse_spec(tiny_spec_dict(n_trials=4, pruning={"enabled": False},
                                                    seed_bank={"start": 100, "count": 20})), sqlite_url)
    try:
        StudyRunner(handle, pool=FakePool(p_win=_p)).run()
        measured = from_stored(handle)
        assert measured.source == "stored" and measured.diff_sd_measured
        assert measured.games == handle.games.count_games(phase="train")
        result = plan(handle.spec, measured, 2, 2, hours=1.0, gain=0.05)
    finally:
        handle.close()
    assert FIELDS <= set(result)
    pairs = handle.spec.pairs_per_opponent * 2
    assert result["per_trial"]["detectable_gain"] == pytest.approx(detectable_gain(measured.diff_sd, pairs), abs=1e-6)
    assert result["per_trial"]["interval_half_width"] == pytest.approx(half_width(measured.diff_sd, pairs), abs=1e-6)
    assert result["detectable_gain"]["validation"] == result["validation"]["detectable_gain"]
    g = result["games_for_gain"]
    assert set(g) == {"0.02", "0.05", "0.1"} and g["0.02"] > g["0.05"] > g["0.1"] >= 2
    r = result["recommendation"]
    assert r["n_trials"] >= 10 and r["games_per_opponent"] % 2 == 0


def test_a_study_with_nothing_played_cannot_be_measured(sqlite_url):
    handle = create_study(parse_spec(tiny_spec_dict()), sqlite_url)
    try:
        with pytest.raises(TuningError, match="fewer than two maps played by the defaults"):
            from_stored(handle)
    finally:
        handle.close()
