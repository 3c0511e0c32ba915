"""Properties of the rules over random, often malformed, lines (hypothesis)."""
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ocean import _state as S
from ocean.constants import ERR_NONE, POWER_COST
from ocean.game import Game
from ocean.protocol import format_line, parse_line

_WORDS = ["MOVE", "SURFACE", "TORPEDO", "SONAR", "SILENCE", "MINE", "TRIGGER", "MSG", "move", "FOO", ""]
_ARGS = ["N", "S", "E", "W", "n", "Q", "TORPEDO", "SONAR", "SILENCE", "MINE", "0", "1", "3", "4", "5", "-1",
         "+2", "14", "99", "2147483648", "\u0663", "x", "", " ", "\t"]

piece = st.builds(lambda w, args, pad: pad + " ".join([w, *args]) + pad,
                  st.sampled_from(_WORDS), st.lists(st.sampled_from(_ARGS), max_size=3),
                  st.sampled_from(["", " ", "\t", "\x00"]))
line = st.builds(lambda pieces, sep: sep.join(pieces), st.lists(piece, max_size=5), st.sampled_from(["|", "||", " | "]))


def _visited(game, p):
    base = S.player_base(p)
    return {c for c in range(225) if (int(game.state[base + S.VISITED + (c >> 6)]) >> (c & 63)) & 1}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(-(2**63), 2**63 - 1), lines=st.lists(line, min_size=1, max_size=40),
       starts=st.tuples(st.integers(0, 224), st.integers(0, 224)))
def test_random_lines_never_break_the_rules(seed, lines, starts):
    game = Game(seed)
    water = [c for c in range(225) if game.rows[c // 15][c % 15] == "."]
    cells = [water[s % len(water)] for s in starts]
    game.start(*(f"{c % 15} {c // 15}" for c in cells))
    before = game.lives
    for text in lines:
        running = game.begin_turn()
        assert running == (not game.over)
        if not running:
            break
        game.play_text(text)
        lives = game.lives
        assert all(-1 <= v <= 6 for v in lives)
        assert all(now <= then for now, then in zip(lives, before))  # lives never rise
        before = lives
        for q in range(2):
            base = S.player_base(q)
            for k in range(4):
                assert 0 <= game.state[base + S.CHARGE + k] <= POWER_COST[k]
            if game.state[base + S.LIFE] >= 0:
                assert int(game.state[base + S.CELL]) in _visited(game, q)
    if game.over:
        assert not game.begin_turn()


@settings(max_examples=200, deadline=None)
@given(line)
def test_parsing_never_fails_and_well_formed_rows_round_trip(text):
    rows = parse_line(text)
    assert rows.shape[1] == 4 and rows.shape[0] <= 8
    if rows.shape[0] and (rows[:, 3] == ERR_NONE).all() and (rows[:, 0] != 7).all():
        again = parse_line(format_line(rows))
        assert np.array_equal(again, rows)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), steps=st.lists(st.sampled_from("NSEW"), min_size=1, max_size=30))
def test_after_surface_only_the_current_cell_is_visited(seed, steps):
    game = Game(seed)
    water = [c for c in range(225) if game.rows[c // 15][c % 15] == "."]
    game.start(f"{water[0] % 15} {water[0] // 15}", f"{water[-1] % 15} {water[-1] // 15}")
    for d in steps:
        if not game.begin_turn():
            break
        p = game.active
        game.play_text(f"MOVE {d}|SURFACE" if game.turns % 3 else f"SURFACE|MOVE {d}")
        if game.over:
            break
        cell = int(game.state[S.player_base(p) + S.CELL])
        visited = _visited(game, p)
        if game.turns % 3:
            assert visited == {cell}
        else:
            assert cell in visited and len(visited) == 2
