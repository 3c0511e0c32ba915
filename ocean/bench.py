"""``ocean bench``: the engine's own speed, measured, never asserted in tests."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

import numpy as np

__all__ = ["run_bench"]

_PROBE = "from ocean.bench import _startup_probe; _startup_probe()"


def _startup_probe() -> None:
    """Compile (or load from cache) what a game needs and play one game."""
    from ocean._match import play_many
    from ocean.board import build_board_kernel
    from ocean.maps import generate_island_kernel

    boards = build_board_kernel(generate_island_kernel(np.int64(1)))[None, :]
    results = np.zeros((1, 5), dtype=np.int64)
    play_many(boards, np.zeros(2, dtype=np.int64), np.zeros(1, dtype=np.int64), results)


def _time_probe(cache_dir: str) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", _PROBE], check=True, env=env)
    return time.perf_counter() - start


def _boards(seeds: np.ndarray) -> np.ndarray:
    from ocean.board import BOARD_SIZE, build_board_kernel
    from ocean.maps import generate_island_kernel

    boards = np.empty((len(seeds), BOARD_SIZE), dtype=np.int64)
    for i, seed in enumerate(seeds):
        boards[i] = build_board_kernel(generate_island_kernel(np.int64(seed)))
    return boards


def run_bench(*, games: int = 20000, repeats: int = 3, startup: bool = True, progress: bool = True) -> dict:
    """Figures of the engine on one core. Throughput uses random legal bots on ``games``
    distinct maps built beforehand (a study replays a fixed seed bank, so maps are built
    once); map building is timed on its own. The game loop runs ``repeats`` times and the
    fastest run is reported (each run is listed too)."""
    from rich.progress import Progress

    from ocean._match import play_many

    figures = {}
    if startup:
        with tempfile.TemporaryDirectory() as cache:
            figures["cold_compile_s"] = round(_time_probe(cache), 2)
            figures["warm_start_s"] = round(_time_probe(cache), 2)
    _startup_probe()  # compile in this process before timing
    seeds = np.arange(games, dtype=np.int64)
    start = time.perf_counter()
    boards = _boards(seeds)
    figures["maps_per_s"] = round(games / (time.perf_counter() - start), 1)

    kinds = np.zeros(2, dtype=np.int64)
    results = np.zeros((games, 5), dtype=np.int64)
    chunk = max(1, games // 20)
    runs = []  # seconds per repetition; the machine's noise only ever slows a run down
    with Progress(disable=not progress, transient=True) as bar:
        task = bar.add_task("random vs random", total=games * repeats)
        for _ in range(repeats):
            turns = 0
            elapsed = 0.0
            for lo in range(0, games, chunk):
                hi = min(games, lo + chunk)
                start = time.perf_counter()
                turns += play_many(boards[lo:hi], kinds, seeds[lo:hi], results[lo:hi])
                elapsed += time.perf_counter() - start
                bar.update(task, advance=hi - lo)
            runs.append(elapsed)
    elapsed = min(runs)
    figures["games"] = games
    figures["player_turns"] = int(turns)
    figures["player_turns_per_s"] = round(turns / elapsed)
    figures["games_per_s"] = round(games / elapsed, 1)
    figures["mean_turns_per_game"] = round(turns / games, 1)
    figures["repeats"] = repeats
    figures["player_turns_per_s_each_run"] = [round(turns / r) for r in runs]
    return figures
