"""Rules of RULES.md on hand-drawn boards, played through ``Game`` exactly as a program would."""
import pytest

from ocean.game import Game, state_snapshot

OPEN = ["." * 15] * 15

# A wall of islands at x=7, y=0..13: the only way across is along y=14.
WALL = ["." * 7 + "x" + "." * 7] * 14 + ["." * 15]


def play(rows, start0, start1, script0, script1):
    """Play scripted lines (lists of lines per player); returns the game when a script ends
    or the game is over. Scripts may be shorter for the player that moves second."""
    game = Game(rows=rows)
    game.start(start0, start1)
    scripts = [list(script0), list(script1)]
    inputs = []
    while game.begin_turn():
        p = game.active
        if not scripts[p]:
            break
        inputs.append((p, game.turn_input()))
        game.play_text(scripts[p].pop(0))
    game.inputs = inputs
    return game


def player(game, p):
    return state_snapshot(game.state)["players"][p]


def test_move_marks_visited_and_charges_the_named_power_with_a_cap():
    game = play(OPEN, "0 0", "14 14", ["MOVE E TORPEDO"] * 4 + ["MOVE S"], ["MOVE W"] * 5)
    me = player(game, 0)
    assert (me["x"], me["y"]) == (4, 1)
    assert me["charges"]["TORPEDO"] == 3  # capped at its need
    assert [0, 0] in me["visited"] and [4, 0] in me["visited"]
    cooldowns = [inp for p, inp in game.inputs if p == 0]
    assert cooldowns[3][0] == "3 0 6 6 0 4 6 3"  # torpedo ready after three charges


@pytest.mark.parametrize("line, why", [
    ("MOVE N", "Invalid move. Tried to move outside map or onto island"),
    ("MOVE W", "Invalid move. Tried to move outside map or onto island"),
])
def test_moving_off_the_map_disqualifies(line, why):
    game = play(OPEN, "0 0", "14 14", [line], [])
    assert game.over and game.disqualified[0] == why and game.scores == [-1, 6] and game.winner == 1


def test_moving_onto_an_island_or_a_visited_cell_disqualifies():
    assert play(WALL, "6 0", "14 14", ["MOVE E"], []).disqualified[0].startswith("Invalid move")
    game = play(OPEN, "5 5", "14 14", ["MOVE E", "MOVE W"], ["MOVE W"])
    assert game.disqualified[0] == "Can't visit same location twice. Use surface."


def test_chained_move_charges_before_the_torpedo_is_checked_and_range_is_from_the_new_cell():
    # After two charging moves the torpedo has 2 charges; the third MOVE brings it to 3
    # within the same line, and (8, 0) is 4 steps from the new cell (4, 0) but 5 from (3, 0).
    lines = ["MOVE E TORPEDO", "MOVE E TORPEDO", "MOVE E TORPEDO|TORPEDO 8 0"]
    game = play(OPEN, "1 0", "8 1", lines, ["MOVE S", "MOVE S", "MOVE S"])
    assert game.lives == [6, 6]  # the opponent had walked on to (8, 3)
    assert player(game, 0)["charges"]["TORPEDO"] == 0
    assert game.inputs[-1] == (1, ["8 3 6 6 3 4 6 3", "NA", "MOVE E|TORPEDO 8 0"])


def test_torpedo_order_matters_fire_before_the_charging_move_is_dropped():
    game = play(OPEN, "0 0", "14 14", ["MOVE E TORPEDO", "MOVE E TORPEDO", "TORPEDO 0 3|MOVE E TORPEDO"], ["MOVE W"] * 2)
    assert player(game, 0)["charges"]["TORPEDO"] == 3  # dropped, then charged


def test_torpedo_range_counts_a_path_through_water_and_islands_block():
    # From (5, 12) the cell (8, 12) is 3 away as the crow flies, but the wall at x=7 forces
    # a 7-step path round its south end: dropped, so the line falls back to SURFACE.
    charge = ["MOVE S TORPEDO", "MOVE S TORPEDO", "MOVE W TORPEDO"]
    game = play(WALL, "6 10", "8 0", charge + ["TORPEDO 8 12"], ["MOVE E"] * 4)
    assert game.lives == [5, 6] and player(game, 0)["charges"]["TORPEDO"] == 3
    game = play(WALL, "6 10", "8 0", charge + ["TORPEDO 5 8"], ["MOVE E"] * 4)  # 4 steps: fired
    assert game.lives == [6, 6] and player(game, 0)["charges"]["TORPEDO"] == 0
    game = play(WALL, "6 10", "8 0", charge + ["TORPEDO 6 8"], ["MOVE E"] * 4)  # 5 steps: dropped
    assert game.lives == [5, 6]


def test_firing_at_your_own_cell_is_allowed_and_costs_two_lives():
    charge = ["MOVE E TORPEDO", "MOVE E TORPEDO", "MOVE E TORPEDO"]
    game = play(OPEN, "0 5", "10 10", charge + ["TORPEDO 3 5"], ["MOVE N"] * 3)
    assert game.lives == [4, 6]


def test_one_blast_hurts_both_players_adjacent_and_on_the_cell():
    charge = ["MOVE E TORPEDO", "MOVE E TORPEDO", "MOVE S TORPEDO"]
    # p0 ends at (4, 1); p1 walks to (6, 2): (5, 1) is next to both, (6, 2) is p1's cell.
    game = play(OPEN, "2 0", "5 4", charge + ["TORPEDO 5 1"], ["MOVE N", "MOVE N", "MOVE E"])
    p1 = player(game, 1)
    assert (p1["x"], p1["y"]) == (6, 2)
    assert game.lives == [5, 5]
    game = play(OPEN, "2 0", "5 4", charge + ["TORPEDO 6 2"], ["MOVE N", "MOVE N", "MOVE E"])
    assert game.lives == [6, 4]


def test_lives_floor_at_zero_and_both_at_zero_is_a_draw():
    game = play(OPEN, "0 0", "0 1",
                ["SURFACE"] * 5 + ["MOVE E TORPEDO", "MOVE E TORPEDO", "MOVE S TORPEDO|TORPEDO 1 1"],
                ["SURFACE"] * 5 + ["MOVE S", "MOVE E"])
    assert game.over and game.reason == "life"
    assert game.lives == [0, 0] and game.winner == -1 and game.scores == [0, 0]


def test_surface_resets_visited_costs_a_life_and_reveals_the_sector():
    game = play(OPEN, "7 7", "0 0", ["MOVE E", "SURFACE", "MOVE W", "MOVE W"], ["MOVE E"] * 4)
    me = player(game, 0)
    assert (me["x"], me["y"]) == (6, 7) and game.lives[0] == 5
    shown = [inp[2] for p, inp in game.inputs if p == 1]
    assert shown[1] == "SURFACE 5"


def test_sonar_answer_arrives_in_the_next_input_only():
    charge = ["MOVE E SONAR"] * 4
    # p1 is at (8, 12), sector 8, when p0 scans; the second SONAR has no charges: dropped.
    game = play(OPEN, "0 0", "12 12", charge + ["SONAR 8", "SONAR 1|MOVE S", "MOVE S"], ["MOVE W"] * 7)
    mine = [inp for p, inp in game.inputs if p == 0]
    assert [inp[1] for inp in mine] == ["NA"] * 5 + ["Y", "NA"]
    assert [inp[2] for p, inp in game.inputs if p == 1][4] == "SONAR 8"


def test_silence_zero_is_legal_and_shown_as_silence():
    charge = ["MOVE S SILENCE"] * 6
    game = play(OPEN, "0 0", "14 14", charge + ["SILENCE E 0"], ["MOVE W"] * 7)
    me = player(game, 0)
    assert (me["x"], me["y"]) == (0, 6) and me["charges"]["SILENCE"] == 0
    game = play(OPEN, "0 0", "14 14", charge + ["SILENCE E 3", "MOVE N"], ["MOVE W"] * 8)
    assert [inp[2] for p, inp in game.inputs if p == 1][6] == "SILENCE"
    assert (player(game, 0)["x"], player(game, 0)["y"]) == (3, 5)


def test_silence_onto_a_visited_cell_disqualifies():
    game = play(OPEN, "0 0", "14 14", ["MOVE S SILENCE"] * 6 + ["SILENCE N 2"], ["MOVE W"] * 7)
    assert game.disqualified[0] == "Can't visit same location twice. Use surface."


def test_mines_are_dropped_on_islands_and_on_own_mines_and_fresh_ones_cannot_be_triggered():
    charge = ["MOVE S MINE"] * 3
    # At (6, 3) the east cell is the wall: dropped (charges kept), the MOVE still runs.
    game = play(WALL, "6 0", "14 14", charge + ["MINE E|MOVE S", "MINE W|TRIGGER 5 4"], ["MOVE W"] * 5)
    assert player(game, 0)["mines"] == [[5, 4]] and player(game, 0)["charges"]["MINE"] == 0
    assert game.lives == [6, 6]  # the same-turn trigger was dropped
    # A second mine on the same cell is dropped; a mine on a visited cell is fine.
    lines = charge + ["MINE N", "MOVE E MINE", "MOVE E MINE", "MOVE N MINE", "MOVE W|MINE W"]
    game = play(OPEN, "6 0", "14 14", lines, ["MOVE W"] * 7)
    assert player(game, 0)["mines"] == [[6, 2]] and player(game, 0)["charges"]["MINE"] == 3


def test_trigger_explodes_an_older_mine_once():
    lines = ["MOVE S MINE"] * 3 + ["MINE E", "MOVE S", "MOVE S", "TRIGGER 7 3", "TRIGGER 7 3|MOVE S"]
    game = play(OPEN, "6 0", "7 4", lines, ["MOVE S"] * 8)
    # p1 walked from (7, 4) south; the blast at (7, 3) is far from both by then
    assert player(game, 0)["mines"] == []
    shown = [inp[2] for p, inp in game.inputs if p == 1]
    assert shown[6] == "TRIGGER 7 3" and shown[7] == "MOVE S"


def test_repeated_words_disqualify_before_anything_runs_but_msg_may_repeat():
    game = play(OPEN, "5 5", "14 14", ["MOVE E|MOVE N"], [])
    assert game.disqualified[0] == "Two equal commands executed." and player(game, 0)["x"] == 5
    game = play(OPEN, "5 5", "14 14", ["MSG a|MOVE E|MSG b"], ["MOVE W"])
    assert not game.disqualified[0] and player(game, 0)["x"] == 6


def test_an_unknown_word_disqualifies_only_when_reached():
    game = play(OPEN, "5 5", "14 14", ["MOVE E|SONAR 3|FOO"], [])
    assert game.disqualified[0] == "Unknown command" and player(game, 0)["x"] == 6


def test_a_power_without_charges_is_dropped_before_its_arguments_are_read():
    game = play(OPEN, "5 5", "14 14", ["TORPEDO banana|MOVE E", "MOVE E"], ["MOVE W"] * 2)
    assert not game.over and player(game, 0)["x"] == 7
    charged = ["MOVE E TORPEDO"] * 3 + ["TORPEDO banana"]
    game = play(OPEN, "0 5", "14 14", charged, ["MOVE W"] * 3)
    assert game.disqualified[0].startswith("Invalid params to Torpedo")


@pytest.mark.parametrize("line", ["", "MSG only", "TORPEDO 1 1|SONAR 2|SILENCE N 1|MINE N|TRIGGER 3 3"])
def test_nothing_valid_falls_back_to_surface(line):
    game = play(OPEN, "5 5", "14 14", [line], ["MOVE W"])
    assert game.lives == [5, 6]
    assert [inp[2] for p, inp in game.inputs if p == 1][0] == "SURFACE 5"


def test_start_answers_that_disqualify():
    game = Game(rows=WALL)
    game.start("7 0", "0 0")  # an island
    assert game.over and game.scores == [-1, 6] and game.winner == 1 and game.turns == 0
    game = Game(rows=OPEN)
    game.start("0 0 ", "x")
    assert game.scores == [-1, -1] and game.winner == -1 and game.reason == "disqualified"


def test_a_lethal_action_ends_the_game_before_the_rest_of_the_line():
    game = play(OPEN, "0 0", "14 14", ["SURFACE"] * 5 + ["SURFACE|MOVE E"], ["MOVE W"] * 5)
    assert game.over and game.lives == [0, 6] and player(game, 0)["x"] == 0
    game = play(OPEN, "0 0", "14 14", ["SURFACE"] * 5 + ["SURFACE|FOO"], ["MOVE W"] * 5)
    assert game.disqualified[0] == "Unknown command"  # the trailing check still runs in that frame


def test_sectors_follow_the_referee_formula_on_every_cell():
    for y in range(15):
        for x in range(15):
            game = Game(rows=OPEN)
            game.start(f"{x} {y}", "0 0")
            game.begin_turn()
            game.play_text("SURFACE")
            game.begin_turn()
            expected = -(-(x + 1) // 5) + (y // 5) * 3  # ceil((x+1)/5) + floor(y/5)*3
            assert game.turn_input()[2] == f"SURFACE {expected}"


def test_in_process_bots_start_by_cell_with_the_same_checks():
    game = Game(rows=WALL)
    game.start_cells(6 * 15 + 0, 14 * 15 + 14)  # (0, 6) and (14, 14): water
    assert not game.over and player(game, 0)["x"] == 0 and player(game, 1)["y"] == 14
    game = Game(rows=WALL)
    game.start_cells(7, 0)  # (7, 0) is the wall
    assert game.scores == [-1, 6] and game.disqualified[0] == "Invalid coordinates!"


def stats(game, p):
    """Player p's reported statistics (``ocean._layout.STAT_NAMES``) in ``game``'s state."""
    from ocean import _state as S

    base = S.player_base(p) + S.STATS
    return dict(zip(S.STAT_NAMES, (int(v) for v in game.state[base:base + S.STATS_COUNT])))


def test_a_direct_hit_deals_the_first_damage_and_a_surface_right_after_it_is_under_fire():
    # Player 0 charges from (0, 0) to (3, 0) and fires 4 cells east onto player 1's cell (7, 0)
    # at turn 7; player 1 surfaces at turn 8 (1 turn after the hit: under fire) and at turn 12
    # (5 turns after: the opponent's last two turns, 9 and 11, took nothing).
    game = play(OPEN, "0 0", "6 2", ["MOVE E TORPEDO"] * 3 + ["TORPEDO 7 0", "MOVE S", "MOVE S"],
                ["MOVE N", "MOVE N", "MOVE E", "SURFACE", "MOVE W", "SURFACE"])
    assert game.lives == [6, 2]
    shooter, target = stats(game, 0), stats(game, 1)
    assert (shooter["first_damage"], shooter["torpedoes"], shooter["torpedo_hits"], shooter["direct_hits"]) == (1, 1, 1, 1)
    assert target["torpedo_damage_taken"] == 2 and target["first_damage"] == 0
    assert (target["surfaces"], target["surfaces_under_fire"]) == (2, 1)
    assert shooter["surfaces_under_fire"] == 0


def test_a_mine_can_deal_the_first_damage_and_an_answer_on_the_cell_is_a_direct_hit():
    # Player 0 lays a mine at (2, 0), walks off to (1, 2) and triggers it at turn 13: player 1,
    # at (3, 0) beside it, loses 1 (the game's first damage, a mine's). Player 1 answers at
    # turn 14 with a torpedo on (1, 2): 2 lives, a direct hit but not the first damage. Player 0
    # surfaces at turns 15 and 17 (the opponent's hit 1 and 3 turns before: under fire) and 19
    # (5 turns after); player 1 at turn 18 (its last loss at turn 13: not under fire).
    p0 = ["MOVE N MINE", "MOVE N MINE", "MOVE E MINE", "MINE E", "MOVE S", "MOVE S", "TRIGGER 2 0", "SURFACE",
          "SURFACE", "SURFACE"]
    p1 = ["MOVE S TORPEDO", "MOVE S TORPEDO", "MOVE W TORPEDO", "MOVE N", "MOVE W", "MOVE N", "TORPEDO 1 2",
          "MOVE E", "SURFACE"]
    game = play(OPEN, "0 2", "5 0", p0, p1)
    assert game.lives == [1, 4]
    miner, shooter = stats(game, 0), stats(game, 1)
    assert (miner["first_damage"], miner["damage_dealt"], miner["direct_hits"], miner["self_damage"]) == (1, 1, 0, 0)
    assert (shooter["first_damage"], shooter["direct_hits"], shooter["mine_damage_taken"]) == (0, 1, 1)
    assert (miner["surfaces"], miner["surfaces_under_fire"]) == (3, 2)
    assert (shooter["surfaces"], shooter["surfaces_under_fire"]) == (1, 0)


def test_a_near_miss_is_a_hit_but_not_direct_and_own_damage_is_never_the_first():
    # Player 0's torpedo on (4, 1) touches itself at (3, 0) and player 1 at (5, 0): both lose 1,
    # the opponent's life makes it the first damage, a hit, not a direct one.
    game = play(OPEN, "0 0", "6 2", ["MOVE E TORPEDO"] * 3 + ["TORPEDO 4 1"], ["MOVE N", "MOVE W", "MOVE N"])
    assert game.lives == [5, 5]
    assert (stats(game, 0)["first_damage"], stats(game, 0)["torpedo_hits"], stats(game, 0)["direct_hits"]) == (1, 1, 0)
    # Fired at its own cell with the opponent far away: a life lost, no first damage for anyone.
    game = play(OPEN, "0 0", "14 14", ["MOVE E TORPEDO"] * 3 + ["TORPEDO 3 0", "SURFACE"], ["MOVE W"] * 4)
    assert game.lives == [3, 6] and stats(game, 0)["self_damage"] == 2
    assert stats(game, 0)["first_damage"] == stats(game, 1)["first_damage"] == 0
    assert stats(game, 0)["surfaces_under_fire"] == 0  # its own torpedo is no fire
