"""The contract every in-process bot keeps, and what makes the tunable one tunable:
only lines whose every action executes, never disqualified, a pure function of the seed;
and every coefficient changes some decision."""
import numpy as np
import pytest

from ocean import _match, _rules
from ocean import _state as S
from ocean.bots import coefficients as C
from ocean.bots import BotSpec, known_bot_names, panel, resolve_bot
from ocean.constants import ACTION_FIELDS, END_DISQUALIFIED, MAX_LINE_ACTIONS, MAX_PLAYER_TURNS
from ocean.match import boards_for_seeds, play_pairs

ALL_BOTS = [n for n in known_bot_names()]


def _logged_game(board, bots, seed):
    state = _rules.new_state()
    log = np.zeros((MAX_PLAYER_TURNS, MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64)
    counts = np.zeros(MAX_PLAYER_TURNS + 2, dtype=np.int64)
    kinds = np.array([b.kind for b in bots])
    coefs = np.stack([b.vector() for b in bots])
    turns = _match.play_game(board, kinds, coefs, np.int64(seed), state, log, counts)
    return state, log[:turns].copy(), counts[:turns].copy(), counts[-2:].copy()


@pytest.mark.parametrize("name", ALL_BOTS)
def test_every_action_of_every_line_executes_and_nobody_is_disqualified(name):
    bot = resolve_bot(name)
    opponents = [resolve_bot("random"), resolve_bot("balanced")]
    trace = np.zeros((MAX_LINE_ACTIONS + 1, S.STATE_SIZE + 4), dtype=np.int64)
    seeds = list(range(40))
    for k, board in enumerate(boards_for_seeds(seeds)):
        bots = (bot, opponents[k % 2]) if k % 4 < 2 else (opponents[k % 2], bot)
        final, log, counts, starts = _logged_game(board, bots, seeds[k])
        assert final[S.END] != END_DISQUALIFIED, (name, k)
        # Replay: each line of our bot runs whole (unless it ends the game), nothing
        # dropped, no fallback SURFACE.
        me = bots.index(bot)
        state = _rules.new_state()
        _rules.start_game(state, board, starts[0], 0, starts[1], 0)
        t = 0
        while _rules.begin_turn(state):
            done = _rules.play_line(state, board, log[t], counts[t], trace)
            if state[S.ACTIVE] == me and state[S.END] == 0:
                assert done == counts[t] and not trace[:done, 3].any(), (name, k, t)
            t += 1


@pytest.mark.parametrize("name", ["tunable", "chaser", "random", "miner-v1"])
def test_a_game_is_a_pure_function_of_its_seed(name):
    a, b = resolve_bot(name), resolve_bot("stealth")
    first = play_pairs(a, b, range(300, 312))
    again = play_pairs(a, b, range(300, 312))
    assert np.array_equal(first.table, again.table)
    # Nor does a game depend on the games played before it in the same batch.
    alone = np.concatenate([play_pairs(a, b, [s]).table for s in reversed(range(300, 312))][::-1])
    assert np.array_equal(first.table, alone)


def test_identical_bots_split_every_pair():
    a = resolve_bot("tunable")
    b = BotSpec("copy", "tunable", C.defaults())
    result = play_pairs(a, b, range(40, 52))
    assert result.score_a().reshape(-1, 2).sum(axis=1).tolist() == [1.0] * 12


def _lines(spec: BotSpec, seeds) -> list:
    opponent = resolve_bot("balanced")
    out = []
    for seed, board in zip(seeds, boards_for_seeds(seeds)):
        for bots in ((spec, opponent), (opponent, spec)):
            _, log, counts, _ = _logged_game(board, bots, seed)
            out.append((log.tobytes(), counts.tobytes()))
    return out


@pytest.mark.parametrize("coefficient", C.NAMES)
def test_each_coefficient_moves_some_decision(coefficient):
    seeds = list(range(500, 512))
    base = _lines(resolve_bot("tunable"), seeds)
    c = {c.name: c for c in C.COEFFICIENTS}[coefficient]
    moved = False
    for value in (c.low, c.high):
        params = C.defaults()
        params[coefficient] = value
        if params[coefficient] != C.defaults()[coefficient] and _lines(BotSpec("probe", "tunable", params), seeds) != base:
            moved = True
            break
    assert moved, f"{coefficient} at its bounds changes no line in {len(seeds) * 2} games"


_LATER_SEEDS = list(range(500, 512))
_base_lines: dict = {}  # policy -> its default lines on _LATER_SEEDS, played once per module


def _default_lines(policy):
    if policy not in _base_lines:
        _base_lines[policy] = _lines(resolve_bot(policy), _LATER_SEEDS)
    return _base_lines[policy]


# A coefficient that only acts through another: the partner's value that wakes it up (v2's and
# v3's defaults do not approach the opponent, so how far it must be before they do is moot).
_PARTNERS = {"engage_distance": {"approach_weight": 0.08}}


@pytest.mark.parametrize("policy, coefficient", [(p, name) for p in (C.V2, C.V3) for name in C.names(p)])
def test_each_v2_and_v3_coefficient_moves_some_decision(policy, coefficient):
    c = {c.name: c for c in C.registry(policy)}[coefficient]
    partner = _PARTNERS.get(coefficient, {})
    base = _default_lines(policy)
    if partner:
        base = _lines(BotSpec("probe", policy, {**C.defaults(policy), **partner}), _LATER_SEEDS)
    moved = False
    for value in (c.low, c.high):
        params = {**C.defaults(policy), **partner}
        params[coefficient] = value
        if params[coefficient] != C.defaults(policy)[coefficient] and \
                _lines(BotSpec("probe", policy, params), _LATER_SEEDS) != base:
            moved = True
            break
    assert moved, f"{policy}: {coefficient} at its bounds changes no line in {len(_LATER_SEEDS) * 2} games"


def test_the_v2_bot_is_a_pure_function_of_the_seeds():
    seeds = [41, 42]
    assert _lines(resolve_bot("tunable-v2"), seeds) == _lines(resolve_bot("tunable-v2"), seeds)
    other = dict(C.defaults(C.V2), kill_bonus=0.0)
    assert _lines(BotSpec("copy", "tunable-v2", other), seeds) == _lines(BotSpec("copy2", "tunable-v2", other), seeds)


def test_the_v2_bot_beats_the_baselines_and_the_v1_defaults():
    v2 = resolve_bot("tunable-v2")
    for opponent, floor in (("random", 0.97), ("chaser", 0.9), ("tunable", 0.55)):
        result = play_pairs(v2, resolve_bot(opponent), range(1000, 1050))
        assert result.score_a().mean() >= floor, opponent


def test_the_tunable_bot_beats_the_baselines():
    tunable = resolve_bot("tunable")
    for opponent, floor in (("random", 0.95), ("chaser", 0.8)):
        result = play_pairs(tunable, resolve_bot(opponent), range(1000, 1050))
        assert result.score_a().mean() >= floor, opponent


def test_the_panel_holds_six_distinct_frozen_bots_with_stable_names():
    bots = panel("default")
    assert [b.name for b in bots] == ["random-v1", "chaser-v1", "hunter-v1", "stealth-v1", "miner-v1", "balanced-v1"]
    tunables = [b for b in bots if b.policy == "tunable-v1"]
    assert len({tuple(b.vector()) for b in tunables}) == len(tunables) == 4
    assert resolve_bot("hunter").name == "hunter-v2"  # the highest version
    with pytest.raises(ValueError, match="unknown bot"):
        resolve_bot("hunter-v9")
    # a near miss is named (issue 49), a far one is not guessed at
    with pytest.raises(ValueError, match=r"unknown bot 'stelth'; did you mean 'stealth'\? choose one of: "):
        resolve_bot("stelth")
    with pytest.raises(ValueError, match=r"unknown bot 'nobody'; choose one of: "):
        resolve_bot("nobody")


def test_frozen_panel_bots_still_play_exactly_as_when_they_were_frozen():
    from ocean.bots.panel import BUILTIN, panel_bots
    from ocean.fingerprint import behaviour_fingerprint

    for name, bot in panel_bots().items():
        assert bot["source"] == BUILTIN, "the suite runs without a user panel file (tests/conftest.py)"
        assert bot["fingerprint"], f"{name} has no fingerprint in panels.toml"
        assert behaviour_fingerprint(resolve_bot(name)) == bot["fingerprint"], (
            f"{name} no longer plays as it did when frozen: restore it, or add a new version")
