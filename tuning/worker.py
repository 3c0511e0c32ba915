"""What a Ray worker runs: one batch of paired games between the study's bot and an opponent.

A batch is a pure function of (coefficients, opponent, seeds), so a task Ray retries after a
worker died returns the identical games. The engine is imported inside the task (the driver
need not compile anything) and each worker process keeps its compiled kernels and the maps of
the seeds it has seen, so only a worker's first batch pays for compilation.
"""
from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass
from typing import Mapping, Sequence

import ray

__all__ = ["BatchResult", "play_batch", "play_batch_task", "STUDY_BOT"]

STUDY_BOT = "tunable"  # the policy a study tunes
_BOARD_CACHE_SEEDS = 50_000  # maps kept per worker (~16 KB each): a whole seed bank fits


@dataclass(frozen=True)
class BatchResult:
    """The games of a batch (``PairResults.rows()``) and what they cost."""

    rows: list[dict]
    seconds: float  # time spent playing, excluding scheduling and transfer
    player_turns: int
    worker: str  # host:pid, for reports


_boards: dict[int, object] = {}  # seed -> board row, per worker process
_warm = False  # kernels compiled (or loaded from the disk cache) in this process


def _boards_for(seeds: Sequence[int]):
    import numpy as np

    from ocean.match import boards_for_seeds

    missing = [s for s in seeds if s not in _boards]
    if missing:
        if len(_boards) + len(missing) > _BOARD_CACHE_SEEDS:
            _boards.clear()
        for seed, board in zip(missing, boards_for_seeds(missing)):
            _boards[seed] = board
    return np.stack([_boards[s] for s in seeds])


def play_batch(params: Mapping[str, float], opponent, seeds: Sequence[int], trial: int = -1) -> BatchResult:
    """Play each seed twice (sides swapped) between the study bot with ``params`` and
    ``opponent`` (an ``ocean.bots.BotSpec``)."""
    from ocean.bots import BotSpec
    from ocean.match import play_pairs

    global _warm
    bot = BotSpec(f"trial-{trial}", STUDY_BOT, dict(params))
    boards = _boards_for(seeds)
    if not _warm:  # compile outside the timed part: ``seconds`` is game time only
        play_pairs(bot, opponent, seeds[:1], boards[:1])
        _warm = True
    start = time.perf_counter()
    result = play_pairs(bot, opponent, seeds, boards)
    seconds = time.perf_counter() - start
    return BatchResult(result.rows(), seconds, result.player_turns, f"{socket.gethostname()}:{os.getpid()}")


# One CPU per task: games are single-threaded compiled loops. A task lost with its worker is
# retried (deterministic, so the retry gives the same games).
play_batch_task = ray.remote(num_cpus=1, max_retries=3)(play_batch)
