"""The three function-pointer slots through which the games loop (``ocean._match``) and
``ocean bot`` (``ocean.program``) reach every policy of ``bots.registry``: their signatures
and the kernels that fill them.

Every slot kernel is compiled at exactly these signatures, by the loop (a kernel passed as
a function pointer compiles for the pointer's signature), by ``ocean bot`` and by ``ocean
warmup`` alike (``load``): Numba's disk cache keys a compiled kernel by the signature it was
asked for, so a kernel compiled for a full signature (the pointer's, with its return type)
would be compiled again, in another process, for a call that gives only argument types.
"""
from __future__ import annotations

from functools import cache

from numba.core import types

from ocean.bots import registry

__all__ = ["START_SIGNATURE", "RESET_SIGNATURE", "TURN_SIGNATURE", "START_TYPE", "RESET_TYPE", "TURN_TYPE",
           "MEM_SIZE", "slot_kernels", "load_slots"]

_i64 = types.int64
_ints = types.Array(types.int64, 1, "C")
_rng = types.Array(types.uint64, 1, "C")
# start: f(board, rng) -> the start cell
START_SIGNATURE = _i64(_ints, _rng)
# reset: f(board, mem) -> 0, before every game
RESET_SIGNATURE = _i64(_ints, _ints)
# turn: f(state, board, p, mem, rng, out, coefs) -> rows written to out
TURN_SIGNATURE = _i64(_ints, _ints, _i64, _ints, _rng, types.Array(types.int64, 2, "C"),
                      types.Array(types.float64, 1, "C"))
START_TYPE = types.FunctionType(START_SIGNATURE)
RESET_TYPE = types.FunctionType(RESET_SIGNATURE)
TURN_TYPE = types.FunctionType(TURN_SIGNATURE)
SIGNATURES = (START_SIGNATURE, RESET_SIGNATURE, TURN_SIGNATURE)  # in slot order

MEM_SIZE = registry.mem_size()  # every bot's memory array: enough for any policy


@cache
def slot_kernels(kind: int) -> tuple:
    """(start, reset, turn) kernels of policy ``kind``, not compiled by this call (the loop
    compiles or loads them when it first takes them as pointers)."""
    return registry.policy_of_kind(kind).kernels()


def load_slots(kind: int) -> tuple:
    """``slot_kernels(kind)`` compiled (or loaded from the cache) at the slot signatures, to
    be called from Python: the same compiled code the games loop calls."""
    kernels = slot_kernels(kind)
    for kernel, signature in zip(kernels, SIGNATURES):
        kernel.compile(signature)
    return kernels
