"""``ocean bot``'s kernels compiled ahead of time: one extension module per policy, loaded with
NumPy alone, so that a bot program answers its first turn without importing Numba.

Where ``ocean bot``'s first answer went (idle machine, before): Python and the command line
(Typer, Rich, every command's imports) about 250 ms, importing Numba about 170 ms, loading the
cached kernels about 115 ms (Numba's typing and target contexts, then each library's machine
code). ``ocean warmup`` now also compiles, with Numba's AOT compiler (``numba.pycc``), the
kernels ``ocean bot`` calls (the policy's start, reset and turn slots, the rules' ``start_game``
and ``play_line``, ``build_board_kernel``, ``seed_rng``) into one module per policy it warms up
(``--all``: every policy), kept in this version's cache folder (``ocean._cache``) per CPU.
The module's functions call the very kernels the games loop calls, through the same Numba
pipeline, for this machine's CPU: ``ocean bot`` plays the same lines with either (the tests
play both on the same games). Without the module (no warmup yet, another CPU) ``ocean bot``
loads the kernels through Numba as before.

A policy whose search can stop on the wall clock (the registry's ``clock``: ``tunable-v4``)
also exports the kernels its clock calls, as ``clock_<name>`` for each name of its clock
module's ``KERNELS`` (built from its ``aot_exports``), so that ``ocean bot --turn-ms N``
answers without Numba too.
"""
from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os

from ocean._cache import cache_folder

__all__ = ["module_path", "load", "build", "FUNCTIONS", "clock_functions"]

# What a module exports (the names ``ocean.program`` calls).
FUNCTIONS = ("seed_rng", "start", "reset", "turn", "start_game", "play_line", "build_board", "mem_size")


def _cpu_key() -> str:
    """A short key of this machine's CPU (its instruction-set flags): a module compiled for one
    CPU's instructions is never loaded on another that shares the cache folder. With
    NUMBA_CPU_NAME set (the Docker image's ``generic``), modules are compiled for that CPU and
    keyed by its name, as Numba's own kernels."""
    if os.environ.get("NUMBA_CPU_NAME"):
        return "cpu-" + "".join(c if c.isalnum() else "_" for c in os.environ["NUMBA_CPU_NAME"])
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("flags"):
                    return hashlib.sha256(line.encode()).hexdigest()[:12]
    except OSError:
        pass
    import platform

    return hashlib.sha256(f"{platform.machine()} {platform.processor()}".encode()).hexdigest()[:12]


def _name(kind: int) -> str:
    return f"ocean_bot{int(kind)}"


def module_path(kind: int) -> str:
    """Where the module of policy ``kind`` is (or goes) for this version and CPU."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    return os.path.join(cache_folder(), f"aot-{_cpu_key()}", _name(kind) + suffix)


def _clock_module(kind: int):
    """The module of policy ``kind``'s clocked search (the registry's ``clock``), or None."""
    from ocean.bots.registry import policy_of_kind

    clock = policy_of_kind(kind).clock
    return importlib.import_module(clock.partition(":")[0]) if clock is not None else None


def clock_functions(kind: int) -> tuple[str, ...]:
    """The names, beside ``FUNCTIONS``, that policy ``kind``'s module exports for its clock."""
    module = _clock_module(kind)
    return tuple(f"clock_{name}" for name in module.KERNELS) if module is not None else ()


def load(kind: int):
    """The compiled module of policy ``kind``, or None if there is none (or it does not load,
    or lacks a function: one built before its policy had a clock is built again by warmup)."""
    path = module_path(kind)
    if not os.path.exists(path):
        return None
    try:
        loader = importlib.machinery.ExtensionFileLoader(_name(kind), path)
        spec = importlib.util.spec_from_file_location(_name(kind), path, loader=loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
    except (ImportError, OSError):
        return None
    return module if all(hasattr(module, f) for f in FUNCTIONS + clock_functions(kind)) else None


def build(kind: int) -> str:
    """Compile the module of policy ``kind`` (Numba and a C compiler; tens of seconds, less on
    a warm kernel cache) and put it in place atomically; returns its path."""
    path = module_path(kind)  # of the source this process compiles, even if the files change meanwhile
    import shutil
    import tempfile

    import llvmlite.binding as ll
    import numpy as np
    from numba import typeof
    from numba.core import types
    from numba.pycc import CC

    from ocean import _rules
    from ocean import _state as S
    from ocean.board import build_board_kernel
    from ocean.bots._baselines import seed_rng
    from ocean.bots._slots import MEM_SIZE, SIGNATURES, load_slots
    from ocean.constants import ACTION_FIELDS, CELLS, ERR_NONE, MAX_LINE_ACTIONS

    start, reset, turn = load_slots(kind)
    # The rules' kernels at the types ``ocean.program`` calls them with (return types included).
    state = np.zeros(S.STATE_SIZE, dtype=np.int64)
    island = np.zeros(CELLS, dtype=np.uint8)
    board = build_board_kernel(island)
    out = np.zeros((MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64)
    trace = np.zeros((0, S.STATE_SIZE + 4), dtype=np.int64)
    _rules.start_game(state, board, 0, ERR_NONE, 0, ERR_NONE)
    _rules.play_line(state, board, out, 0, trace)
    rng = np.ones(1, dtype=np.uint64)
    seed_rng(rng, np.int64(1))

    def full(dispatcher, *args):
        """The full signature (return type too) ``dispatcher`` was compiled at for ``args``."""
        return dispatcher.overloads[tuple(typeof(a) for a in args)].signature

    memory = int(MEM_SIZE)

    def w_seed_rng(rng, seed):
        seed_rng(rng, seed)

    def w_start(board, rng):
        return start(board, rng)

    def w_reset(board, mem):
        return reset(board, mem)

    def w_turn(state, board, p, mem, rng, out, coefs):
        return turn(state, board, p, mem, rng, out, coefs)

    def w_start_game(state, board, cell0, error0, cell1, error1):
        _rules.start_game(state, board, cell0, error0, cell1, error1)

    def w_play_line(state, board, actions, n, trace):
        return _rules.play_line(state, board, actions, n, trace)

    def w_build_board(island):
        return build_board_kernel(island)

    def w_mem_size():
        return memory

    start_sig, reset_sig, turn_sig = SIGNATURES
    exports = {"seed_rng": (types.none(*full(seed_rng, rng, np.int64(1)).args), w_seed_rng),
               "start": (start_sig, w_start), "reset": (reset_sig, w_reset), "turn": (turn_sig, w_turn),
               "start_game": (types.none(*full(_rules.start_game, state, board, 0, ERR_NONE, 0, ERR_NONE).args),
                              w_start_game),
               "play_line": (full(_rules.play_line, state, board, out, 0, trace), w_play_line),
               "build_board": (full(build_board_kernel, island), w_build_board),
               "mem_size": (types.int64(), w_mem_size)}
    assert tuple(exports) == FUNCTIONS
    clock = _clock_module(kind)
    if clock is not None:  # the clocked search's kernels (nested tuples of arrays: pycc boxes them)
        exports.update({f"clock_{name}": export for name, export in clock.aot_exports().items()})
        assert tuple(exports)[len(FUNCTIONS):] == clock_functions(kind)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with tempfile.TemporaryDirectory(dir=os.path.dirname(path)) as work:
        cc = CC(_name(kind))
        cc.output_dir = work
        cc.target_cpu = os.environ.get("NUMBA_CPU_NAME") or ll.get_host_cpu_name()  # as Numba's kernels
        for name, (signature, function) in exports.items():
            cc.export(name, signature)(function)
        cc.compile()
        built = os.path.join(work, os.path.basename(path))
        shutil.copyfile(os.path.join(work, cc.output_file), built + ".part")
        os.replace(built + ".part", path)
    return path
