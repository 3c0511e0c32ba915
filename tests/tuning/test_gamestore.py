"""Our tables on SQLite and PostgreSQL: idempotent game writes, pair scores, leases, validations."""
import time

import pytest

from ocean.match import STAT_NAMES
from tests.tuning.fakes import fake_rows
from tuning.gamestore import GameStore
from tuning.records import STATS
from tuning.storage import open_storage


@pytest.fixture
def store(any_url):
    storage = open_storage(any_url)
    yield GameStore(storage.engine, "s")
    storage.close()


def test_our_stat_columns_are_the_engines_statistics():
    assert tuple(STATS) == tuple(STAT_NAMES)


def test_writing_a_batch_twice_stores_each_game_once(store):
    rows = fake_rows({"x": 1.0}, "chaser", [10, 11, 12], 0.6)
    store.add_games(trial=1, phase="train", opponent="chaser", rows=rows, seconds=0.3)
    store.add_games(trial=1, phase="train", opponent="chaser", rows=rows, seconds=0.3)
    store.add_games(trial=1, phase="train", opponent="chaser", rows=rows[:2] + fake_rows({"x": 1.0}, "chaser", [13], 0.6),
                    seconds=0.1)
    assert store.count_games() == 8
    games = store.games(trial=1)
    assert len({(g.opponent, g.seed, g.side) for g in games}) == 8
    first = next(g for g in games if g.seed == 10 and g.side == 0)
    assert first.duration_ms == pytest.approx(50.0) and first.a_moves == 1 and first.b_moves == 2
    # other trials, phases and studies are separate games
    store.add_games(trial=2, phase="train", opponent="chaser", rows=rows, seconds=0.3)
    store.add_games(trial=1, phase="validate", opponent="chaser", rows=rows, seconds=0.3)
    GameStore(store.engine, "other").add_games(trial=1, phase="train", opponent="chaser", rows=rows, seconds=0.3)
    assert store.count_games() == 20 and store.count_games(phase="validate") == 6
    assert store.games_by_trial("train") == {1: 8, 2: 6}


def test_pair_scores_count_only_complete_pairs(store):
    rows = fake_rows({"x": 2.0}, "random", [1, 2], 0.5)
    store.add_games(trial=3, phase="train", opponent="random", rows=rows[:3], seconds=0.1)  # seed 2: one side
    scores = store.pair_scores(3, "train")
    assert set(scores) == {("random", 1)}
    expected = sum({"a": 1.0, "b": 0.0, "draw": 0.5}[r["winner"]] for r in rows[:2]) / 2
    assert scores[("random", 1)] == expected
    assert store.played(3, "train") == {("random", 1, 0), ("random", 1, 1), ("random", 2, 0)}


def test_a_lease_is_held_renewed_and_taken_over_only_when_expired(store):
    assert store.claim(5, "driver-a", ttl=60)
    assert not store.claim(5, "driver-b", ttl=60)
    assert store.claim(5, "driver-a", ttl=60)  # re-claiming one's own lease is fine
    assert store.claim(6, "driver-b", ttl=-1)  # already expired
    assert store.claim(6, "driver-a", ttl=60)
    owner, expires = store.leases([5, 6, 7])[6]
    assert owner == "driver-a" and expires > time.time() + 50 and 7 not in store.leases([7])
    store.renew("driver-a", [5], ttl=120)
    assert store.leases([5])[5][1] > time.time() + 100
    store.release(5, "driver-b")  # not the owner: nothing happens
    assert 5 in store.leases([5])
    store.release(5, "driver-a")
    assert 5 not in store.leases([5])


def test_validations_are_replaced_and_ranked_best_first_within_the_latest_settings(store):
    common = dict(per_opponent={"chaser": {"mean": 0.5}}, diff=None, diff_low=None, diff_high=None,
                  params={"silence_cost": 0.4})
    store.save_validation(trial=0, games=20, score=0.5, low=0.4, high=0.6, seeds="1..10", **common)
    store.save_validation(trial=4, games=20, score=0.7, low=0.6, high=0.8, seeds="1..10", **common)
    store.save_validation(trial=2, games=20, score=0.7, low=0.65, high=0.75, seeds="1..10", **common)
    ranked = store.validations()
    assert [v.trial for v in ranked] == [2, 4, 0]  # equal scores: the higher lower bound first
    assert ranked[0].params == {"silence_cost": 0.4} and ranked[0].per_opponent["chaser"]["mean"] == 0.5
    store.save_validation(trial=4, games=40, score=0.6, low=0.55, high=0.65, seeds="1..20", **common)
    assert [(v.trial, v.games) for v in store.validations()] == [(4, 40)]  # other settings: not ranked together
    store.save_validation(trial=0, games=20, score=0.5, low=0.4, high=0.6, seeds="1..10", **common)
    assert [v.trial for v in store.validations()] == [2, 0]  # trial 4's row was replaced by its 40-game one
    store.delete_study_rows()
    assert store.validations() == []
