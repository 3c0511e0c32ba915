"""``ocean bot``'s kernels compiled ahead of time: extension modules loaded with NumPy alone, so
that a bot program answers its first turn without importing Numba.

Where ``ocean bot``'s first answer went (idle machine, before): Python and the command line
(Typer, Rich, every command's imports) about 250 ms, importing Numba about 170 ms, loading the
cached kernels about 115 ms (Numba's typing and target contexts, then each library's machine
code). ``ocean warmup`` now also compiles, with Numba's AOT compiler (``numba.pycc``), the
kernels ``ocean bot`` calls (the policy's start, reset and turn slots, the rules' ``start_game``
and ``play_line``, ``build_board_kernel``, ``seed_rng``) into modules for the policies it warms up
(``--all``: every policy), kept in this version's cache folder (``ocean._cache``) per CPU.
The module's functions call the very kernels the games loop calls, through the same Numba
pipeline, for this machine's CPU: ``ocean bot`` plays the same lines with either (the tests
play both on the same games). Without the module (no warmup yet, another CPU) ``ocean bot``
loads the kernels through Numba as before.

Several policies can share one module (``build_group``, what ``ocean warmup`` builds): the rules'
kernels are compiled once for all of them and a kernel two policies share (the v1 turn of
``tunable`` and ``tunable-v1``) once, where one module per policy compiled them again for each
(issue 49: five modules were 18 s of ``ocean warmup``'s 53). ``load(kind)`` returns a policy's
functions under the same names from either.

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
from types import SimpleNamespace

from ocean._cache import cache_folder

__all__ = ["module_path", "group_path", "load", "build", "build_group", "FUNCTIONS", "clock_functions"]

# What a module exports (the names ``ocean.program`` calls).
FUNCTIONS = ("seed_rng", "start", "reset", "turn", "start_game", "play_line", "build_board", "mem_size")
SLOTS = ("start", "reset", "turn")  # a policy's own; the rest are the rules', shared in a group module
_GROUP = "ocean_bots"  # a group module's name: ocean_bots_<kind>_<kind>...


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


def _folder() -> str:
    return os.path.join(cache_folder(), f"aot-{_cpu_key()}")


def module_path(kind: int) -> str:
    """Where the module of policy ``kind`` alone is (or goes) for this version and CPU."""
    return os.path.join(_folder(), _name(kind) + importlib.machinery.EXTENSION_SUFFIXES[0])


def _group_name(kinds) -> str:
    return "_".join([_GROUP] + [str(int(k)) for k in sorted(kinds)])


def group_path(kinds) -> str:
    """Where the module shared by policies ``kinds`` is (or goes) for this version and CPU."""
    return os.path.join(_folder(), _group_name(kinds) + importlib.machinery.EXTENSION_SUFFIXES[0])


def _slot_names(kinds) -> dict[int, dict[str, str]]:
    """In a group module, the exported name of each policy's start, reset and turn: one export
    per distinct kernel (named after the first policy of ``kinds`` that uses it)."""
    from ocean.bots.registry import policy_of_kind

    names, seen = {}, {}
    for kind in sorted(int(k) for k in kinds):
        entry = policy_of_kind(kind)
        names[kind] = {slot: seen.setdefault(getattr(entry, slot), f"{slot}_k{kind}") for slot in SLOTS}
    return names


def _group_of(kind: int) -> tuple[str, tuple[int, ...]] | None:
    """(path, kinds) of a group module of this version and CPU that holds policy ``kind``."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    try:
        files = sorted(os.listdir(_folder()))
    except OSError:
        return None
    for file in files:
        stem = file[:-len(suffix)] if file.endswith(suffix) else ""
        parts = stem.split("_")[2:] if stem.startswith(_GROUP + "_") else []
        if parts and all(p.isdigit() for p in parts) and str(int(kind)) in parts:
            return os.path.join(_folder(), file), tuple(int(p) for p in parts)
    return None


def _load_file(name: str, path: str):
    try:
        loader = importlib.machinery.ExtensionFileLoader(name, path)
        spec = importlib.util.spec_from_file_location(name, path, loader=loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
    except (ImportError, OSError):
        return None
    return module


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
    """The compiled functions of policy ``kind`` (``FUNCTIONS``, and its clock's): its own
    module, else a group module that holds it; None if there is none (or it does not load, or
    lacks a function: one built before its policy had a clock is built again by warmup)."""
    path = module_path(kind)
    if os.path.exists(path):
        module = _load_file(_name(kind), path)
        if module is not None and all(hasattr(module, f) for f in FUNCTIONS + clock_functions(kind)):
            return module
    group = _group_of(kind) if not clock_functions(kind) else None
    if group is None:
        return None
    module = _load_file(_group_name(group[1]), group[0])
    names = _slot_names(group[1])[int(kind)]
    wanted = [f for f in FUNCTIONS if f not in SLOTS] + list(names.values())
    if module is None or not all(hasattr(module, f) for f in wanted):
        return None
    return SimpleNamespace(**{f: getattr(module, names.get(f, f)) for f in FUNCTIONS})


def build(kind: int) -> str:
    """Compile the module of policy ``kind`` alone (Numba and a C compiler; tens of seconds,
    less on a warm kernel cache) and put it in place atomically; returns its path."""
    return _build(_name(kind), module_path(kind), [int(kind)], grouped=False)


def build_group(kinds) -> str:
    """Compile one module for the policies ``kinds`` (none with a clock), the rules' kernels and
    every shared kernel once, and put it in place atomically; returns its path."""
    kinds = sorted({int(k) for k in kinds})
    if any(clock_functions(k) for k in kinds):
        raise ValueError("a policy with a clock has a module of its own (build)")
    return _build(_group_name(kinds), group_path(kinds), kinds, grouped=True)


def _slot_wrapper(kernel, slot: str):
    """A function of its own for the export of ``kernel`` in ``slot`` (pycc exports functions)."""
    if slot == "start":
        def exported(board, rng):
            return kernel(board, rng)
    elif slot == "reset":
        def exported(board, mem):
            return kernel(board, mem)
    else:
        def exported(state, board, p, mem, rng, out, coefs):
            return kernel(state, board, p, mem, rng, out, coefs)
    return exported


def _build(module_name: str, path: str, kinds: list[int], *, grouped: bool) -> str:
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

    slots = {kind: dict(zip(SLOTS, load_slots(kind))) for kind in kinds}
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

    def w_start_game(state, board, cell0, error0, cell1, error1):
        _rules.start_game(state, board, cell0, error0, cell1, error1)

    def w_play_line(state, board, actions, n, trace):
        return _rules.play_line(state, board, actions, n, trace)

    def w_build_board(island):
        return build_board_kernel(island)

    def w_mem_size():
        return memory

    slot_signature = dict(zip(SLOTS, SIGNATURES))
    exports = {"seed_rng": (types.none(*full(seed_rng, rng, np.int64(1)).args), w_seed_rng),
               "start_game": (types.none(*full(_rules.start_game, state, board, 0, ERR_NONE, 0, ERR_NONE).args),
                              w_start_game),
               "play_line": (full(_rules.play_line, state, board, out, 0, trace), w_play_line),
               "build_board": (full(build_board_kernel, island), w_build_board),
               "mem_size": (types.int64(), w_mem_size)}
    names = _slot_names(kinds) if grouped else {kinds[0]: {slot: slot for slot in SLOTS}}
    for kind in kinds:
        for slot, name in names[kind].items():
            if name not in exports:  # a kernel shared by two policies is exported once
                exports[name] = (slot_signature[slot], _slot_wrapper(slots[kind][slot], slot))
    if not grouped:
        exports = {name: exports[name] for name in FUNCTIONS}  # in the order of before
        clock = _clock_module(kinds[0])
        if clock is not None:  # the clocked search's kernels (nested tuples of arrays: pycc boxes them)
            exports.update({f"clock_{name}": export for name, export in clock.aot_exports().items()})
            assert tuple(exports)[len(FUNCTIONS):] == clock_functions(kinds[0])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with tempfile.TemporaryDirectory(dir=os.path.dirname(path)) as work:
        cc = CC(module_name)
        cc.output_dir = work
        cc.target_cpu = os.environ.get("NUMBA_CPU_NAME") or ll.get_host_cpu_name()  # as Numba's kernels
        for name, (signature, function) in exports.items():
            cc.export(name, signature)(function)
        cc.compile()
        built = os.path.join(work, os.path.basename(path))
        shutil.copyfile(os.path.join(work, cc.output_file), built + ".part")
        os.replace(built + ".part", path)
    return path
