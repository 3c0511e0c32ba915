"""Duel figures (``ocean.duel``) from a hand-filled table of two games, and the same statistics
for a program refereed over the text protocol as for the same bot in compiled games."""
import sys

import numpy as np

from ocean import _match
from ocean import _state as S
from ocean.duel import DUEL_NAMES, DuelTally
from ocean.match import PairResults


def _game(a_side: int, winner: int, p0: dict, p1: dict) -> np.ndarray:
    row = np.zeros(_match.PAIR_COLUMNS, dtype=np.int64)
    row[_match.PAIR_A_SIDE], row[_match.PAIR_WINNER] = a_side, winner
    for p, stats in enumerate((p0, p1)):
        for name, value in stats.items():
            row[_match.PAIR_STATS + p * S.STATS_COUNT + S.STAT_NAMES.index(name)] = value
    return row


def _two_games() -> PairResults:
    # Game 0: A is player 0, hits first and wins. Game 1: A is player 1, B hits first, a draw.
    a0 = {"first_damage": 1, "torpedoes": 4, "direct_hits": 2, "torpedo_damage_taken": 1}
    b0 = {"torpedoes": 2, "torpedo_damage_taken": 5, "mine_damage_taken": 1, "surfaces_under_fire": 1}
    b1 = {"first_damage": 1, "torpedoes": 3, "direct_hits": 1, "torpedo_damage_taken": 2}
    a1 = {"torpedoes": 2, "direct_hits": 1, "torpedo_damage_taken": 4, "mine_damage_taken": 2, "surfaces_under_fire": 1}
    table = np.stack([_game(0, 0, a0, b0), _game(1, -1, b1, a1)])
    return PairResults(seeds=np.array([5]), table=table, player_turns=0)


def test_duel_figures_of_both_sides_by_hand():
    result = _two_games()
    a, b = DuelTally(), DuelTally()
    a.add(result, 0)
    b.add(result, 1)
    assert a.figures() == {
        "first_damage": 0.5, "won_after_first_damage": 1.0, "lost_after_first_damage_taken": 0.0,  # a draw is no loss
        "torpedoes": 3.0, "direct_hits": 1.5, "direct_hit_rate": 0.5, "damage_per_shot": round(7 / 6, 3),
        "torpedo_damage_dealt": 3.5, "mine_damage_dealt": 0.5, "mine_damage_taken": 1.0, "surfaces_under_fire": 0.5}
    assert b.figures() == {
        "first_damage": 0.5, "won_after_first_damage": 0.0, "lost_after_first_damage_taken": 1.0,
        "torpedoes": 2.5, "direct_hits": 0.5, "direct_hit_rate": 0.2, "damage_per_shot": 1.0,
        "torpedo_damage_dealt": 2.5, "mine_damage_dealt": 1.0, "mine_damage_taken": 0.5, "surfaces_under_fire": 0.5}
    a.add(result, 0)  # sums, not averages of averages
    assert a.figures()["damage_per_shot"] == round(14 / 12, 3) and a.sums["games"] == 4


def test_nothing_to_divide_by_is_none():
    assert DuelTally().figures() == dict.fromkeys(DUEL_NAMES)
    no_first = PairResults(seeds=np.array([1]), table=np.stack([_game(0, 0, {}, {}), _game(1, 1, {}, {})]),
                           player_turns=0)
    tally = DuelTally()
    tally.add(no_first, 0)
    figures = tally.figures()
    assert figures["first_damage"] == 0.0 and figures["torpedoes"] == 0.0
    assert figures["won_after_first_damage"] is None and figures["damage_per_shot"] is None


def test_a_program_gets_the_statistics_its_bot_gets_in_compiled_games(unsandboxed):
    # `ocean bot` seeds itself as compiled games seed a player: the refereed games are the
    # compiled ones, and so is every statistic of both sides, duel figures included.
    from ocean.bots import resolve_bot
    from ocean.match import play_pairs
    from ocean.timecontrol import TimeControl

    program = resolve_bot(f'cmd:"{sys.executable} -m ocean bot --name chaser --seed {{game_seed}}"')
    seeds = [3, 4]
    refereed = play_pairs(program, resolve_bot("hunter-v1"), seeds, time=TimeControl(scale=20.0), replays=0)
    compiled = play_pairs(resolve_bot("chaser"), resolve_bot("hunter-v1"), seeds)
    assert [e for e in refereed.errors if any(e)] == []
    np.testing.assert_array_equal(refereed.table, compiled.table)
    stats = refereed.stats(0), refereed.stats(1)
    assert stats[0]["torpedoes"].sum() > 0 and (stats[0]["first_damage"] + stats[1]["first_damage"]).sum() > 0


def test_the_engine_field_behind_surfaces_under_fire_stays_out_of_the_results():
    assert S.STAT_NAMES[S.ST_FIRST_DAMAGE] == "first_damage" and S.STAT_NAMES[S.ST_DIRECT_HITS] == "direct_hits"
    assert len(S.STAT_NAMES) == S.STATS_COUNT <= S.ST_HIT_AT < S.PLAYER_STRIDE - S.STATS
