"""Games an opponent loses to its clock or a crash: never scored, counted per trial and
opponent, and a run stopped in one line when an opponent does it too often."""
import re

import pytest

from tests.tuning.fakes import FakePool, tiny_spec_dict
from tuning.driver.evaluation import pair_scores_of_rows
from tuning.driver.faults import FAULT_MIN_GAMES, FAULT_SHARE, OpponentFaults
from tuning.driver.runner import StudyRunner
from tuning.driver.worker import BatchResult, summarize_batch
from tuning.errors import TuningError
from tuning.results.status import study_status
from tuning.storage.handle import create_study
from tuning.study.spec import parse_spec


class FailingOpponent(FakePool):
    """A fake pool whose opponent ``who`` needed a replay in the games ``failed(seed, side)``
    picks, and failed every replay (set aside) where ``aside(seed, side)`` does."""

    def __init__(self, who, failed, aside=lambda seed, side: False, **kw):
        super().__init__(**kw)
        self.who, self.failed, self.aside = who, failed, aside

    def wait(self, timeout):
        done = super().wait(timeout)
        out = []
        for batch, result in done:
            if batch.opponent.name == self.who and not isinstance(result, Exception):
                for row in result.rows:
                    if self.failed(row["seed"], row["a_side"]):
                        row["replays"] = 3 if self.aside(row["seed"], row["a_side"]) else 1
                        row["set_aside"] = self.aside(row["seed"], row["a_side"])
                        if row["set_aside"]:
                            row["winner"], row["b_error"] = "a", "Timeout!"
                result = BatchResult(result.rows, result.seconds, result.player_turns, result.worker)
            out.append((batch, result))
        return out


def test_a_pair_with_a_game_set_aside_is_not_scored():
    rows = [{"seed": 1, "winner": "a", "replays": 3, "set_aside": True}, {"seed": 1, "winner": "b"},
            {"seed": 2, "winner": "a", "replays": 1}, {"seed": 2, "winner": "draw"}]
    assert pair_scores_of_rows("x", rows) == {("x", 2): 0.75}
    summary = summarize_batch("x", [{**r, "b_error": "Timeout!" if r.get("set_aside") else None} for r in rows])
    assert (summary.replayed, summary.set_aside, summary.first_fault) == (2, 1, "seed 1: Timeout!")


def test_replays_are_counted_per_trial_and_opponent_and_set_aside_pairs_never_count(any_url, tmp_path):
    spec = parse_spec(tiny_spec_dict(n_trials=2, pruning={"enabled": False}, seed_bank={"start": 100, "count": 40}))
    handle = create_study(spec, any_url)
    try:
        pool = FailingOpponent("chaser", failed=lambda seed, side: seed % 10 == 0 and side == 0,
                               aside=lambda seed, side: seed % 20 == 0)
        StudyRunner(handle, pool=pool).run()
        for trial in handle.trials():
            assert trial.user_attrs["games_replayed"] == 4 and trial.user_attrs["games_set_aside"] == 2
            assert trial.user_attrs["per_opponent"]["chaser"]["n"] == 38  # two pairs set aside
            assert trial.user_attrs["per_opponent"]["random"]["n"] == 40
        assert handle.games.set_aside_pairs(0, "train") == {("chaser", 100), ("chaser", 120)}
        status = study_status(handle)
        assert status["games_replayed"] == 8 and status["games_set_aside"] == 4
        assert status["disqualifications"]["chaser"]["replayed"] == 8
        from tuning.results.report import write_report

        write_report(handle, tmp_path / "r.html")
        page = (tmp_path / "r.html").read_text()
        row = re.search(r"<tr><td>chaser</td>(.*?)</tr>", page).group(1)
        assert re.findall(r"<td>([^<]*)</td>", row)[:5] == ["160", "0", "4", "8", "4"]  # 2 trials x 40 maps x 2; replayed, set aside
    finally:
        handle.close()


def test_an_opponent_failing_too_often_stops_the_run_in_one_line(any_url):
    spec = parse_spec(tiny_spec_dict(n_trials=3, pruning={"enabled": False}, seed_bank={"start": 100, "count": 40}))
    handle = create_study(spec, any_url)
    try:
        pool = FailingOpponent("chaser", failed=lambda seed, side: seed % 5 < 2)  # two games in five
        with pytest.raises(TuningError) as caught:
            StudyRunner(handle, pool=pool).run()
        line = str(caught.value)
        assert "\n" not in line and line.startswith("opponent chaser lost ")
        assert "to its clock or a crash" in line and "tune resume tiny" in line
    finally:
        handle.close()


def test_the_limit_needs_enough_games_and_a_share_above_it():
    faults = OpponentFaults("tune resume x")
    faults.add("a", FAULT_MIN_GAMES - 2, FAULT_MIN_GAMES - 2, "seed 1")  # every game, but too few to judge
    faults.add("b", 100, int(FAULT_SHARE * 100), "seed 1")  # at the limit, not above it
    with pytest.raises(TuningError, match="opponent a lost 40 of 40 games"):
        faults.add("a", 2, 2, None)
