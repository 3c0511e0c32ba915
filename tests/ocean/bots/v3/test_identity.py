"""v3's games, line for line, are the ones recorded before v4's greedy and v3's line choice
were made to share one scoring kernel (issue 34): studies/tuned-v3.toml and every figure
measured with v3 depend on its games staying the same. A digest of every encoded line, the
start cells and the final state of a fixed set of games (several maps, v3 on both seats,
against balanced-v2, at v3's defaults and at a second coefficient vector) is compared with the
digest recorded from the code before the change."""
import hashlib

import numpy as np

from ocean import _layout, _match
from ocean import _rules
from ocean.board import build_board
from ocean.bots import BotSpec, coefficients as C, resolve_bot
from ocean.constants import ACTION_FIELDS, MAX_LINE_ACTIONS, MAX_PLAYER_TURNS
from ocean.maps import generate_map

V3 = "tunable-v3"
_SEEDS = (3, 11, 29, 404, 5151)
# Produced by this module's ``_digest()`` on branch v4 at commit d1cb1a1 (main before the shared
# kernel), i.e. from v3's own ``choose_line`` loop, before any change to ocean/bots/v3.
RECORDED = "4af14e3e439f764c39987aac51bfb7869efc5e53b177eed0fa570a11864d2b90"


def _shifted():
    """A second v3 vector, away from the defaults, so that more of the scoring's branches
    count (a later answer, the opponent's SILENCE attack, a thinner TORPEDO)."""
    return BotSpec("v3-shifted", V3, {**C.defaults(V3), "torpedo_hit_threshold": 0.3, "stealth_weight": 0.3,
                                      "retaliation_weight": 1.0, "life_lead_weight": 0.4,
                                      "later_answer_weight": 0.5, "opponent_silence_attack": 0.5,
                                      "counter_value": 0.6})


def _without_later_statistics(state: np.ndarray) -> np.ndarray:
    """The final state as the recording saw it: the duel statistics (issue 48) fill fields that
    were spare (0) when the digest was recorded; they count what happened, they change no move."""
    out = state.copy()
    for player in (0, 1):
        stats = _layout.GLOBALS + player * _layout.PLAYER_STRIDE + _layout.STATS
        out[stats + _layout.ST_FIRST_DAMAGE:stats + _layout.ST_HIT_AT + 1] = 0
    return out


def _digest():
    h = hashlib.sha256()
    opponent = resolve_bot("balanced-v2")
    for v3 in (resolve_bot(V3), _shifted()):
        for seed in _SEEDS:
            board = build_board(generate_map(seed))
            for specs in ((v3, opponent), (opponent, v3)):
                kinds = np.array([s.kind for s in specs], dtype=np.int64)
                coefs = np.stack([s.vector() for s in specs])
                state = _rules.new_state()
                log = np.zeros((MAX_PLAYER_TURNS, MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64)
                counts = np.zeros(MAX_PLAYER_TURNS + 2, dtype=np.int64)
                turns = _match.play_game(board, kinds, coefs, np.int64(seed), state, log, counts)
                h.update(np.int64(turns).tobytes())
                h.update(log[:turns].tobytes())
                h.update(counts[:turns].tobytes())
                h.update(counts[MAX_PLAYER_TURNS:].tobytes())
                h.update(_without_later_statistics(state).tobytes())
    return h.hexdigest()


def test_v3_plays_the_games_recorded_before_the_shared_kernel():
    assert _digest() == RECORDED
