"""Hand-built situations, each checking one kind of news the tracker must use: what it
narrows to, and that the truth stays inside."""
import pytest

from ocean.constants import WIDTH

from tests.ocean.tracking.scenario import Scenario


def _sector_cells(sector: int) -> set[tuple[int, int]]:
    x0, y0 = (sector - 1) % 3 * 5, (sector - 1) // 3 * 5
    return {(x, y) for x in range(x0, x0 + 5) for y in range(y0, y0 + 5)}


def _ring(x: int, y: int) -> set[tuple[int, int]]:
    return {(x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)
            if (dx or dy) and 0 <= x + dx < WIDTH and 0 <= y + dy < WIDTH}


def test_surface_reveals_the_sector_and_clears_visited_cells():
    s = Scenario((2, 2), (12, 12))
    s.turn("MOVE E")
    s.turn("SURFACE")
    s.turn("MOVE E")
    assert s.look(0) == _sector_cells(9)
    s.turn("MOVE N")  # p1 may now move back onto cells it visited before surfacing
    s.turn("MOVE S")
    assert s.look(0) == {(x, y - 1) for x, y in _sector_cells(9)}
    assert s.lost == 0


@pytest.mark.parametrize("sector, answer", [(9, "Y"), (1, "N"), (5, "N")])
def test_sonar_answer_keeps_or_removes_the_sector(sector, answer):
    s = Scenario((2, 2), (12, 12))
    for d in "NWNW":
        s.turn("MOVE E SONAR")
        s.turn(f"MOVE {d}")  # p1 ends on (10, 10), in sector 9
    s.turn(f"SONAR {sector}|MOVE S")
    s.turn("MOVE N")
    s.turn("MOVE S")
    seen = {(x, y + 1) for x, y in s.look(0)}  # where p1 was when the sonar answered
    inside = seen & _sector_cells(sector)
    if answer == "Y":
        assert seen == inside
    else:
        assert not inside
    assert s.truth_inside(0) and s.lost == 0


def _charge_torpedo(s: Scenario) -> None:
    for d0, d1 in (("E", "W"), ("E", "W"), ("E", "W")):
        s.turn(f"MOVE {d0} TORPEDO")
        s.turn(f"MOVE {d1} TORPEDO")


def test_torpedo_direct_hit_pins_the_opponent():
    s = Scenario((2, 7), (9, 7))
    _charge_torpedo(s)  # p0 at (5, 7), p1 at (6, 7)
    s.turn("TORPEDO 6 7|MOVE N")  # p0 hurts itself too: it stands next to the blast
    assert s.life(1) == 4 and s.life(0) == 5
    s.turn("MOVE N")
    s.turn("MOVE N")
    assert s.look(0) == {(6, 6)}


def test_torpedo_near_miss_leaves_the_ring_and_a_miss_removes_the_blast():
    s = Scenario((2, 7), (10, 7))
    _charge_torpedo(s)  # p0 at (5, 7), p1 at (7, 7)
    s.turn("TORPEDO 8 7|MOVE N")
    assert s.life(1) == 5
    s.turn("MOVE S")
    s.turn("MOVE N")
    assert s.look(0) <= {(x, y + 1) for x, y in _ring(8, 7)}
    assert (7, 8) in s.look(0)

    s = Scenario((2, 7), (10, 7))
    _charge_torpedo(s)
    s.turn("TORPEDO 7 5|MOVE N")  # in range, two rows short of p1
    assert s.life(1) == 6
    s.turn("MOVE S")
    s.turn("MOVE N")
    assert not ({(x, y + 1) for x, y in _ring(7, 5) | {(7, 5)}} & s.look(0))
    assert s.truth_inside(0)


def test_self_damage_of_the_opponent_pins_it_next_to_its_blast():
    s = Scenario((12, 2), (2, 7))
    s.turn("MOVE S")
    for _ in range(3):
        s.turn("MOVE E TORPEDO")
        s.turn("MOVE S")
    s.turn("TORPEDO 6 7|MOVE S")  # p1 at (5, 7) fires next to itself: it loses a life
    assert s.life(1) == 5
    s.turn("MOVE S")
    expected = {(x, y + 1) for x, y in _ring(6, 7)}
    assert s.look(0) == expected
    assert s.truth_inside(0)
    # The assumption tracker would never believe it shot itself, finds nothing, falls back.
    assert s.look(0, kind=1) == expected


def test_one_blast_hurts_both_players():
    s = Scenario((2, 7), (10, 7))
    _charge_torpedo(s)  # p0 at (5, 7), p1 at (7, 7)
    s.turn("MOVE N")  # p0 to (5, 6)
    s.turn("TORPEDO 6 7|MOVE S")  # p1 hits itself and p0, then goes to (7, 8)
    assert s.life(0) == 5 and s.life(1) == 5
    s.turn("MOVE N")
    assert s.look(0) == {(x, y + 1) for x, y in _ring(6, 7)}
    assert s.truth_inside(0) and s.truth_inside(0, kind=1)


def test_trigger_of_an_old_mine_prunes_and_forgets_the_mine():
    s = Scenario((12, 12), (2, 2))
    s.turn("MOVE N")
    for _ in range(3):
        s.turn("MOVE E MINE")
        s.turn("MOVE N")
    s.turn("MINE S|MOVE E")  # p1 lays a mine at (5, 3) from (5, 2), then goes to (6, 2)
    for d in "EEEE":
        s.turn("MOVE N")
        s.turn(f"MOVE {d}")
    s.turn("MOVE N")
    assert s.mines(0).sum() > 0.99
    s.turn("TRIGGER 5 3|MOVE S")  # p1 at (10, 2) blows it
    s.turn("MOVE N")
    assert s.truth_inside(0)
    assert s.mines(0).sum() < 1e-9  # the only mine is gone
    s.turn("MOVE S")
    s.turn("MOVE N")
    assert s.lost == 0


def _snake():
    """Moves of a submarine sweeping the open sea from (0, 14) row by row, never stuck."""
    while True:
        for row in range(7):
            yield from ["E"] * 14 if row % 2 == 0 else ["W"] * 14
            yield "N"


def test_the_cap_collapses_states_and_keeps_the_truth():
    s = Scenario((0, 14), (7, 7), cap=225)
    sweep = _snake()
    silences = ["SILENCE E 2", "SILENCE W 0", "SILENCE E 1", "SILENCE N 1"]
    for k, silence in enumerate(silences):
        for d in ("E", "E", "S", "W", "W", "S") if k % 2 == 0 else ("E", "E", "N", "W", "W", "N"):
            s.turn(f"MOVE {next(sweep)}")
            s.turn(f"MOVE {d} SILENCE")
        s.turn(f"MOVE {next(sweep)}")
        s.turn(silence)
        s.turn(f"MOVE {next(sweep)}")
        s.turn("SURFACE")
    s.turn(f"MOVE {next(sweep)}")
    assert s.collapses(0) > 0
    assert s.truth_inside(0)
    assert s.lost == 0
