"""Batches of games in flight on Ray: submit, wait for the next finished ones, cancel a trial's.

The pool keeps at most ``capacity`` tasks outstanding, about one per CPU plus a spare: enough
to keep every worker busy while the driver stores results, few enough that a pruned trial
leaves little queued work behind.
"""
from __future__ import annotations

from collections import deque
from typing import Callable, Iterable, Mapping

import ray

from tuning.driver.evaluation import Batch
from tuning.driver.worker import BatchResult, play_batch_task
from tuning.errors import TuningError, last_line

__all__ = ["BatchPool", "play_all"]


class BatchPool:
    """Ray tasks in flight, by object reference."""

    def __init__(self, capacity: int, bot=None, time_control=None,
                 store: tuple[str, str] | None = None) -> None:
        """``bot``: the study's bot (an ``ocean.bots.BotSpec``; None: the in-process tunable bot),
        played with each batch's parameters; ``time_control`` (an ``ocean.timecontrol.TimeControl``;
        None: CodinGame's) for program games. ``store``: (URL,
        study) whose database the workers store their games in themselves (``tuning.storage.batchstore``);
        None: results carry the rows and the caller stores them."""
        self.capacity = max(1, capacity)
        self.bot = bot
        self.time_control = time_control
        # The URL goes to the workers through the object store, once: as a plain task argument
        # it would be copied into every task's specification (and may carry a password).
        self._store = None if store is None else (ray.put(store[0]), store[1])
        self._refs: dict[ray.ObjectRef, Batch] = {}

    def __len__(self) -> int:
        return len(self._refs)

    @property
    def full(self) -> bool:
        return len(self._refs) >= self.capacity

    def submit(self, batch: Batch, params: Mapping[str, float]) -> None:
        url, study = self._store or (None, None)
        self._refs[self._start(batch, dict(params), url, study)] = batch

    def _start(self, batch: Batch, params: dict, url, study: str | None) -> ray.ObjectRef:
        """Start the Ray task that plays ``batch`` (its arguments as ``play_batch`` takes them)."""
        return play_batch_task.remote(params, batch.opponent, list(batch.seeds), batch.trial, batch.phase,
                                      self.bot_for(batch), self.time_control, url, study, batch.replay_opponent,
                                      shipments=self.shipments_for(batch))

    def shipments_for(self, batch: Batch) -> dict:
        """The shipped files of the programs ``batch`` plays (``tuning.driver.shipping``): empty
        on the driver's machine alone; on a cluster packed once per run, on first use."""
        from tuning.driver.shipping import shipments_for

        return shipments_for([self.bot_for(batch), batch.opponent])

    def bot_for(self, batch: Batch):
        """The bot that plays ``batch`` with its parameters: the batch's own, else the pool's."""
        return self.bot if batch.bot is None else batch.bot

    def wait(self, timeout: float | None) -> list[tuple[Batch, BatchResult | Exception]]:
        """Finished batches (possibly none after ``timeout`` seconds); a failed task gives its
        exception instead of a result."""
        if not self._refs:
            return []
        ready, rest = ray.wait(list(self._refs), num_returns=1, timeout=timeout)
        if ready and rest:  # take whatever else is done too, without waiting
            more, _ = ray.wait(rest, num_returns=len(rest), timeout=0)
            ready += more
        out = []
        for ref in ready:
            batch = self._refs.pop(ref)
            try:
                out.append((batch, ray.get(ref)))
            except ray.exceptions.RayError as exc:  # the task's own error (wrapped), or a lost task
                out.append((batch, exc))
        return out

    def trials(self) -> set[int]:
        """Trials with batches in flight."""
        return {b.trial for b in self._refs.values()}

    def cancel_trial(self, trial: int) -> int:
        """Cancel a trial's outstanding batches (queued ones never run); returns how many."""
        refs = [ref for ref, b in self._refs.items() if b.trial == trial]
        for ref in refs:
            ray.cancel(ref)
            del self._refs[ref]
        return len(refs)


def play_all(pool, batches: Iterable[Batch], params_of: Callable[[Batch], Mapping[str, float]],
             on_result: Callable[[Batch, BatchResult], None], describe: Callable[[Batch], str]) -> None:
    """Play ``batches`` in ``pool`` (a ``BatchPool`` or one like it), in order and keeping it full,
    each with ``params_of(batch)``; every result goes to ``on_result`` as it comes. A failed
    batch ends it all with one line: ``describe(batch)`` failed, and why."""
    pending = deque(batches)
    while pending or len(pool):
        while pending and not pool.full:
            batch = pending.popleft()
            pool.submit(batch, params_of(batch))
        for batch, result in pool.wait(timeout=10.0):
            if isinstance(result, Exception):
                raise TuningError(f"{describe(batch)} failed: {last_line(result)}")
            on_result(batch, result)
