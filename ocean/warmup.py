"""``ocean warmup``: compile (or load from the cache) every kernel the commands use, once
after installing, so that the first ``ocean bot`` answers inside CodinGame's 1000 ms and no
command pays for compilation in the middle of its work."""
from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Callable

__all__ = ["warm_up", "program_is_compiled"]


def program_is_compiled() -> bool:
    """True if ``ocean bot``'s kernels are in the cache of this version of the package (the
    program calls the tunable bot's and the rules' kernels directly)."""
    import numba

    from ocean import _jit  # noqa: F401  (sets the cache folder)

    folder = Path(numba.config.CACHE_DIR)
    return folder.is_dir() and all(any(folder.rglob(pattern)) for pattern in _PROGRAM_KERNELS)


# Index files of the kernels ``ocean bot`` calls; warm_up's first family writes them all.
_PROGRAM_KERNELS = ("_tunable.tunable_turn-*.nbi", "_rules.play_line-*.nbi", "_dispatch.bot_reset-*.nbi")


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


STEPS = (("bot program (ocean bot)", _bot_program), ("in-process games (arena, studies)", _games),
         ("replays and tracking", _replay_and_tracking))


def warm_up(log: Callable[[str], None] = lambda line: None) -> dict[str, float]:
    """Compile or load every kernel family; seconds spent per family."""
    spent = {}
    for name, step in STEPS:
        start = time.perf_counter()
        step()
        spent[name] = round(time.perf_counter() - start, 2)
        log(f"{name}: {spent[name]:.1f} s")
    return spent
