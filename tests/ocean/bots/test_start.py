"""Start cells: the tunable bot starts in the largest body of water, never in a closed pocket;
the frozen v1 styles and the baselines keep starting on any water cell."""
import numpy as np
from hypothesis import given, settings, strategies as st

from ocean.board import STEP, WATER
from ocean.bots import resolve_bot
from ocean.bots._baselines import random_start, seed_rng
from ocean.bots._tunable_v1 import roomy_start
from ocean.constants import CELLS
from ocean.match import boards_for_seeds, play_pairs

POCKET_SEED = 274  # its map has an 11-cell pocket in the top-left corner, closed by islands


def _bodies_of_water(board) -> list[set[int]]:
    """Connected bodies of water, largest first (plain Python, independent of the kernel)."""
    left = {c for c in range(CELLS) if board[WATER + c]}
    bodies = []
    while left:
        todo = [left.pop()]
        body = set(todo)
        while todo:
            c = todo.pop()
            for d in range(4):
                t = int(board[STEP + c * 4 + d])
                if t >= 0 and t in left:
                    left.discard(t)
                    body.add(t)
                    todo.append(t)
        bodies.append(body)
    return sorted(bodies, key=len, reverse=True)


def _starts(pick, board, n):
    rng = np.empty(1, dtype=np.uint64)
    out = []
    for seed in range(n):
        seed_rng(rng, seed)
        out.append(int(pick(board, rng)))
    return out


def test_the_tunable_bot_never_starts_in_the_pocket_the_random_start_falls_into():
    (board,) = boards_for_seeds([POCKET_SEED])
    largest, pocket = _bodies_of_water(board)[:2]
    assert len(pocket) == 11
    assert set(_starts(random_start, board, 2000)) & pocket  # the old rule lands there
    assert set(_starts(roomy_start, board, 2000)) <= largest


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=-2**63, max_value=2**63 - 1), st.integers(min_value=0, max_value=2**31))
def test_roomy_start_is_always_a_water_cell_of_the_largest_body(map_seed, rng_seed):
    (board,) = boards_for_seeds([map_seed])
    largest = _bodies_of_water(board)[0]
    rng = np.empty(1, dtype=np.uint64)
    seed_rng(rng, rng_seed)
    assert int(roomy_start(board, rng)) in largest


def test_on_the_pocket_map_today_s_bot_beats_random_where_the_v1_rule_lost():
    # The frozen v1 styles start as they did when frozen: on this map one of their games
    # against random starts in the pocket and is lost to forced surfaces.
    old = play_pairs(resolve_bot("balanced-v1"), resolve_bot("random"), [POCKET_SEED])
    new = play_pairs(resolve_bot("tunable"), resolve_bot("random"), [POCKET_SEED])
    assert old.score_a().tolist() == [0.0, 1.0] or old.score_a().tolist() == [1.0, 0.0]
    assert new.score_a().tolist() == [1.0, 1.0]
