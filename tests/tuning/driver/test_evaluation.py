"""A trial's batches: opponents in turn, stored pairs skipped, sized fixed or from the game speed;
pair scores from rows."""
import pytest

from ocean.bots import resolve_bot
from tests.tuning.fakes import fake_rows
from tuning.driver.evaluation import by_opponent, pair_scores_of_rows, plan_batches
from tuning.study.batching import BatchSizer


def test_batches_alternate_opponents_and_skip_pairs_already_stored():
    panel = [resolve_bot("random"), resolve_bot("chaser")]
    seeds = list(range(10, 17))
    batches = plan_batches(trial=4, phase="train", panel=panel, seeds=seeds, batch_pairs=3,
                           done={("chaser", 10), ("chaser", 11), ("random", 16)})
    assert [(b.opponent.name, b.seeds) for b in batches] == [
        ("random", (10, 11, 12)), ("chaser", (12, 13, 14)),
        ("random", (13, 14, 15)), ("chaser", (15, 16)),
    ]
    assert all(b.trial == 4 and b.phase == "train" for b in batches)
    assert sum(b.games for b in batches) == 2 * (2 * 7 - 3)


def test_pair_scores_of_rows_average_both_sides():
    rows = fake_rows({"k": 1.0}, "chaser", [5, 6], 0.5)
    scores = pair_scores_of_rows("chaser", rows)
    value = {"a": 1.0, "b": 0.0, "draw": 0.5}
    assert scores[("chaser", 5)] == (value[rows[0]["winner"]] + value[rows[1]["winner"]]) / 2
    assert pair_scores_of_rows("chaser", rows[:1]) == {}  # half a pair is no pair
    grouped = by_opponent({**scores, ("random", 5): 1.0}, ["random", "chaser"], seeds=[5])
    assert grouped == {"random": [1.0], "chaser": [scores[("chaser", 5)]]}


def test_a_fixed_batch_size_is_the_study_files():
    sizer = BatchSizer(7)
    sizer.observe(10, 50.0)
    assert not sizer.auto and sizer.pairs(100) == 7


def test_auto_batches_take_about_a_second_of_a_workers_time():
    sizer = BatchSizer("auto")
    assert sizer.auto and sizer.pairs(100) == 10 and sizer.pairs(4) == 4  # nothing timed yet
    sizer.observe(10, 0.05)  # the in-process bot: 5 ms a map
    assert sizer.pairs(1000) == 200 and sizer.pairs(50) == 50
    sizer.observe(10, 0.25)  # slower games pull the estimate, smoothed over batches
    assert sizer.seconds_per_pair == pytest.approx(0.8 * 0.005 + 0.2 * 0.025)
    assert sizer.pairs(1000) == round(1 / 0.009)
    slow = BatchSizer("auto", seconds_per_pair=6.0)  # a program that thinks for seconds
    assert slow.pairs(100) == 1
    fast = BatchSizer("auto", seconds_per_pair=1e-6)  # near-free games never make one giant batch
    assert fast.pairs(10**6) == 1000
    untimed = BatchSizer("auto")
    untimed.assume(0.0)  # games stored without a duration: the first guess, never a division by zero
    assert untimed.pairs(100) == 10
    sizer.observe(0, 1.0)
    sizer.observe(5, 0.0)  # nothing measured: no change
    assert sizer.pairs(1000) == round(1 / 0.009)
