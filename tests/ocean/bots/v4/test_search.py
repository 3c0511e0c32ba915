"""v4's tree over v3's lines: with a budget of one iteration it is v3 move for move; a search
is a pure function of its seeds and budget; the wall-clock guard of ``ocean bot --turn-ms``
stops the search in time. Budgets here are tiny: strength is measured in benchmarks/v4search.py."""
import time

import numpy as np

from ocean import _rules
from ocean import _state as S
from ocean.bots import BotSpec, coefficients as C, resolve_bot
from ocean.bots._baselines import seed_rng
from ocean.bots._slots import MEM_SIZE
from ocean.bots.v3._observe import v3_reset
from ocean.bots.v4._clock import clocked_turn
from ocean.constants import ACTION_FIELDS, MAX_LINE_ACTIONS
from ocean.match import boards_for_seeds, play_pairs

V4 = "tunable-v4"
_SEEDS = [3, 11]


def _v4(**values):
    return BotSpec("v4", V4, {**C.defaults(V4), **values})


def _games(spec, opponent="balanced-v2"):
    return play_pairs(spec, resolve_bot(opponent), _SEEDS).table


def _v3_reading(values):
    """v3 with the evaluation coefficients of a v4 set."""
    return BotSpec("v3", "tunable-v3", {n: values[n] for n in C.names("tunable-v3")})


def test_with_one_iteration_v4_plays_exactly_v3():
    # v3 at v4's own evaluation defaults (studies/tuned-v4.toml's values), and at v3's defaults
    assert np.array_equal(_games(_v4(iterations=1)), _games(_v3_reading(C.defaults(V4))))
    assert np.array_equal(_games(_v4(iterations=1, **C.defaults("tunable-v3"))), _games(resolve_bot("tunable-v3")))


def test_v4s_defaults_are_the_point_its_study_found():
    """studies/tuned-v4.toml (studies/v4mix.toml's theta), every coefficient exactly: the games
    measured on that point are the defaults' games."""
    _, tuned = C.read_params_file("studies/tuned-v4.toml")
    v4, v3 = C.defaults(V4), C.defaults("tunable-v3")
    assert tuned == v4
    assert any(v4[n] != v3[n] for n in v3)  # v3's own defaults stay v3's


def test_the_same_seed_and_budget_play_the_same_game():
    spec = _v4(iterations=6, determinizations=2)
    first = _games(spec)
    assert np.array_equal(first, _games(spec))
    assert not np.array_equal(first, _games(_v4(iterations=1)))  # the search changes the games


def _first_turn(seed=7):
    board = boards_for_seeds(np.array([seed]))[0]
    state = _rules.new_state()
    _rules.start_game(state, board, 16, 0, 200, 0)
    _rules.begin_turn(state)
    mem = np.zeros(MEM_SIZE, dtype=np.int64)
    v3_reset(board, mem)
    rng = np.empty(1, dtype=np.uint64)
    seed_rng(rng, np.int64(1))
    return board, state, mem, rng


def _cpu_of_clocked_turn(seconds, coefs):
    board, state, mem, rng = _first_turn()
    out = np.zeros((MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64)
    start = time.process_time()
    n = clocked_turn(state, board, 0, mem, rng, out, coefs, seconds)
    cpu = time.process_time() - start
    _rules.play_line(state, board, out, n, np.zeros((0, S.STATE_SIZE + 4), dtype=np.int64))
    assert state[S.player_base(0) + S.ERROR] == 0 and n > 0  # a legal line either way
    return cpu


def test_the_clock_stops_a_large_budget_in_time():
    coefs = _v4(iterations=300).vector()
    _cpu_of_clocked_turn(0.0, coefs)  # every kernel compiled or loaded before timing
    _cpu_of_clocked_turn(60.0, coefs)
    full = _cpu_of_clocked_turn(60.0, coefs)
    # CPU time, not the wall clock: the machine running the tests may be busy.
    assert _cpu_of_clocked_turn(0.0, coefs) < 0.5 * min(full, _cpu_of_clocked_turn(60.0, coefs))
