"""Test doubles: a tiny study, and an in-process pool whose games are synthetic.

The fake pool lets scheduler, pruning and resume logic be tested fast and deterministically
without Ray: a game's winner is drawn from a hash of (trial params, seed, side), with a win
probability the test chooses from the trial's coefficients.
"""
from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from typing import Callable, Mapping

from tuning.driver.evaluation import Batch
from tuning.driver.worker import BatchResult
from tuning.storage.records import STATS


def tiny_spec_dict(**overrides) -> dict:
    data = {
        "name": "tiny",
        "n_trials": 3,
        "trials_in_flight": 2,
        "panel": ["random", "chaser"],
        "seed_bank": {"start": 100, "count": 4},
        "batch_pairs": 2,
        "search": {"silence_cost": {}, "stealth_weight": {"low": 0.01, "log": True}, "mine_spacing": 4},
        "sampler": {"kind": "random", "seed": 3},
        "pruning": {"enabled": True, "alpha": 0.05, "min_pairs": 4},
        "validation": {"seeds": {"start": 5000, "count": 10}, "games": 4, "top_k": 1},
    }
    data.update(overrides)
    return data


def _u(*parts) -> float:
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def fake_rows(params: Mapping[str, float], opponent: str, seeds, p_win: float) -> list[dict]:
    rows = []
    for seed in seeds:
        for side in (0, 1):
            u = _u(tuple(sorted(params.items())), opponent, seed, side)
            winner = "a" if u < p_win else ("draw" if u < p_win + 0.02 else "b")
            row = {"seed": seed, "a_side": side, "winner": winner, "a_lives": 3 if winner == "a" else 0,
                   "b_lives": 0 if winner == "a" else 3, "turns": 100 + seed % 50, "end": "life"}
            row.update({f"a_{s}": 1 for s in STATS})
            row.update({f"b_{s}": 2 for s in STATS})
            # the winner dealt the first damage (a flag: at most one side has it); in a draw nobody did
            row.update(a_first_damage=int(winner == "a"), b_first_damage=int(winner == "b"))
            rows.append(row)
    return rows


class FakePool:
    """The ``BatchPool`` interface, played in-process: ``wait`` finishes the oldest batch."""

    def __init__(self, capacity: int = 3, p_win: Callable[[Mapping[str, float]], float] = lambda p: 0.5,
                 fail_trials: set[int] = frozenset(), seconds_per_pair: float = 0.002,
                 p_vs: Callable[[Mapping[str, float], str], float] | None = None) -> None:
        self.capacity = capacity
        self.seconds_per_pair = seconds_per_pair  # the compute time each batch reports
        self.p_win = p_win
        self.p_vs = p_vs  # the win probability by (params, opponent name), in place of p_win
        self.fail_trials = set(fail_trials)
        self._queue: deque[tuple[Batch, dict]] = deque()
        self.submitted: list[Batch] = []
        self.cancelled: list[int] = []

    def __len__(self) -> int:
        return len(self._queue)

    @property
    def full(self) -> bool:
        return len(self._queue) >= self.capacity

    def submit(self, batch: Batch, params) -> None:
        self._queue.append((batch, dict(params)))
        self.submitted.append(batch)

    def wait(self, timeout):
        if not self._queue:
            return []
        batch, params = self._queue.popleft()
        if batch.trial in self.fail_trials:
            return [(batch, RuntimeError("engine exploded\nValueError: bad kernel"))]
        p = self.p_vs(params, batch.opponent.name) if self.p_vs is not None else self.p_win(params)
        rows = fake_rows(params, batch.opponent.name, batch.seeds, p)
        return [(batch, BatchResult(rows, self.seconds_per_pair * len(batch.seeds), 100 * len(rows), "fake:1"))]

    def trials(self) -> set[int]:
        return {b.trial for b, _ in self._queue}

    def cancel_trial(self, trial: int) -> int:
        before = len(self._queue)
        self._queue = deque((b, p) for b, p in self._queue if b.trial != trial)
        self.cancelled.append(trial)
        return before - len(self._queue)


class InterruptingPool(FakePool):
    """A ``FakePool`` whose ``wait`` raises KeyboardInterrupt (a Ctrl-C) after ``after`` waits."""

    def __init__(self, after, **kw):
        super().__init__(**kw)
        self.after = after

    def wait(self, timeout):
        self.after -= 1
        if self.after < 0:
            raise KeyboardInterrupt
        return super().wait(timeout)


class InterruptedMidWrite(InterruptingPool):
    """An ``InterruptingPool`` whose Ctrl-C lands while a session on ``engine`` is in the middle
    of a write to the leases: it holds their lock, and only the garbage collector can free it
    (it is in a reference cycle, as SQLAlchemy's own objects in a traceback's frames are)."""

    def __init__(self, engine, after, **kw):
        super().__init__(after, **kw)
        self.engine = engine

    def wait(self, timeout):
        if self.after == 0:
            import sqlalchemy as sa
            from sqlalchemy.orm import Session

            from tuning.storage.records import TrialLease

            session = Session(self.engine)
            session.execute(sa.update(TrialLease).values(heartbeat_at=TrialLease.heartbeat_at))
            session.info["cycle"] = session
        return super().wait(timeout)


def swallowed_sigint() -> None:
    """A real Ctrl-C (SIGINT to this process) whose KeyboardInterrupt is dropped, as Python
    drops it in a finalizer."""
    # Sent to this thread (the main one), not to the process: the kernel may hand a process's
    # signal to any of its threads, one a busy machine leaves unscheduled for a while.
    try:
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)
        deadline = time.monotonic() + (10.0 if callable(signal.getsignal(signal.SIGINT)) else 0.0)
        while time.monotonic() < deadline:  # the handler runs at a bytecode boundary, in this block
            pass
    except KeyboardInterrupt:
        pass


class SwallowingPool(FakePool):
    """A ``FakePool`` in which a real Ctrl-C (SIGINT) lands after ``after`` waits where its
    KeyboardInterrupt is dropped, as Python drops it in a finalizer."""

    def __init__(self, after, **kw):
        super().__init__(**kw)
        self.after = after

    def wait(self, timeout):
        self.after -= 1
        if self.after == -1:
            swallowed_sigint()
        return super().wait(timeout)


def dead_pid() -> int:
    """The pid of a process that has exited (a dead driver on this host)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid
