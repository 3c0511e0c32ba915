"""The trust step on the session's real Ray and a real SQLite file: identical bots never move
the scale; a step killed after a match carries on to exactly the undisturbed step's matches,
none stored twice; the ladder's rule; the weights' bounds; the budget's one-line error."""
import pytest

from tuning.driver.cluster import connect
from tuning.driver.learn import LearnOptions, starting_weights
from tuning.driver.trust import SCALES, TRUSTED, run_trust, trust_maps, trusted_weights
from tuning.errors import TuningError
from tuning.storage.learnstore import Checkpoint, open_learn

OPTIONS = LearnOptions(games=100, score_every=100, score_maps=2, start=starting_weights("zero"))
GAMES = 2 * 2 * (len(SCALES) - 1)  # two maps a rung


class _Killed(Exception):
    pass


def _step(url, name, cp, kill_after=None):
    store = open_learn(name, url, create=True)
    store.create_or_check(OPTIONS.definition(), may_differ=("games",))
    store.add_checkpoint(cp)
    seen = []

    def on_match(row):
        seen.append(row)
        if kill_after is not None and len(seen) == kill_after:
            raise _Killed()

    try:
        return run_trust(store, OPTIONS, cp, GAMES, parallel=2, on_match=on_match), store.trust_rows()
    finally:
        store.storage.close()


def _checkpoint(**weights):
    zero = starting_weights("zero")
    return Checkpoint(3, 100, dict(zero, **weights), 0.0, 0, 0.0)


def test_identical_bots_tie_and_the_scale_stays_one(tmp_path, ray_cluster):
    connect(ray_cluster)
    step, rows = _step(f"sqlite:///{tmp_path}/t.db", "zero", _checkpoint())  # v3_regret 0: every scale the same bot
    assert step.scale == 1.0 and step.weights == _checkpoint().weights and step.games == GAMES
    rungs = [r for r in rows if r.rung]
    assert [(r.scale, r.opponent, r.score) for r in rungs] == [(s, "x1", 0.5) for s in SCALES[1:]]
    assert {r.opponent for r in rows} - {"x1"} == {"patient-v1", "tunable-v3"}  # the trusted weights' yardsticks
    assert all(r.round == 3 and r.games == 100 and r.maps == 2 for r in rows)


def test_a_killed_step_carries_on_to_the_undisturbed_one(tmp_path, ray_cluster):
    connect(ray_cluster)
    cp = _checkpoint(lives=1.0, v3_line_score=0.1, v3_regret=0.2)
    url = f"sqlite:///{tmp_path}/t.db"
    whole, whole_rows = _step(url, "whole", cp)
    assert whole.weights[TRUSTED] == pytest.approx(0.2 * whole.scale)
    with pytest.raises(_Killed):
        _step(url, "killed", cp, kill_after=2)
    resumed, resumed_rows = _step(url, "killed", cp)
    assert resumed.scale == whole.scale and resumed.weights == whole.weights
    key = [(r.scale, r.opponent, r.maps, r.score, r.low, r.high) for r in whole_rows]
    assert [(r.scale, r.opponent, r.maps, r.score, r.low, r.high) for r in resumed_rows] == key
    # each rung is played against the best scale before it, which moved on wins only
    best = 1.0
    for r in [r for r in whole_rows if r.opponent.startswith("x")]:
        assert r.opponent == f"x{best:g}"
        best = r.scale if r.score > 0.5 else best
    assert best == whole.scale


def test_the_budget_and_the_bounds():
    assert trust_maps(0) == 0 and trust_maps(4000) == 333 and trust_maps(12) == 1
    with pytest.raises(TuningError, match=r"^--trust-games is 5; give 0 \(no trust step\) or at least 12 "):
        trust_maps(5)
    assert trusted_weights({"lives": 1.0, TRUSTED: 0.5}, 64.0) == {"lives": 1.0, TRUSTED: 20.0}  # WEIGHT_BOUND
    assert trusted_weights({TRUSTED: -0.1}, 4.0) == {TRUSTED: pytest.approx(-0.4)}
