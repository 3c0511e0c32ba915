"""Our tables on SQLite and PostgreSQL: idempotent game writes, pair scores, leases, validations."""
import time

import numpy as np
import pytest
import sqlalchemy as sa

from ocean.match import STAT_NAMES
from tests.tuning.fakes import fake_rows
from tuning.storage.database import open_storage
from tuning.storage.gamestore import GameStore
from tuning.storage.records import STATS, SUMMED_STATS, GameRecord, GameSums, StoredRound


@pytest.fixture
def store(any_url):
    storage = open_storage(any_url)
    yield GameStore(storage.engine, "s")
    storage.close()


def _played(store: GameStore, trial: int, phase: str) -> set[tuple[str, int, int]]:
    """(opponent, seed, side) of every stored game of a trial, read straight from the table."""
    g = GameRecord
    stmt = sa.select(g.opponent, g.seed, g.side).where(g.study == store.study, g.trial == trial, g.phase == phase)
    with store.engine.connect() as conn:
        return {tuple(row) for row in conn.execute(stmt)}


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
    assert _played(store, 3, "train") == {("random", 1, 0), ("random", 1, 1), ("random", 2, 0)}


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


def _random_batches(rng, n):
    """Batches over a few trials, phases and opponents with overlapping seeds (a retried or
    replayed batch stores part of what is already there) and some disqualifications."""
    batches = []
    for _ in range(n):
        trial, phase = int(rng.integers(0, 3)), ("train", "validate")[int(rng.integers(0, 2))]
        opponent = ("random", "chaser")[int(rng.integers(0, 2))]
        start = int(rng.integers(0, 12))
        rows = fake_rows({"x": float(trial)}, opponent, range(start, start + int(rng.integers(1, 5))), 0.5)
        for row in rows:
            if rng.random() < 0.15:
                row["a_error"] = f"Timeout! seed {row['seed']} side {row['a_side']}"
            if rng.random() < 0.1:
                row["b_error"] = f"invalid output, seed {row['seed']}"
        batches.append((trial, phase, opponent, rows, 0.1))
    return batches


def _scan(store):
    """What the summaries must say, computed from the stored game rows themselves."""
    sums = {}
    for g in store.games():
        d = sums.setdefault((g.trial, g.phase, g.opponent), {"games": 0, "score": 0.0, "a_errors": 0, "b_errors": 0,
                                                            "first_a_error": None, "first_b_error": None,
                                                            **dict.fromkeys(SUMMED_STATS, 0)})
        d["games"] += 1
        d["score"] += g.score
        for side in "ab":
            error = getattr(g, f"{side}_error")
            if error is not None:
                d[f"{side}_errors"] += 1
                d[f"first_{side}_error"] = d[f"first_{side}_error"] or error
        for stat in SUMMED_STATS:
            d[stat] += getattr(g, stat)
    return sums


def _summaries(store):
    with store.engine.connect() as conn:
        rows = conn.execute(sa.select(GameSums).where(GameSums.study == store.study)).mappings().all()
    return {(r["trial"], r["phase"], r["opponent"]): {k: r[k] for k in ("games", "score", "a_errors", "b_errors",
                                                                        "first_a_error", "first_b_error", *SUMMED_STATS)}
            for r in rows}


def test_the_summaries_equal_a_scan_of_the_games_whatever_is_stored_twice(store):
    rng = np.random.default_rng(7)
    batches = _random_batches(rng, 40)
    for i in range(0, len(batches), 3):  # rounds of up to three batches, as the driver stores them
        store.add_batches(batches[i:i + 3])
    store.add_batches(batches[5:9])  # a retried round: nothing more to count
    expected = _scan(store)
    assert sum(d["games"] for d in expected.values()) == store.count_games() > 0
    assert _summaries(store) == expected
    assert store.count_games(phase="validate") == sum(d["games"] for k, d in expected.items() if k[1] == "validate")
    assert store.games_by_trial("train") == {t: sum(d["games"] for k, d in expected.items() if k[:2] == (t, "train"))
                                             for t in {k[0] for k in expected if k[1] == "train"}}
    dq = store.disqualifications()
    for opponent in ("random", "chaser"):
        mine = [d for k, d in expected.items() if k[2] == opponent]
        assert dq[opponent]["games"] == sum(d["games"] for d in mine)
        assert dq[opponent]["bot"] == sum(d["a_errors"] for d in mine)
        assert dq[opponent]["opponent"] == sum(d["b_errors"] for d in mine)
    rounds = store.batch_times("train")
    assert sum(n for _, n in rounds) == store.count_games(phase="train")


def test_a_database_from_before_the_summaries_gets_them_from_its_games(any_url):
    storage = open_storage(any_url)
    store = GameStore(storage.engine, "old")
    store.add_batches(_random_batches(np.random.default_rng(3), 25))
    expected, rounds = _summaries(store), store.batch_times("train")
    with storage.engine.begin() as conn:  # as an older version left it: games, no summaries
        for model in (StoredRound, GameSums):
            model.__table__.drop(conn)
    storage.close()
    storage = open_storage(any_url, must_exist=True)
    store = GameStore(storage.engine, "old")
    assert _summaries(store) == expected and store.batch_times("train") == rounds
    storage.close()


def test_workers_storing_the_same_games_at_once_count_each_game_once(pg_url):
    # Workers of a cluster store their batches concurrently, a retried task the same games again.
    import threading

    open_storage(pg_url).close()
    batches = _random_batches(np.random.default_rng(11), 60)
    engines = [sa.create_engine(pg_url) for _ in range(4)]
    errors = []

    def work(k):
        store = GameStore(engines[k], "s")
        try:
            for b in batches[k::2] + batches[::5]:
                store.add_batches([b])
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    store = GameStore(engines[0], "s")
    assert errors == []
    summaries, scan = _summaries(store), _scan(store)
    reasons = {}
    for g in store.games():
        for side in "ab":
            if getattr(g, f"{side}_error") is not None:
                reasons.setdefault((g.trial, g.phase, g.opponent, side), set()).add(getattr(g, f"{side}_error"))
    # Counts and sums are exact. The first reason is the first committed one: with writers side
    # by side that need not be the row with the lowest id, but it is one of the key's reasons.
    for key, summary in summaries.items():
        for side in "ab":
            first = summary.pop(f"first_{side}_error")
            expected = scan[key].pop(f"first_{side}_error")
            assert (first is None) == (expected is None)
            assert first is None or first in reasons[(*key, side)]
    assert summaries == scan
    for engine in engines:
        engine.dispose()


def test_validations_are_kept_per_time_control_and_ranked_within_one(store):
    common = dict(per_opponent={}, diff=None, diff_low=None, diff_high=None, params={})
    store.save_validation(trial=0, time_control="5/1000x1", games=20, score=0.5, low=0.4, high=0.6, seeds="1..10",
                          **common)
    store.save_validation(trial=3, time_control="5/1000x1", games=20, score=0.6, low=0.5, high=0.7, seeds="1..10",
                          **common)
    store.save_validation(trial=3, time_control="50/1000x1", games=20, score=0.4, low=0.3, high=0.5, seeds="1..10",
                          **common)
    assert [(v.trial, v.time_control) for v in store.validations()] == [(3, "50/1000x1")]  # the latest
    assert [(v.trial, v.score) for v in store.validations("5/1000x1")] == [(3, 0.6), (0, 0.5)]  # kept, not overwritten
    assert store.validated_time_controls() == ["50/1000x1", "5/1000x1"]


def test_validations_stored_before_time_controls_are_kept_with_the_studys_own(any_url):
    """A database whose ocean_validations has no time_control column (keyed by study and trial)
    is rebuilt with the column in its key; its rows stay, as validated at the study's time."""
    from tuning.storage.records import ValidationRecord

    engine = sa.create_engine(any_url)
    old = sa.MetaData()
    columns = [sa.Column(c.name, c.type, primary_key=c.name in ("study", "trial"), nullable=c.nullable)
               for c in ValidationRecord.__table__.columns if c.name != "time_control"]
    sa.Table(ValidationRecord.__tablename__, old, *columns).create(engine)
    row = dict(study="s", trial=2, games=20, score=0.6, low=0.5, high=0.7, per_opponent={}, diff=0.1, diff_low=0.0,
               diff_high=0.2, seeds="1..10", heldout_score=None, heldout_low=None, heldout_high=None, params={"x": 1},
               updated_at=1.0)
    with engine.begin() as conn:
        conn.execute(old.tables[ValidationRecord.__tablename__].insert(), [row])
    engine.dispose()
    storage = open_storage(any_url)
    try:
        games = GameStore(storage.engine, "s")
        (kept,) = games.validations()
        assert (kept.trial, kept.time_control, kept.score, kept.params) == (2, "", 0.6, {"x": 1})
        games.save_validation(trial=2, time_control="50/1000x1", games=20, score=0.4, low=0.3, high=0.5,
                              per_opponent={}, diff=None, diff_low=None, diff_high=None, seeds="1..10", params={})
        assert [v.score for v in games.validations("")] == [0.6] and games.validations()[0].score == 0.4
    finally:
        storage.close()


def test_validation_history_keeps_every_run_while_the_table_ranks_the_latest(any_url):
    from tuning.storage.database import open_storage
    from tuning.storage.gamestore import GameStore

    storage = open_storage(any_url)
    try:
        games = GameStore(storage.engine, "hist")
        common = dict(trial=3, low=0.4, high=0.7, per_opponent={"random": {"mean": 0.5, "n": 4}}, diff=None,
                      diff_low=None, diff_high=None, params={"silence_cost": 1.0}, heldout_score=None,
                      heldout_low=None, heldout_high=None)
        games.save_validation(games=200, score=0.55, seeds="1..100", **common)
        games.save_validation(games=1000, score=0.52, seeds="1..500", **common)  # another setting, same trial
        games.save_validation(games=1000, score=0.53, seeds="1..500", **common)  # the same again
        runs = games.validation_runs(trial=3)
        assert [(r.record["games"], r.record["score"]) for r in runs] == [(200, 0.55), (1000, 0.52), (1000, 0.53)]
        assert runs[0].record["code_digest"] and runs[0].record["params"] == {"silence_cost": 1.0}
        assert [(v.games, v.score) for v in games.validations()] == [(1000, 0.53)]  # the latest ranks
        games.delete_study_rows()
        assert games.validation_runs() == []
    finally:
        storage.close()


def _duel_rows() -> list[dict]:
    """Two games against hunter by hand: A hits first and wins; B hits first, a draw."""
    rows = fake_rows({"x": 1.0}, "hunter", [7], 0.5)
    for row in rows:
        row.update({f"{p}_{s}": 0 for p in "ab" for s in STATS})
    rows[0].update(winner="a", a_first_damage=1, a_torpedoes=4, a_direct_hits=2, b_torpedo_damage_taken=5,
                   b_mine_damage_taken=1, b_torpedoes=2, b_surfaces_under_fire=1)
    rows[1].update(winner="draw", b_first_damage=1, a_torpedoes=2, a_direct_hits=1, b_torpedoes=3, b_direct_hits=1,
                   a_torpedo_damage_taken=4, a_mine_damage_taken=2, a_surfaces_under_fire=1)
    return rows


def test_duel_sums_of_both_sides_are_summed_by_the_database(store):
    store.add_games(trial=4, phase="validate", opponent="hunter", rows=_duel_rows(), seconds=0.1)
    store.add_games(trial=5, phase="validate", opponent="hunter", rows=_duel_rows(), seconds=0.1)  # not asked for
    sums = store.duel_sums([4, 0], "validate")
    assert list(sums) == [(4, "hunter")]
    assert sums[(4, "hunter")] == {
        "a": {"games": 2, "first": 1, "first_won": 1, "first_taken": 1, "first_taken_lost": 0, "torpedoes": 6,
              "direct_hits": 3, "torpedo_damage_dealt": 5, "mine_damage_dealt": 1, "mine_damage_taken": 2,
              "surfaces_under_fire": 1},
        "b": {"games": 2, "first": 1, "first_won": 0, "first_taken": 1, "first_taken_lost": 1, "torpedoes": 5,
              "direct_hits": 1, "torpedo_damage_dealt": 4, "mine_damage_dealt": 2, "mine_damage_taken": 1,
              "surfaces_under_fire": 1}}
    assert store.duel_sums([4], "train") == {}


def test_games_stored_before_the_duel_statistics_get_the_columns_and_count_for_nothing_in_them(any_url):
    engine = sa.create_engine(any_url)
    old = sa.MetaData()
    duel = {f"{p}_{s}" for p in "ab" for s in ("first_damage", "direct_hits", "surfaces_under_fire")}
    columns = [sa.Column(c.name, c.type, primary_key=c.primary_key, nullable=c.nullable)
               for c in GameRecord.__table__.columns if c.name not in duel]
    sa.Table(GameRecord.__tablename__, old, *columns,
             sa.UniqueConstraint("study", "trial", "phase", "opponent", "seed", "side")).create(engine)
    engine.dispose()
    storage = open_storage(any_url)
    try:
        games = GameStore(storage.engine, "s")
        before = [{k: v for k, v in row.items() if k not in duel} for row in fake_rows({"x": 1.0}, "hunter", [3], 0.5)]
        with storage.engine.begin() as conn:  # a row as an older version stored it, without the new columns
            conn.execute(sa.insert(GameRecord.__table__), [
                {**{k: v for k, v in before[0].items() if k not in ("a_side", "end")}, "study": "s", "trial": 4,
                 "phase": "train", "opponent": "hunter", "side": 0, "score": 0.5, "end_reason": "life",
                 "duration_ms": 1.0, "created_at": 1.0, "winner": "draw"}])
        games.add_games(trial=4, phase="train", opponent="hunter", rows=_duel_rows(), seconds=0.1)
        stored = sorted(games.games(trial=4), key=lambda g: g.seed)
        assert [(g.seed, g.a_first_damage, g.b_direct_hits) for g in stored] == [(3, None, None), (7, 1, 0), (7, 0, 1)]
        assert games.duel_sums([4], "train")[(4, "hunter")]["a"]["games"] == 2  # the old row is left out
    finally:
        storage.close()
