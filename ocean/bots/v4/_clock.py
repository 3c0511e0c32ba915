"""The wall-clock guard of ``ocean bot --name tunable-v4 --turn-ms N`` (the registry's
``clock``): the same search as the turn kernel (``_turn.v4_turn``), its iterations run in
slices from Python, stopping at the budget or when the time given is spent, whichever comes
first. In-process games never come here: their budget is the iteration count alone."""
from __future__ import annotations

import time

from ocean.bots.v3._answer import TABLES_SIZE
from ocean.bots.v3._observe import M_TABLES
from ocean.bots.v4._tree import iterate
from ocean.bots.v4._turn import budget, v4_begin, v4_finish, v4_work

SLICE = 4  # iterations between two looks at the clock (one iteration: about 0.1-0.3 ms)

__all__ = ["SLICE", "clocked_turn"]


def clocked_turn(state, board, p, mem, rng, out, coefs, seconds: float) -> int:
    """Player ``p``'s line (rows in ``out``) from at most ``iterations`` iterations, none
    started later than ``seconds`` from now."""
    deadline = time.perf_counter() + seconds
    work = v4_work(coefs)
    total = int(budget(coefs))
    tables = mem[M_TABLES:M_TABLES + TABLES_SIZE]
    if v4_begin(state, board, p, mem, rng, coefs, work) > 1:
        done = 1
        while done < total and time.perf_counter() < deadline:
            target = min(done + SLICE, total)
            done = int(iterate(board, tables, coefs, rng, work, target))
            if done < target:
                break  # the node arrays are full
    return int(v4_finish(state, board, p, rng, out, coefs, work))
