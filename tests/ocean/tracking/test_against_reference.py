"""The compiled tracker against the plain exact one (reference_tracker.py), on random
games of chaotic lines fed through the text protocol: it must keep every cell the exact
tracker keeps, and exactly those while no mine was triggered and the cap was not hit."""
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from ocean import _state as S
from ocean.maps import map_rows, generate_map
from ocean.protocol import summary_text
from ocean.tracking._driver import observe_from_state

from tests.ocean.tracking.heavy import heavy_line
from tests.ocean.tracking.reference_tracker import ReferenceTracker
from tests.ocean.tracking.scenario import Scenario


def _start(rng, rows):
    while True:
        x, y = rng.randrange(15), rng.randrange(15)
        if rows[y][x] == ".":
            return x, y


@settings(max_examples=60, deadline=None)
@given(map_seed=st.integers(-(2**40), 2**40), game_seed=st.integers(0, 2**32), turns=st.integers(4, 40))
def test_compiled_tracker_keeps_every_cell_the_exact_tracker_keeps(map_seed, game_seed, turns):
    rows = map_rows(generate_map(map_seed))
    rng = random.Random(game_seed)
    s = Scenario(_start(rng, rows), _start(rng, rows), rows=rows, cap=20000)
    ref = [ReferenceTracker(rows), ReferenceTracker(rows)]
    triggered = False
    for _ in range(turns):
        if not s.game.begin_turn():
            break
        p = s.game.active
        state = s.game.state
        me = S.player_base(p)
        sonar = {1: "Y", 0: "N"}.get(int(state[me + S.SONAR_RESULT]), "NA")
        opp_text = summary_text(state, 1 - p)
        ref[p].update(summary_text(state, p), sonar, opp_text, max(int(state[S.player_base(1 - p) + S.LIFE]), 0))
        triggered |= "TRIGGER" in opp_text
        observe_from_state(*s.trackers[p], s.game.board, state, p)
        assert s.truth_inside(p)
        cells = s.look(p)
        exact = ref[p].cells()
        assert exact <= cells
        if not triggered:
            assert cells == exact
        s.game.play_text(heavy_line(s.game, rng))


@settings(max_examples=40, deadline=None)
@given(map_seed=st.integers(-(2**40), 2**40), game_seed=st.integers(0, 2**32), cap=st.integers(225, 400))
def test_states_stay_under_the_cap_and_probabilities_are_distributions(map_seed, game_seed, cap):
    import numpy as np

    from ocean.tracking._layout import H_COUNT

    rows = map_rows(generate_map(map_seed))
    rng = random.Random(game_seed)
    s = Scenario(_start(rng, rows), _start(rng, rows), rows=rows, cap=cap)
    while s.play(lambda game: heavy_line(game, rng)):
        p = s.game.active
        for kind in (0, 1):
            assert 0 < s.trackers[p][kind][H_COUNT] <= cap
        assert s.truth_inside(p)
        mines = s.mines(p)
        assert mines.min() >= 0.0 and mines.max() <= 1.0
        probs = np.zeros(225)
        from ocean.tracking._query import cell_probabilities
        cells = cell_probabilities(s.trackers[p][1], probs)
        assert abs(probs.sum() - 1.0) < 1e-9 and cells == len(s.look(p, kind=1))
