"""What a driver run reports: its progress after each batch and its summary at the end."""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RunProgress", "RunReport"]


@dataclass
class RunProgress:
    """What a progress display needs, after each batch."""

    trials_done: int
    target: int
    running: int
    games_done: int  # training games stored for the study, all runs
    games_planned: int  # target trials x games per trial (pruning makes the real total smaller)
    best: tuple[int, float, float, float] | None  # trial, score, low, high


@dataclass
class RunReport:
    """What one run of the driver did."""

    complete: int = 0
    pruned: int = 0
    failed: int = 0
    adopted: int = 0
    games: int = 0  # games stored by this run
    games_saved: int = 0  # games pruning did not play
    games_wasted: int = 0  # games of batches that finished after their trial was pruned or failed
    game_seconds: float = 0.0  # compute time of the games, summed over workers
    storage_seconds: float = 0.0  # time the driver spent writing to the database
    wall_seconds: float = 0.0
    workers: int = 0
    interrupted: bool = False
    db_outages: int = 0  # database outages ridden out (or the last one given up on)
    lost: int = 0  # trials another driver took over after this one's lease ran out
    ask_lock_waits: int = 0  # times this driver took the study's ask lock
    ask_lock_wait_seconds: float = 0.0  # time it waited for it (other drivers held it), in all
    ask_lock_wait_max: float = 0.0  # its longest wait
