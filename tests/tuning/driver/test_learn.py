"""``run_learn`` on the session's real Ray and a real SQLite file: a run killed after a round and
carried on ends with exactly the weights of an undisturbed run; the curve is scored at round 0,
at each multiple of ``score_every`` and at the end; the learning rate follows its schedule."""
import numpy as np
import pytest

from tuning.driver.cluster import connect
from tuning.driver.learn import LearnOptions, game_seed, held_out_seeds, learning_rate, run_learn, starting_weights
from tuning.errors import TuningError
from tuning.storage.learnstore import open_learn

TINY = dict(games=120, round_games=40, batches=2, score_every=80, score_maps=2, epsilon=0.3)


class _Killed(Exception):
    pass


def _run(url, name, options, kill_after=None):
    store = open_learn(name, url, create=True)
    store.create_or_check(options.definition(), may_differ=("games",))

    def on_round(cp):
        if kill_after is not None and cp.round == kill_after:
            raise _Killed()

    try:
        return run_learn(store, options, parallel=2, on_round=on_round), store.checkpoints(), store.scores()
    finally:
        store.storage.close()


def test_a_killed_run_carries_on_to_the_undisturbed_result(tmp_path, ray_cluster):
    connect(ray_cluster)
    options = LearnOptions(**TINY, start=starting_weights("zero"))
    url = f"sqlite:///{tmp_path}/learn.db"
    whole, checkpoints, scores = _run(url, "whole", options)
    assert [c.games for c in checkpoints] == [0, 40, 80, 120] and whole.round == 3
    assert any(v != 0.0 for v in whole.weights.values())
    # scored: round 0, the round that crossed 80 games, and the last
    assert sorted({(s.round, s.games) for s in scores}) == [(0, 0), (2, 80), (3, 120)]
    assert {s.opponent for s in scores} == {"patient-v1", "tunable-v3"} and len(scores) == 6

    with pytest.raises(_Killed):
        _run(url, "killed", options, kill_after=1)
    resumed, resumed_checkpoints, resumed_scores = _run(url, "killed", options)
    assert resumed.weights == whole.weights
    assert [c.weights for c in resumed_checkpoints] == [c.weights for c in checkpoints]
    assert [(s.round, s.opponent, s.score) for s in resumed_scores] == [(s.round, s.opponent, s.score) for s in scores]


def test_seeds_schedules_and_starts():
    assert game_seed(0, 5) != game_seed(1, 5) and min(held_out_seeds(3)) > game_seed(99, 10**9)
    options = LearnOptions(games=10, learning_rate=0.01, schedule="harmonic", decay_games=100)
    assert learning_rate(options, 0) == 0.01 and learning_rate(options, 100) == pytest.approx(0.005)
    assert learning_rate(LearnOptions(games=10, learning_rate=0.01, schedule="constant"), 10**6) == 0.01
    assert set(starting_weights("zero").values()) == {0.0}
    with pytest.raises(TuningError, match=r"^--lambda is 1.5; give a number in \[0, 1\]$"):
        LearnOptions(games=10, lam=1.5).check()
    with pytest.raises(TuningError, match=r"^--opponents is 'self,nobody'; give a comma-separated list of self, "
                                          r"tunable-v3$"):
        LearnOptions(games=10, opponents=("self", "nobody")).check()
    assert np.isfinite(learning_rate(options, 10**9))
