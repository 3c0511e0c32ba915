"""The wall-clock guard of ``ocean bot --name tunable-v4 --turn-ms N`` (the registry's
``clock``): the same search as the turn kernel (``_turn.v4_turn``), its iterations run in
slices from Python, stopping at the budget or when the time given is spent, whichever comes
first. In-process games never come here: their budget is the iteration count alone.

The loop (``clocked``) calls five kernels by name (``KERNELS``): through Numba
(``clocked_turn``, the registry's ``clock``), or from the policy's ahead-of-time module
(``ocean._aot`` exports them as ``clock_<name>``, built from ``aot_exports``), so that
``ocean bot --turn-ms`` answers its first turn without importing Numba. This module imports
no Numba itself (the fast path imports it); only the two functions that need kernels do.
"""
from __future__ import annotations

import time
from functools import cache

SLICE = 4  # iterations between two looks at the clock (one iteration: about 0.1-0.3 ms)

# What the clock calls: budget(coefs) -> iterations; work(coefs) -> the search's arrays;
# begin(state, board, p, mem, rng, coefs, work) -> root edges; iterate(board, mem, coefs, rng,
# work, target) -> iterations done in all; finish(state, board, p, rng, out, coefs, work) -> rows.
KERNELS = ("budget", "work", "begin", "iterate", "finish")

__all__ = ["SLICE", "KERNELS", "clocked", "clocked_turn", "aot_exports"]


def clocked(kernels: dict):
    """The clocked turn f(state, board, p, mem, rng, out, coefs, seconds) -> rows over
    ``kernels`` (each of ``KERNELS`` by name, compiled through Numba or ahead of time): player
    ``p``'s line (rows in ``out``) from at most ``iterations`` iterations, none started later
    than ``seconds`` from its call."""
    budget, work_of, begin, iterate, finish = (kernels[name] for name in KERNELS)

    def clocked_turn(state, board, p, mem, rng, out, coefs, seconds: float) -> int:
        deadline = time.perf_counter() + seconds
        work = work_of(coefs)
        total = int(budget(coefs))
        if begin(state, board, p, mem, rng, coefs, work) > 1:
            done = 1
            while done < total and time.perf_counter() < deadline:
                target = min(done + SLICE, total)
                done = int(iterate(board, mem, coefs, rng, work, target))
                if done < target:
                    break  # the node arrays are full
        return int(finish(state, board, p, rng, out, coefs, work))

    return clocked_turn


@cache
def _numba_clock():
    import numpy as np
    from numba import typeof
    from numba.core import types

    from ocean.bots._slots import TURN_SIGNATURE
    from ocean.bots.v3._answer import TABLES_SIZE
    from ocean.bots.v3._observe import M_TABLES
    from ocean.bots.v4._tree import iterate
    from ocean.bots.v4._turn import budget, v4_begin, v4_finish, v4_work

    # Load ``iterate`` now, at the types of the calls below: in ``ocean bot``'s warm-up (its first
    # answer) loading the other kernels spends the clock's share before the first slice, and
    # ``iterate`` then loaded in the first 50 ms turn (40-70 ms, measured).
    ints, _, _, _, rng_t, _, coefs_t = TURN_SIGNATURE.args
    v4_work.compile((coefs_t,))
    work_t = v4_work.overloads[(coefs_t,)].signature.return_type
    iterate.compile((ints, typeof(np.empty(2, dtype=np.int64)[:1]), coefs_t, rng_t, work_t, types.int64))

    def iterate_mem(board, mem, coefs, rng, work, target):
        # The answer tables are a slice of the memory, as v4_turn passes them.
        return iterate(board, mem[M_TABLES:M_TABLES + TABLES_SIZE], coefs, rng, work, target)

    return clocked({"budget": budget, "work": v4_work, "begin": v4_begin, "iterate": iterate_mem,
                    "finish": v4_finish})


def clocked_turn(state, board, p, mem, rng, out, coefs, seconds: float) -> int:
    """Player ``p``'s line (rows in ``out``) from at most ``iterations`` iterations, none
    started later than ``seconds`` from now, with the kernels through Numba."""
    return _numba_clock()(state, board, p, mem, rng, out, coefs, seconds)


def aot_exports() -> dict:
    """name -> (full signature, Python function calling the kernels) of each of ``KERNELS``,
    for ``numba.pycc`` (``ocean._aot.build``). The search's arrays (``work``) are a nested
    tuple of arrays: its type is the one ``v4_work`` returns, compiled here."""
    from numba.core import types

    from ocean.bots._slots import TURN_SIGNATURE
    from ocean.bots.v3._answer import TABLES_SIZE
    from ocean.bots.v3._observe import M_TABLES
    from ocean.bots.v4._tree import iterate
    from ocean.bots.v4._turn import budget, v4_begin, v4_finish, v4_work

    ints, _, i64, _, rng_t, out_t, coefs_t = TURN_SIGNATURE.args
    v4_work.compile((coefs_t,))
    work_t = v4_work.overloads[(coefs_t,)].signature.return_type

    def w_budget(coefs):
        return budget(coefs)

    def w_work(coefs):
        return v4_work(coefs)

    def w_begin(state, board, p, mem, rng, coefs, work):
        return v4_begin(state, board, p, mem, rng, coefs, work)

    def w_iterate(board, mem, coefs, rng, work, target):
        return iterate(board, mem[M_TABLES:M_TABLES + TABLES_SIZE], coefs, rng, work, target)

    def w_finish(state, board, p, rng, out, coefs, work):
        return v4_finish(state, board, p, rng, out, coefs, work)

    return {"budget": (types.int64(coefs_t), w_budget), "work": (work_t(coefs_t), w_work),
            "begin": (types.int64(ints, ints, i64, ints, rng_t, coefs_t, work_t), w_begin),
            "iterate": (types.int64(ints, ints, coefs_t, rng_t, work_t, i64), w_iterate),
            "finish": (types.int64(ints, ints, i64, rng_t, out_t, coefs_t, work_t), w_finish)}
