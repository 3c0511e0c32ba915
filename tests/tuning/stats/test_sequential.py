"""The sequential validation's statistics: the race's drops, the not-worse margin in Elo, the
SPRT's expected length and its words when it runs out."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tuning.results.verdict import parts_text, sprt_part
from tuning.stats.sequential import (elo_margin_as_score, expected_pairs, leader, non_inferior,
                                     non_inferiority_power, pairs_to_decide, race_drops)
from tuning.stats.sprt import Settings


def _scores(rng, p, maps=200, opponents=2):
    return {(f"o{o}", m): float((rng.random() < p) + (rng.random() < p)) / 2
            for o in range(opponents) for m in range(maps)}


def test_the_race_drops_the_clearly_worse_and_keeps_the_leader():
    rng = np.random.default_rng(3)
    scores = {0: _scores(rng, 0.5), 1: _scores(rng, 0.8), 2: _scores(rng, 0.2), 3: _scores(rng, 0.79)}
    assert leader(scores, [0, 1, 2, 3]) in (1, 3)
    dropped = race_drops(scores, [0, 1, 2, 3])
    assert set(dropped) == {0, 2}  # 1 and 3 are too close to tell apart


def test_the_race_drops_nothing_from_one_candidate_or_identical_ones():
    same = {(o, m): 0.5 for o in "ab" for m in range(50)}
    assert race_drops({0: same, 1: dict(same)}, [0, 1]) == []  # no spread: nothing shown
    assert race_drops({0: same}, [0]) == []
    assert leader({0: same, 1: dict(same)}, [1, 0], prefer=0) == 0  # a tie goes to the preferred one


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 6))
def test_the_race_drops_a_candidate_as_good_as_the_leader_rarely(seed, m):
    """Equal candidates: over many races the share of races with a drop stays near or under alpha."""
    rng = np.random.default_rng(seed)
    drops = 0
    for _ in range(40):
        scores = {c: _scores(rng, 0.6, maps=60) for c in range(m)}
        drops += bool(race_drops(scores, list(range(m))))
    assert drops <= 8  # alpha 0.05 over 40 races: about 2 expected, 8 is far in the tail


def test_the_margin_in_elo_is_widest_near_an_even_score():
    assert elo_margin_as_score(0.5, 30) == pytest.approx(0.0430664, abs=1e-6)
    assert elo_margin_as_score(0.9, 30) < elo_margin_as_score(0.75, 30) < elo_margin_as_score(0.5, 30)
    assert non_inferior(-0.02, 0.03) and not non_inferior(-0.04, 0.03)
    assert non_inferiority_power(0.45, 1400, 0.035) > non_inferiority_power(0.45, 400, 0.035)
    assert non_inferiority_power(0.45, 1400, 0.035, true_diff=0.02) > non_inferiority_power(0.45, 1400, 0.035)
    assert math.isnan(non_inferiority_power(0.45, 1, 0.035))


def test_the_sprt_s_expected_length_is_longest_between_its_hypotheses():
    s = Settings(0.0, 10.0, 0.025, 0.05)
    at = {elo: expected_pairs(s, elo, 0.354) for elo in (-20, 0, 5, 10, 30)}
    assert at[5] > at[0] > at[-20] and at[5] > at[10] > at[30] > 0


def test_a_head_to_head_that_runs_out_says_no_decision_and_what_it_would_take():
    s = Settings(0.0, 10.0, 0.025, 0.05)
    pairs = [1.0, 0.5, 0.5, 0.75, 0.5, 0.25] * 20  # a little better, 120 pairs
    part = sprt_part(pairs, s, max_games=240)
    d = part.as_dict()
    assert d["decision"] == "no decision" and not d["passed"] and d["games"] == 240
    assert d["lower_bound"] < d["llr"] < d["upper_bound"] and d["more_games"] == 2 * pairs_to_decide(d["llr"], 120, s)
    text = parts_text({"verdict": "no gain shown", "failed": ["head_to_head"], "head_to_head": d,
                       "training_panel": None, "held_out": None})
    assert "SPRT: no decision, 240 games" in text and f"about {d['more_games']:,} more games" in text
    decided = sprt_part([1.0] * 200, s, max_games=1000).as_dict()
    assert decided["decision"] == "H1" and decided["passed"] and decided["more_games"] is None
    undecided = sprt_part([1.0] * 20, s, max_games=1000).as_dict()  # maps left: still playing, not "no decision"
    assert undecided["decision"] is None
