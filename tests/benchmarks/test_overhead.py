"""tune bench's measurements. Program costs: a real program (the knob's C build) played by the
real referee, the parts adding up to the wall time, each measured, not assumed. Storage: nothing
left in a real database, even when the run fails, and no figure rather than a crash when no trial
was told (real PostgreSQL and SQLite)."""
import math

import optuna
import pytest
import sqlalchemy as sa

from benchmarks.overhead import program_costs, storage_figures, throwaway_study
from ocean.bots import PROGRAM, BotSpec, ProgramSpec, resolve_bot
from ocean.timecontrol import TimeControl
from tests.programs.build import build_c
from tests.tuning.fakes import tiny_spec_dict
from tuning.storage.records import GameRecord
from tuning.study.spec import parse_spec


def test_a_program_games_costs_are_split_into_the_programs_the_labs_and_waiting(tmp_path):
    knob = build_c(tmp_path)
    bot = BotSpec("program", PROGRAM, {}, ProgramSpec(f"{knob} --skill 0.9 --seed {{game_seed}}"))
    costs = program_costs(bot, resolve_bot("random"), 3, TimeControl(50, 1000, 20.0), starts=3)
    assert costs["program_games"] == 6 and costs["program_turns_per_game"] > 1
    parts = costs["program_cpu_ms_per_game"] + costs["lab_cpu_ms_per_game"] + costs["waiting_ms_per_game"]
    assert math.isclose(parts, costs["wall_ms_per_game"], abs_tol=0.01)
    assert costs["program_cpu_ms_per_game"] > 0 and costs["lab_cpu_ms_per_game"] > 0
    assert costs["start_teardown_ms"] > 0 and costs["lab_cpu_us_per_turn"] > 0


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
