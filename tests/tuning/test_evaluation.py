"""A trial's batches: opponents in turn, stored pairs skipped; pair scores from rows."""
from ocean.bots import resolve_bot
from tests.tuning.fakes import fake_rows
from tuning.evaluation import by_opponent, pair_scores_of_rows, plan_batches


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
