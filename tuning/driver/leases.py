"""Leases and adoption: which driver runs which trial, and taking over the trials of drivers
that are gone.

Each open trial carries a lease (``ocean_trial_leases``: owner, expiry) that its driver's
heartbeat renews. A RUNNING trial whose lease expired, whose driver on this host is gone, or
that has no lease at all (its driver died between creating and claiming it; checked under the
ask lock, which a driver holds from creating a trial until it has claimed it) is an orphan:
another driver claims it and runs it on from what is stored: its games are kept, only the
missing ones are played, with its stored parameters (drawn again exactly as its creator drew
them if it died before storing them: ``tuning.driver.asking``). A driver whose own lease ran out (a
long database outage) finds the trial taken and leaves it to the driver that took it.
"""
from __future__ import annotations

import time
from typing import Callable, Iterable, Iterator, TypeVar

import optuna
from optuna.trial import FrozenTrial, TrialState

from tuning.storage.handle import StudyHandle
from tuning.storage.locks import ASK_LOCK, hold, owner_dead

__all__ = ["Leases", "LEASE_TTL", "HEARTBEAT", "STOP_WAIT"]

T = TypeVar("T")

LEASE_TTL = 60.0  # seconds a trial stays ours without a heartbeat
HEARTBEAT = 10.0  # seconds between lease renewals (and the driver loop's longest sleep)
STOP_WAIT = 2.0  # seconds a driver stopping on Ctrl-C waits for a lock; past it a lease is left to expire


def _direct(fn: Callable[[], T]) -> T:
    return fn()


class Leases:
    """The leases of driver ``owner`` (a ``driver_id``) on the trials of a study; every
    database call goes through ``call`` (the driver's ``Retry.call``)."""

    def __init__(self, handle: StudyHandle, owner: str, *, ttl: float = LEASE_TTL,
                 call: Callable[[Callable[[], T]], T] = _direct) -> None:
        self.h = handle
        self.owner = owner
        self.ttl = ttl
        self._call = call

    def claim(self, number: int) -> bool:
        """Take the lease of trial ``number`` (one this driver just created); False if another
        driver holds it (it adopted the trial while our ask lock had expired)."""
        return self.h.games.claim(number, self.owner, self.ttl)

    def renew(self, numbers: Iterable[int]) -> set[int]:
        """Heartbeat: extend our leases on ``numbers``; the trials we still hold (one whose lease
        ran out and that another driver adopted is not)."""
        numbers = list(numbers)
        return self._call(lambda: self.h.games.renew(self.owner, numbers, self.ttl))

    def release(self, number: int, *, retry: bool = True, wait: float | None = None) -> None:
        """Let go of trial ``number`` (told, lost, or this driver stopping); without ``retry``
        one attempt (a driver stopping in an outage: the lease expires by itself), waiting at
        most ``wait`` seconds for another writer's lock (None: the database's usual patience)."""
        (self._call if retry else _direct)(lambda: self.h.games.release(number, self.owner, wait=wait))

    def clear(self, numbers: Iterable[int]) -> None:
        """Remove whatever leases remain on finished trials (a driver that died between telling
        a trial and releasing it leaves one)."""
        numbers = list(numbers)
        self._call(lambda: self.h.games.drop_leases(numbers))

    def others_running(self, mine: Iterable[int]) -> bool:
        """Whether the study has RUNNING trials besides ``mine``: another driver's, or orphans."""
        mine = set(mine)
        return any(t.number not in mine for t in self._call(lambda: self.h.trials(TrialState.RUNNING)))

    def orphans(self, mine: Iterable[int], room: Callable[[], bool]) -> Iterator[FrozenTrial]:
        """RUNNING trials whose driver is gone, each claimed for us before it is yielded, while
        ``room()`` says we can open another: an expired lease, a dead process on this host, or no
        lease at all (checked under the ask lock)."""
        if not room():
            return
        mine = set(mine)
        running = [t for t in self._call(lambda: self.h.trials(TrialState.RUNNING)) if t.number not in mine]
        if not running:
            return
        leases = self._call(lambda: self.h.games.leases(t.number for t in running))
        now = time.time()
        for frozen in running:
            if not room():
                return
            lease = leases.get(frozen.number)
            if lease is None:
                taken = self._call(lambda: self._claim_unleased(frozen.number))
            elif lease[1] < now or owner_dead(lease[0]):
                if lease[1] >= now:  # the holder is dead but its lease is still fresh: free it
                    self._call(lambda: self.h.games.release(frozen.number, lease[0]))
                taken = self._call(lambda: self.claim(frozen.number))
            else:
                continue
            if taken:
                yield frozen

    def _claim_unleased(self, number: int) -> bool:
        with hold(self.h.games, ASK_LOCK, self.owner, call=self._call):
            if self.h.games.leases([number]):  # its creator claimed it after all
                return False
            return self.claim(number)

    def reopen(self, frozen: FrozenTrial, draw: Callable[[int, int], optuna.Trial]) -> optuna.Trial | None:
        """The orphan ``frozen`` (claimed by ``orphans``) as a trial to run on, or None (its
        lease let go) if its driver told it between our listing and our claim.
        ``draw(trial_id, number)`` draws and stores the parameters the trial lacks, as its
        creator did (``tuning.driver.asking``: its own sampler, reading the study as it stood
        when the trial was created), and returns the trial; one whose parameters are all stored
        keeps them."""
        still = {t.number for t in self._call(lambda: self.h.trials(TrialState.RUNNING))}
        if frozen.number not in still:
            self.release(frozen.number)
            return None
        return draw(frozen._trial_id, frozen.number)
