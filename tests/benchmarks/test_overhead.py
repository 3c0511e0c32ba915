"""``tune bench``'s storage measurement leaves nothing in a real database, even when the run fails,
and reports no figure rather than crashing when no trial was told (real PostgreSQL and SQLite)."""
import optuna
import pytest
import sqlalchemy as sa

from benchmarks.overhead import storage_figures, throwaway_study
from tests.tuning.fakes import tiny_spec_dict
from tuning.storage.records import GameRecord
from tuning.study.spec import parse_spec


def _rows(url: str) -> int:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(sa.select(sa.func.count()).select_from(GameRecord)
                                .where(GameRecord.study == "bench-x")).scalar()
    finally:
        engine.dispose()


def test_a_failed_measurement_leaves_no_study_and_no_rows_in_a_real_database(any_url):
    spec = parse_spec(tiny_spec_dict(name="bench-x"))
    with pytest.raises(RuntimeError, match="the run broke"):
        with throwaway_study(spec, any_url, real=True) as handle:
            handle.games.add_batches([(0, "train", "random", [], 0.0)])
            handle.games.add_batches([(0, "train", "random", _one_row(), 0.1)])
            assert _rows(any_url) == 2
            raise RuntimeError("the run broke")
    assert _rows(any_url) == 0
    assert "bench-x" not in optuna.get_all_study_names(storage=any_url)


def _one_row():
    from tests.tuning.fakes import fake_rows

    return fake_rows({"x": 1.0}, "random", [100], 0.5)


def test_no_trial_told_gives_no_figure_instead_of_a_crash():
    figures = storage_figures([], 0.0, 0.0)
    assert figures["storage_seconds_per_trial"] is None and figures["storage_seconds_per_game"] is None
    assert storage_figures([0.2, 0.4], 1.0, 4.0)["storage_seconds_per_trial"] == 0.3
