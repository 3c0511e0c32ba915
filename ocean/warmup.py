"""``ocean warmup``: compile (or load from the cache) every kernel the commands use, once
after installing, so that the first ``ocean bot`` answers inside CodinGame's 1000 ms and no
command pays for compilation in the middle of its work.

What it compiles comes from the bot registry (``bots.registry``): the rules, the trackers,
the one games loop (which holds no bot: every bot plays through its function-pointer slots)
and the slot kernels of every policy marked ``warmup``; with ``--all`` the policies compiled
on first use too (``FIRST_USE_POLICIES``).

Where a cold compile goes (Numba compiles each kernel into a library of its own and links
every kernel it calls into it, so a caller re-optimises and re-generates the machine code
of everything below it): the tracker's update, the tunable bots' turns (which feed three
trackers each) and the rules' ``play_line`` are the big ones; the rest are small. On an
empty cache the work is split over two processes: this one compiles the v1 bot's small
helpers, the trackers' update and every second tunable bot's turn, then maps and boards,
while a helper process compiles the tracker's steps (which that update needs next), the
rules, the games loop, the first tunable bot's turn and the small slot kernels; then this
one runs every family, loading what the other compiled from the cache. Both processes write
the same cache folder (Numba's cache is safe for concurrent writers; a kernel compiled twice
is only time lost).
"""
from __future__ import annotations

import importlib.util
import io
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

from ocean.bots import registry

__all__ = ["warm_up", "program_is_compiled", "kernels_cached", "kernel_name"]


def program_is_compiled(kind: int | None = None) -> bool:
    """True if ``ocean bot``'s kernels are in the cache of this version of the package: the
    rules' and the three slot kernels of policy ``kind`` (``bots.registry``), or with no kind
    those of every policy ``ocean warmup`` compiles. A policy compiled on first use (such as
    ``tunable-v3``) is compiled by ``ocean warmup --all`` or its first game, not by ``ocean
    warmup``."""
    policies = ([registry.policy_of_kind(kind)] if kind is not None else
                [registry.policy(name) for name in registry.WARMUP_POLICIES])
    return _cached(_PROGRAM_KERNELS + _slot_patterns(policies))


def kernels_cached(*references: str) -> bool:
    """True if the cache of this version holds each kernel a ``"module:function"`` reference
    names (compiled at some signature): a command about to compile one says so first."""
    return _cached(tuple(_index_pattern(ref) for ref in references))


def _index_pattern(reference: str) -> str:
    """The name of the index file Numba's cache writes for the kernel a ``"module:function"``
    reference names (its file's name, the function, its line), found without importing it."""
    module, _, function = reference.partition(":")
    return f"{Path(importlib.util.find_spec(module).origin).stem}.{function}-*.nbi"


def _slot_patterns(policies) -> tuple[str, ...]:
    return tuple(dict.fromkeys(_index_pattern(ref) for p in policies for ref in (p.start, p.reset, p.turn)))


# Index files of the rules' kernels ``ocean bot`` calls beside its bot's.
_PROGRAM_KERNELS = ("_rules.play_line-*.nbi", "_rules.start_game-*.nbi")
_LOOP_KERNELS = ("_match.play_games-*.nbi", "_driver.observe_from_state-*.nbi")


def _compiled_policies(all_bots: bool) -> tuple[str, ...]:
    return registry.WARMUP_POLICIES + (registry.FIRST_USE_POLICIES if all_bots else ())


def _every_family(all_bots: bool = False) -> tuple[str, ...]:
    return _PROGRAM_KERNELS + _LOOP_KERNELS + _slot_patterns([registry.policy(n) for n in _compiled_policies(all_bots)])


def _cached(patterns) -> bool:
    import numba

    from ocean import _jit  # noqa: F401  (sets the cache folder)

    folder = Path(numba.config.CACHE_DIR)
    return folder.is_dir() and all(any(folder.rglob(pattern)) for pattern in patterns)


def _types():
    from numba.core import types as T

    return (T.int64, T.float64, T.boolean, T.Array(T.int64, 1, "C"), T.Array(T.int64, 2, "C"),
            T.Array(T.float64, 1, "C"), T.Array(T.uint64, 1, "C"))


def _slot_kernels(names) -> tuple[list, list]:
    """(kernel, slot signature) of the policies ``names``, each kernel once, as the games loop
    and ``ocean bot`` compile them (``bots._slots``), in two lists: the turns of the policies
    that read coefficients (the long chains of kernels, seconds each), and the rest (starts,
    resets, the baselines' turns: small)."""
    from ocean.bots import _slots

    turns, rest, seen = [], [], set()
    for name in names:
        entry = registry.policy(name)
        for kernel, signature in zip(entry.kernels(), _slots.SIGNATURES):
            if id(kernel) not in seen:
                seen.add(id(kernel))
                (turns if signature is _slots.TURN_SIGNATURE and entry.tunable else rest).append((kernel, signature))
    return turns, rest


# Signatures are those of the calls in the compiled callers (tests/ocean/test_warmup.py
# checks that each is the one really used). The tunable bots' turns are dealt to the two
# processes in turn, the helper's first: on 2026-11-26 the v1 turn took 4.4 s of CPU, the v2
# turn 12.2 s, so the helper's tracker steps, rules, games loop, v1 turn and small kernels
# (about 20 s) run beside this process's helpers, tracker update and v2 turn (about 18 s).

def _main_chain(all_bots: bool = False) -> list:
    """Compiled in this process: the v1 bot's small helpers (while the helper process
    compiles the tracker's steps), then the longest chain of kernels that call one another:
    the trackers' update, then every other tunable bot's turn (the helper process compiles
    the first, the third...)."""
    from ocean.bots import _baselines as B, _tunable_v1 as U
    from ocean.tracking import _driver, _query

    i, f, b, a1, a2, f1, u1 = _types()
    turns, _ = _slot_kernels(_compiled_policies(all_bots))
    return [
        (B.rand_below, (u1, i)), (B.emit_action, (a2, i, i, i, i)),
        (_query.cell_probabilities, (a1, f1)), (_query.mine_probabilities, (a1, a1, f1, f1)),
        (U._blast_expectation, (a1, f1, f1)), (U._mine_danger, (a1, f1, f1)), (U._best_shot, (a1, f1, i, a1, i)),
        (U._space, (a1, a1, a1, i, i, a1, a1)), (U._shift, (a1, a1, i, i, a1, a1)), (U._spread, (a1, a1, i, a1, a1)),
        (U._revealed, (a1, a1, i, i, a1)), (U._retaliation, (a1, i, f1)), (U._near_opponent, (f1, a1, i, i, i)),
        (U._power_to_charge, (a1, f)), (U._trigger, (a1, a1, i, i, i, f1, f1, a2, i)),
        (U._mine, (a1, a1, i, i, f1, u1, a2, i)), (U._sonar, (a1, f1, i, f1, a2, i)),
        (_driver.observe_from_state, (a1, a1, a1, a1, i)),
    ] + turns[1::2] + [
        (_driver.truth_of, (a1, a1, a1, i)), (_query.candidate_cells, (a1, a1)),
    ]


def _side_kernels(all_bots: bool = False) -> list:
    """Compiled in the helper process: the tracker's steps first (the update in
    ``_main_chain`` needs them next), the rules and the games loop, then the first tunable
    bot's turn (its helpers and the trackers' update are compiled by then), the small slot
    kernels, and every other tunable bot's turn after the first."""
    from ocean import _match, _rules
    from ocean.bots import _baselines as B
    from ocean.tracking import _kernel as K

    i, f, b, a1, a2, f1, u1 = _types()
    turns, rest = _slot_kernels(_compiled_policies(all_bots))
    return [
        (K.reset_tracker, (a1, a1)), (K.copy_states, (a1, a1)), (K._dedup, (a1, a2, i, a2, b)),
        (K._collapse, (a1, a2, i)), (K._silence, (a1, a1, i)), (K._surface, (a1, a1, i, i)),
        (K._move, (a2, a1, i, i)), (K._own_blast, (a2, i, i, i)), (K._own_sonar, (a2, a1, i, i, i)),
        (K._torpedo, (a2, a1, i, i, i, b)), (K._trigger, (a2, a1, i, i, i, b)), (K._mine, (a2, i)),
        (K._life, (a2, i, i, i)), (K._off_mines, (a2, i, a1)),
        (_rules.play_line, (a1, a1, a2, i, a2)), (_rules.start_game, (a1, a1, i, i, i, i)), (B.seed_rng, (u1, i)),
        (_match.play_games, _match.GAMES_SIGNATURE),
    ] + turns[:1] + rest + turns[2::2]


def kernel_name(dispatcher) -> str:
    """A kernel as a log line names it: ``module.function`` without the package."""
    fn = getattr(dispatcher, "py_func", dispatcher)
    return f"{fn.__module__.removeprefix('ocean.')}.{fn.__name__}"


def _compile(kernels: list, log: Callable[[str], None] = lambda line: None) -> None:
    for n, (dispatcher, signature) in enumerate(kernels, 1):
        log(f"  compiling {kernel_name(dispatcher)} ({n}/{len(kernels)})")
        dispatcher.compile(signature)


def _main(all_bots: bool, log: Callable[[str], None] = lambda line: None) -> None:
    """This process's share: its kernels, then maps and boards."""
    from ocean.board import build_board
    from ocean.maps import generate_map

    _compile(_main_chain(all_bots), log)
    build_board(generate_map(1))


def _side(all_bots: bool = False) -> None:
    """The helper process's share (``python -c``)."""
    _compile(_side_kernels(all_bots))


def _start_side(all_bots: bool) -> subprocess.Popen | None:
    """Start the helper process on the same package and cache folder as this one."""
    return _start_helper(f"from ocean.warmup import _side; _side({all_bots})")


def _start_helper(code: str) -> subprocess.Popen | None:
    """``python -c CODE`` on the same package and cache folder as this process (None if it
    cannot start: then everything compiles here, only slower)."""
    import numba

    import ocean
    from ocean import _jit  # noqa: F401  (sets the cache folder: numba.config.CACHE_DIR below)

    env = dict(os.environ)
    package_root = str(Path(ocean.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([package_root] + [p for p in [env.get("PYTHONPATH")] if p])
    # configure_cache() puts the folder of this source digest under NUMBA_CACHE_DIR.
    env["NUMBA_CACHE_DIR"] = str(Path(numba.config.CACHE_DIR).parent)
    try:
        return subprocess.Popen([sys.executable, "-c", code], env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:
        return None


def _bot_program() -> None:
    from ocean.bots import resolve_bot
    from ocean.maps import generate_map, map_rows
    from ocean.program import run_program

    rows = map_rows(generate_map(1))
    stdin = io.StringIO("15 15 0\n" + "".join(row + "\n" for row in rows))
    run_program(resolve_bot("tunable"), 0, stdin=stdin, stdout=io.StringIO(), aot=False)  # Numba's kernels


def _games() -> None:
    """A game pair of each policy ``ocean warmup`` compiles (their kernels are loaded into
    the one games loop through its slots; compiled here if no helper process did)."""
    from ocean.bots import resolve_bot
    from ocean.match import play_pairs

    for name in registry.WARMUP_POLICIES:
        play_pairs(resolve_bot(name), resolve_bot("chaser"), [1])


def _replay_and_tracking() -> None:
    from ocean.play import play_with_replay
    from ocean.tracking.report import track_replay

    _, data = play_with_replay(1, ("tunable", "random"))
    track_replay(data)


def _first_use_bots() -> None:
    from ocean.bots import resolve_bot
    from ocean.maps import generate_map, map_rows
    from ocean.match import play_pairs
    from ocean.program import run_program

    rows = map_rows(generate_map(1))
    for name in registry.FIRST_USE_POLICIES:
        play_pairs(resolve_bot(name), resolve_bot("chaser"), [1])
        run_program(resolve_bot(name), 0, stdin=io.StringIO("15 15 0\n" + "".join(r + "\n" for r in rows)),
                    stdout=io.StringIO())


STEPS = (("bot program (ocean bot)", _bot_program), ("in-process games (arena, studies)", _games),
         ("replays and tracking", _replay_and_tracking))
FIRST_USE_STEP = (f"bots compiled on first use ({', '.join(registry.FIRST_USE_POLICIES)})", _first_use_bots)


class _Heartbeat:
    """A log that repeats what it is doing, with the time so far, when it has said nothing for
    ``every`` seconds: one kernel's compile takes seconds on an idle machine and minutes at load
    20, and a silent minute reads as a hang (issue 49)."""

    def __init__(self, log: Callable[[str], None], every: float = 5.0) -> None:
        self._log, self._every = log, every
        self._last, self._since, self._said = "", time.monotonic(), time.monotonic()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="warmup-heartbeat", daemon=True)

    def __call__(self, line: str) -> None:
        with self._lock:
            self._last, self._since, self._said = line.strip(), time.monotonic(), time.monotonic()
        self._log(line)

    def _beat(self) -> None:
        while not self._stop.wait(0.5):
            with self._lock:
                now = time.monotonic()
                line = None
                if self._last and now - self._said >= self._every:
                    line, self._said = f"  ... {self._last.rstrip('. ')} ({now - self._since:.0f} s so far)", now
            if line is not None:
                self._log(line)

    def __enter__(self) -> "_Heartbeat":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def warm_up(log: Callable[[str], None] = lambda line: None, *, processes: int = 2,
            all_bots: bool = False, every: float = 5.0) -> dict[str, float]:
    """Compile or load every kernel family; seconds spent per family. On an empty cache with
    ``processes`` 2, the longest chain of kernels compiles here while a helper process
    compiles the rest (first entry of the result: ``parallel compile``). ``all_bots``: the
    policies compiled on first use too (``FIRST_USE_POLICIES``), which otherwise compile when
    a game first names them. ``every``: seconds of silence after which ``log`` hears again what
    is going on (0: never)."""
    if every <= 0:
        return _warm_up(log, processes, all_bots)
    with _Heartbeat(log, every) as said:
        return _warm_up(said, processes, all_bots)


def _warm_up(log: Callable[[str], None], processes: int, all_bots: bool) -> dict[str, float]:
    from ocean._cache import STALE_DAYS, remove_stale

    spent = {}
    for name in remove_stale():
        log(f"removed the kernel cache of another version, unused for {STALE_DAYS:.0f} days: {name}")
    if processes > 1 and not _cached(_every_family(all_bots)):
        start, cpu = time.perf_counter(), _cpu_seconds()
        log("compiling the kernels into the cache (once per installed version; about 30 s on 2 idle cores): "
            "a helper process compiles the tracker's steps, the rules, the games loop and the small bot kernels, "
            "while this one compiles:")
        side = _start_side(all_bots)
        try:
            _main(all_bots, log)
        except BaseException:
            if side is not None:
                side.kill()
                side.wait()
            raise
        if side is not None:
            if side.poll() is None:
                log("  waiting for the helper process to finish its share ...")
            side.wait()
            log(f"  the helper process finished its share ({time.perf_counter() - start:.1f} s after it started)")
        spent["parallel compile"] = round(time.perf_counter() - start, 2)
        log(f"parallel compile (2 processes): {spent['parallel compile']:.1f} s ({_cpu_since(cpu)})")
    for name, step in STEPS + ((FIRST_USE_STEP,) if all_bots else ()):
        start = time.perf_counter()
        log(f"{name}: loading its kernels (compiling what the cache lacks) ...")
        step()
        spent[name] = round(time.perf_counter() - start, 2)
        log(f"{name}: {spent[name]:.1f} s")
    log(f"{AOT_STEP}: building the modules this version and CPU lack ...")
    start, cpu = time.perf_counter(), _cpu_seconds()
    _ahead_of_time(_compiled_policies(all_bots), log, processes)
    _byte_compile()
    spent[AOT_STEP] = round(time.perf_counter() - start, 2)
    log(f"{AOT_STEP}: {spent[AOT_STEP]:.1f} s ({_cpu_since(cpu)})")
    return spent


def _cpu_seconds() -> tuple[float, float]:
    """CPU seconds of this process and of its children waited for (the helper processes, the C
    compiler): what to read on a shared machine, where the wall clock counts others' work."""
    import resource

    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, children.ru_utime + children.ru_stime


def _cpu_since(before: tuple[float, float]) -> str:
    me, children = (now - then for now, then in zip(_cpu_seconds(), before))
    return f"CPU {me:.1f} s here, {children:.1f} s in helper processes and the C compiler"


AOT_STEP = "bot programs ahead of time (ocean bot's first answer)"


def _ahead_of_time(names, log: Callable[[str], None], processes: int = 2) -> None:
    """Build the ahead-of-time modules (``ocean._aot``) of the policies ``names`` that have none
    for this version and CPU: one module shared by the policies without a clock (the rules'
    kernels and a turn two policies share compiled once: ``_aot.build_group``), except the
    newest of them, which gets one of its own in a helper process when ``processes`` > 1 (each
    build is LLVM on one core; the newest search is the biggest, so the two take about as long),
    and one per policy with a clock. Without a C compiler (or if a build fails) ``ocean bot``
    loads its kernels through Numba, as before: one line says so."""
    from ocean import _aot

    missing = [name for name in names if _aot.load(registry.POLICIES[name]) is None]
    clocked = [[n] for n in missing if _aot.clock_functions(registry.POLICIES[n])]
    plain = [n for n in missing if [n] not in clocked]
    if processes > 1:
        units = [u for u in (plain[:-1], plain[-1:]) if u] + clocked
        here, there = units[0::2], units[1::2]
    else:
        here, there = ([plain] if plain else []) + clocked, []
    helper = _start_helper(f"from ocean.warmup import _aot_side; _aot_side({there!r})") if there else None
    started = time.perf_counter()
    if helper is not None:
        log(f"  {'; '.join(', '.join(u) for u in there)}: compiling ahead of time in a helper process...")
    for unit in here + (there if helper is None else []):
        _build_logged(unit, log)
    if helper is not None:
        if helper.poll() is None:
            log("  waiting for the helper process to finish its modules ...")
        helper.wait()
        done = [u for u in there if all(_aot.load(registry.POLICIES[n]) is not None for n in u)]
        if done:
            log(f"  {'; '.join(', '.join(u) for u in done)}: built in the helper process "
                f"({time.perf_counter() - started:.1f} s after it started)")
        for unit in there:  # what the helper could not build is tried here, and said
            if unit not in done:
                _build_logged(unit, log)


def _byte_compile() -> None:
    """Write the bytecode of every module of the package, so that ``ocean bot`` does not compile
    its Python at each start: an editable install (the README's) writes none, and nor does
    Python itself with ``PYTHONDONTWRITEBYTECODE`` set (CI images often set it). That was a tenth of
    the first answer's instructions. A package folder that cannot be written is left as it is."""
    import compileall

    try:
        compileall.compile_dir(os.path.dirname(os.path.abspath(__file__)), quiet=2)
    except OSError:
        pass


def _build_logged(unit: list[str], log: Callable[[str], None]) -> None:
    start = time.perf_counter()
    what = ", ".join(unit)
    log(f"  {what}: compiling ahead of time...")
    try:
        _build_unit(unit)
    except Exception as exc:  # noqa: BLE001  (a missing compiler, a toolchain error: not fatal)
        reason = str(exc).strip().splitlines()[-1:] or [type(exc).__name__]
        log(f"  {what}: not compiled ahead of time ({reason[0][:160]}); `ocean bot --name {unit[0]}` "
            "loads its kernels through Numba (its first answer about 300 ms later)")
        return
    log(f"  {what}: {time.perf_counter() - start:.1f} s")


def _build_unit(unit: list[str]) -> None:
    """One module: a policy with a clock alone (``_aot.build``), the others together."""
    from ocean import _aot

    kinds = [registry.POLICIES[name] for name in unit]
    if len(kinds) == 1 and _aot.clock_functions(kinds[0]):
        _aot.build(kinds[0])
    else:
        _aot.build_group(kinds)


def _aot_side(units: list[list[str]]) -> None:
    """The helper process's builds (``python -c``); a failure is left for the main process to say."""
    for unit in units:
        try:
            _build_unit([unit] if isinstance(unit, str) else unit)  # a name alone: a module of its own
        except Exception:  # noqa: BLE001
            pass
