"""``ocean warmup``: compile (or load from the cache) every kernel the commands use, once
after installing, so that the first ``ocean bot`` answers inside CodinGame's 1000 ms and no
command pays for compilation in the middle of its work.

Where a cold compile goes (Numba compiles each kernel into a library of its own and links
every kernel it calls into it, so a caller re-optimises and re-generates the machine code
of everything below it): the tracker's update, the tunable bot's turn (which feeds three
trackers), the rules' ``play_line`` and the one loop over in-process games
(``_match.play_games``, which holds all of them) are the big ones; the rest are small.
On an empty cache the work is split over two processes: this one compiles the tunable
bot's small helpers, then the longest chain (tracker update, then the tunable bot's turn),
while a helper process compiles the tracker's steps (which that update needs next), the
rules, the other policies and the maps; then this one compiles
the games loop and runs every family, loading the rest from the cache. Both processes write the same cache folder (Numba's cache is safe
for concurrent writers; a kernel compiled twice is only time lost).
"""
from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

__all__ = ["warm_up", "program_is_compiled"]


def program_is_compiled(kind: int | None = None) -> bool:
    """True if ``ocean bot``'s kernels are in the cache of this version of the package (the
    program calls the tunable bot's and the rules' kernels directly); with ``kind``, those of
    that bot too (a plug-in bot, such as ``tunable-v3``, is compiled by ``ocean warmup --all``
    or on first use, not by ``ocean warmup``)."""
    from ocean.bots._baselines import POLICIES

    plugin = [name for name, k in POLICIES.items() if k == kind and name in _PLUGIN_KERNELS]
    return _cached(_PROGRAM_KERNELS + (_PLUGIN_KERNELS[plugin[0]] if plugin else ()))


# Index files of the kernels ``ocean bot`` calls; warm_up's first family writes them all.
_PROGRAM_KERNELS = ("_tunable_v1.tunable_turn-*.nbi", "_turn.v2_turn-*.nbi", "_rules.play_line-*.nbi",
                    "_dispatch.bot_reset-*.nbi")
_EVERY_FAMILY = _PROGRAM_KERNELS + ("_match.play_games-*.nbi", "_driver.observe_from_state-*.nbi")
# Index files of each plug-in bot's kernels (bots/_dispatch.py), by policy.
_PLUGIN_KERNELS = {"tunable-v3": ("_turn.v3_turn-*.nbi", "_observe.v3_reset-*.nbi")}
PLUGIN_BOTS = tuple(_PLUGIN_KERNELS)  # what ``warm_up(plugins=True)`` compiles


def _cached(patterns) -> bool:
    import numba

    from ocean import _jit  # noqa: F401  (sets the cache folder)

    folder = Path(numba.config.CACHE_DIR)
    return folder.is_dir() and all(any(folder.rglob(pattern)) for pattern in patterns)


def _types():
    from numba.core import types as T

    return (T.int64, T.float64, T.boolean, T.Array(T.int64, 1, "C"), T.Array(T.int64, 2, "C"),
            T.Array(T.float64, 1, "C"), T.Array(T.uint64, 1, "C"))


# Signatures are those of the calls in the compiled callers (tests/ocean/test_warmup.py
# checks that each is the one really used).

def _main_chain() -> list:
    """Compiled in this process: the tunable bot's small helpers (while the helper process
    compiles the tracker's steps), then the longest chain of kernels that call one another:
    the trackers' update, then the tunable bot's turn."""
    from ocean.bots import _baselines as B, _dispatch, _tunable_v1 as U
    from ocean.bots.v2 import _turn as U2
    from ocean.tracking import _driver, _query

    i, f, b, a1, a2, f1, u1 = _types()
    return [
        (B.rand_below, (u1, i)), (B.emit_action, (a2, i, i, i, i)),
        (_query.cell_probabilities, (a1, f1)), (_query.mine_probabilities, (a1, a1, f1, f1)),
        (U._blast_expectation, (a1, f1, f1)), (U._mine_danger, (a1, f1, f1)), (U._best_shot, (a1, f1, i, a1, i)),
        (U._space, (a1, a1, a1, i, i, a1, a1)), (U._shift, (a1, a1, i, i, a1, a1)), (U._spread, (a1, a1, i, a1, a1)),
        (U._revealed, (a1, a1, i, i, a1)), (U._retaliation, (a1, i, f1)), (U._near_opponent, (f1, a1, i, i, i)),
        (U._power_to_charge, (a1, f)), (U._trigger, (a1, a1, i, i, i, f1, f1, a2, i)),
        (U._mine, (a1, a1, i, i, f1, u1, a2, i)), (U._sonar, (a1, f1, i, f1, a2, i)),
        (_driver.observe_from_state, (a1, a1, a1, a1, i)),
        (U.tunable_turn, (a1, a1, i, a1, u1, a2, f1)),
        (U2.v2_turn, (a1, a1, i, a1, u1, a2, f1)),  # the v2 bot: its stages compile with it
        # then a share of what the helper process would do last
        (_dispatch.bot_start, (i, a1, u1)), (_dispatch.bot_reset, (i, a1, a1)),
        (_driver.truth_of, (a1, a1, a1, i)), (_query.candidate_cells, (a1, a1)),
    ]


def _side_kernels() -> list:
    """Compiled in the helper process: the tracker's steps first (the update in
    ``_main_chain`` needs them next), then what only the games loop and the families need:
    the rules, the other policies (then, in ``_side``, maps and boards)."""
    from ocean import _rules
    from ocean.bots import _baselines as B
    from ocean.tracking import _kernel as K

    i, f, b, a1, a2, f1, u1 = _types()
    return [
        (K.reset_tracker, (a1, a1)), (K.copy_states, (a1, a1)), (K._dedup, (a1, a2, i, a2, b)),
        (K._collapse, (a1, a2, i)), (K._silence, (a1, a1, i)), (K._surface, (a1, a1, i, i)),
        (K._move, (a2, a1, i, i)), (K._own_blast, (a2, i, i, i)), (K._own_sonar, (a2, a1, i, i, i)),
        (K._torpedo, (a2, a1, i, i, i, b)), (K._trigger, (a2, a1, i, i, i, b)), (K._mine, (a2, i)),
        (K._life, (a2, i, i, i)), (K._off_mines, (a2, i, a1)),
        (_rules.play_line, (a1, a1, a2, i, a2)), (_rules.start_game, (a1, a1, i, i, i, i)),
        (B.chaser_turn, (a1, a1, i, a1, u1, a2)), (B.seed_rng, (u1, i)),
    ]


def _compile(kernels: list) -> None:
    for dispatcher, signature in kernels:
        dispatcher.compile(signature)


def _side() -> None:
    """The helper process's share (``python -c``): its kernels, then maps and boards."""
    from ocean.board import build_board
    from ocean.maps import generate_map

    _compile(_side_kernels())
    build_board(generate_map(1))


def _start_side() -> subprocess.Popen | None:
    """Start the helper process on the same package and cache folder as this one."""
    import numba

    import ocean
    from ocean import _jit  # noqa: F401  (sets the cache folder: numba.config.CACHE_DIR below)

    env = dict(os.environ)
    package_root = str(Path(ocean.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([package_root] + [p for p in [env.get("PYTHONPATH")] if p])
    # configure_cache() puts the folder of this source digest under NUMBA_CACHE_DIR.
    env["NUMBA_CACHE_DIR"] = str(Path(numba.config.CACHE_DIR).parent)
    try:
        return subprocess.Popen([sys.executable, "-c", "from ocean.warmup import _side; _side()"], env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:
        return None  # then everything compiles here, only slower


def _bot_program() -> None:
    from ocean.bots import resolve_bot
    from ocean.maps import generate_map, map_rows
    from ocean.program import run_program

    rows = map_rows(generate_map(1))
    stdin = io.StringIO("15 15 0\n" + "".join(row + "\n" for row in rows))
    run_program(resolve_bot("tunable"), 0, stdin=stdin, stdout=io.StringIO())


def _games() -> None:
    from ocean.bots import resolve_bot
    from ocean.match import play_pairs

    play_pairs(resolve_bot("tunable"), resolve_bot("chaser"), [1])


def _replay_and_tracking() -> None:
    from ocean.play import play_with_replay
    from ocean.tracking.report import track_replay

    _, data = play_with_replay(1, ("tunable", "random"))
    track_replay(data)


def _plugins() -> None:
    from ocean.bots import resolve_bot
    from ocean.maps import generate_map, map_rows
    from ocean.match import play_pairs
    from ocean.program import run_program

    rows = map_rows(generate_map(1))
    for name in PLUGIN_BOTS:
        play_pairs(resolve_bot(name), resolve_bot("chaser"), [1])
        run_program(resolve_bot(name), 0, stdin=io.StringIO("15 15 0\n" + "".join(r + "\n" for r in rows)),
                    stdout=io.StringIO())


STEPS = (("bot program (ocean bot)", _bot_program), ("in-process games (arena, studies)", _games),
         ("replays and tracking", _replay_and_tracking))
PLUGIN_STEP = (f"bots compiled on first use ({', '.join(PLUGIN_BOTS)})", _plugins)


def warm_up(log: Callable[[str], None] = lambda line: None, *, processes: int = 2,
            plugins: bool = False) -> dict[str, float]:
    """Compile or load every kernel family; seconds spent per family. On an empty cache with
    ``processes`` 2, the longest chain of kernels compiles here while a helper process
    compiles the rest (first entry of the result: ``parallel compile``). ``plugins``: the
    plug-in bots too (``PLUGIN_BOTS``), which otherwise compile when a game first names them."""
    spent = {}
    if processes > 1 and not _cached(_EVERY_FAMILY):
        start = time.perf_counter()
        side = _start_side()
        try:
            _compile(_main_chain())
        except BaseException:
            if side is not None:
                side.kill()
                side.wait()
            raise
        if side is not None:
            side.wait()
        spent["parallel compile"] = round(time.perf_counter() - start, 2)
        log(f"parallel compile (2 processes): {spent['parallel compile']:.1f} s")
    for name, step in STEPS + ((PLUGIN_STEP,) if plugins else ()):
        start = time.perf_counter()
        step()
        spent[name] = round(time.perf_counter() - start, 2)
        log(f"{name}: {spent[name]:.1f} s")
    return spent
