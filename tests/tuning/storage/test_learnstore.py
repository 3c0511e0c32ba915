"""A learning run's rows on real SQLite and PostgreSQL: the definition stored once and checked,
checkpoints and scores written once per round (a resumed round stores nothing twice)."""
import pytest

from tuning.errors import StudyNotFound, TuningError
from tuning.storage.learnstore import Checkpoint, Score, TrustRow, ladder_scale, open_learn, rung_name


def test_a_run_is_defined_once_and_its_rows_are_idempotent(any_url):
    store = open_learn("td1", any_url, create=True)
    try:
        definition = {"games": 100, "epsilon": 0.3, "lam": 0.8}
        assert store.create_or_check(definition, may_differ=("games",)) == (definition, True)
        assert store.create_or_check(dict(definition, games=500), may_differ=("games",))[1] is False
        with pytest.raises(TuningError, match=r"^learning run 'td1' exists with other settings: epsilon is 0.3, "
                                              r"not 0.1; carry it on"):
            store.create_or_check(dict(definition, epsilon=0.1), may_differ=("games",))
        assert store.last_checkpoint() is None
        for r in range(3):
            store.add_checkpoint(Checkpoint(r, 100 * r, {"lives": 0.1 * r}, 0.01, 50, 1.0))
        store.add_checkpoint(Checkpoint(2, 200, {"lives": 99.0}, 0.01, 50, 1.0))  # a replayed round: kept as first
        assert [c.round for c in store.checkpoints()] == [0, 1, 2]
        assert store.last_checkpoint().weights == {"lives": pytest.approx(0.2)}
        store.add_score(Score(2, 200, "patient-v1", 10, 0.6, 0.5, 0.7))
        store.add_score(Score(2, 200, "patient-v1", 10, 0.1, 0.0, 0.2))
        assert store.scores() == [Score(2, 200, "patient-v1", 10, 0.6, 0.5, 0.7)]
        # the trust step's matches: in the order played, one per (round, scale, opponent, maps)
        rung = TrustRow(2, 200, 2.0, "x1", 5, 0.55, 0.4, 0.7)
        replayed = TrustRow(2, 200, 2.0, "x1", 5, 0.0, 0.0, 0.1)  # the same match again: kept as first stored
        for row in (rung, TrustRow(2, 200, 4.0, "x2", 5, 0.45, 0.3, 0.6), replayed,
                    TrustRow(2, 200, 2.0, "x1", 7, 0.6, 0.5, 0.7), TrustRow(1, 100, 2.0, "x1", 5, 0.5, 0.4, 0.6)):
            store.add_trust_row(row)
        assert [(r.round, r.scale, r.maps, r.score) for r in store.trust_rows()] == [
            (1, 2.0, 5, 0.5), (2, 2.0, 5, 0.55), (2, 4.0, 5, 0.45), (2, 2.0, 7, 0.6)]
        assert [r.scale for r in store.trust_rows(1)] == [2.0]
        # the ladder moves on a won rung only; a yardstick's score of the trusted weights is no rung
        assert ladder_scale(store.trust_rows(2)) == 2.0 and ladder_scale([]) == 1.0
        won = [TrustRow(3, 300, 2.0, rung_name(1.0), 5, 0.6, 0.5, 0.7), TrustRow(3, 300, 4.0, "x2", 5, 0.7, 0.6, 0.8),
               TrustRow(3, 300, 4.0, "patient-v1", 5, 0.2, 0.1, 0.3)]
        assert ladder_scale(won) == 4.0 and [r.rung for r in won] == [True, True, False] and won[1].against == 2.0
        other = open_learn("td2", any_url, create=True)
        assert other.checkpoints() == [] and other.definition() is None
        other.storage.close()
    finally:
        store.storage.close()


def test_reading_a_missing_run_says_how_to_start_one(tmp_path, sqlite_url):
    with pytest.raises(StudyNotFound,
                       match=r"^no learning run named 'nope': there is no database at .*tune learn nope"):
        open_learn("nope", f"sqlite:///{tmp_path}/none.db", create=False)
    open_learn("other", sqlite_url, create=True).storage.close()
    with pytest.raises(StudyNotFound, match=r"^no learning run named 'nope' in .*; start one with  tune learn nope"):
        open_learn("nope", sqlite_url, create=False)
