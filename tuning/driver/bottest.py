"""The ``tune test`` driver: batches of game pairs on Ray until the sequential test decides.

The verdict is a pure function of the test's definition and its games (``judge``): the batches
are fixed blocks of maps (``TestSpec.seeds``), the ratio is evaluated after each batch of the
longest run of complete batches from the first, and the first batch at which it reaches a bound
decides. Batches finished beyond that point are stored and change nothing. So a driver killed
(SIGKILL, Ctrl-C) and started again, or several drivers on one PostgreSQL test, end with the same
verdict at the same number of pairs, whichever games each of them played.

How the drivers share the work, as the study driver shares trials (``tuning.driver.runner``), with the
same leases (``GameStore.claim``/``renew``/``release``, the batch number in the trial column)
and the same test for a dead driver (``tuning.locks.owner_dead``):

- a driver claims the first batch that is neither complete nor leased by a live driver (and not
  too far past the first incomplete one), plays the games of it not stored yet, and releases it
  once they are stored;
- a lease expires unless renewed by its driver's heartbeat; a batch leased by a driver that died
  on this host is taken over at once, elsewhere once its lease expired;
- games are stored as each task finishes (by the worker itself on PostgreSQL, ``tuning.storage.batchstore``),
  under the unique game key: a replayed batch stores nothing twice.

Both bots are judged by one rule: a game either of them loses to its clock, a crash or an illegal
line is a loss for the one that failed, never played again (a test has no "tuned program" whose
opponent's failures are forgiven; see docs/testing.md). A gauntlet's opponents are neither bot:
their failures are played again for both bots alike, as a study's. A tested bot that fails more
often than a run accepts (``tuning.driver.faults.too_unreliable``) stops the test in one line.
"""
from __future__ import annotations

import sys
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence, TypeVar

import numpy as np

from tuning.driver.ctrlc import CtrlC
from tuning.driver.evaluation import Batch
from tuning.driver.faults import FAULT_SHARE, OpponentFaults, too_unreliable
from tuning.driver.leases import HEARTBEAT, LEASE_TTL, STOP_WAIT
from tuning.driver.pool import BatchPool
from tuning.errors import StorageError, TuningError, last_line
from tuning.stats.sprt import PENTANOMIAL, decide, first_crossing
from tuning.storage.locks import driver_id, owner_dead
from tuning.storage.retry import Retry
from tuning.storage.teststore import PairRow, TestHandle
from tuning.study.testspec import BASE, NEW, TEST_PHASE, TestSpec

__all__ = ["MatchTally", "Tally", "Verdict", "tally_batch", "judge", "read_prefix", "TestRunner", "TestProgress",
           "TestRun", "ROLES", "bot_failures", "bot_breakage", "failures_seen"]

T = TypeVar("T")

_CLAIM_WINDOW = 64  # batches whose leases are read at once when looking for one to claim
# A driver claims batches at most this many pool capacities past the first incomplete one. Ray keeps
# a busy driver's workers for that driver's tasks, so a second driver can starve with a batch the
# verdict waits for; without a limit the busy one would play far past the verdict meanwhile.
_LOOKAHEAD_POOLS = 2
_POLL = 0.5  # seconds between looks at the database while other drivers' batches are the ones in flight
ROLES = ("new", "base")


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@dataclass
class MatchTally:
    """One match's games in a batch (or summed over several): the bot's pair outcomes (LL..WW),
    its wins, draws and losses, and the games it and its opponent were disqualified in."""

    pentanomial: np.ndarray = field(default_factory=lambda: np.zeros(len(PENTANOMIAL), dtype=np.int64))
    wins: int = 0
    draws: int = 0
    losses: int = 0
    errors: int = 0
    opponent_errors: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def add(self, other: MatchTally) -> None:
        self.pentanomial = self.pentanomial + other.pentanomial
        self.wins += other.wins
        self.draws += other.draws
        self.losses += other.losses
        self.errors += other.errors
        self.opponent_errors += other.opponent_errors


@dataclass
class Tally:
    """A complete batch: the outcomes of the test's statistic (on ``TestSpec.support``) and each
    match's tally, by (trial, opponent)."""

    counts: np.ndarray
    matches: dict[tuple[int, str], MatchTally]
    by_opponent: dict[str, np.ndarray]  # the statistic's outcomes against each opponent (a gauntlet's)


def tally_batch(spec: TestSpec, pairs: Mapping[tuple[int, str, int], PairRow], batch: int) -> Tally | None:
    """The tally of ``batch`` from stored pairs; None while one of its pairs is missing."""
    seeds = spec.seeds(batch)
    matches: dict[tuple[int, str], MatchTally] = {}
    scores: dict[tuple[int, str], list[float]] = {}
    for trial, _, opponent in spec.matches():
        tally = matches[(trial, opponent.name)] = MatchTally()
        row_scores = scores[(trial, opponent.name)] = []
        for seed in seeds:
            row = pairs.get((trial, opponent.name, seed))
            if row is None:
                return None
            wins = row.score - 0.5 * row.draws
            tally.wins += int(round(wins))
            tally.draws += row.draws
            tally.losses += 2 - int(round(wins)) - row.draws
            tally.errors += row.a_errors
            tally.opponent_errors += row.b_errors
            row_scores.append(row.score / 2.0)
        tally.pentanomial = np.bincount(np.rint(np.array(row_scores) * 4).astype(np.int64), minlength=5)
    if spec.gauntlet:
        by_opponent = {}
        for o in spec.opponents:
            d = np.array(scores[(NEW, o.name)]) - np.array(scores[(BASE, o.name)])
            by_opponent[o.name] = np.bincount(np.rint((d + 1.0) * 4).astype(np.int64), minlength=len(spec.support))
        counts = np.sum(list(by_opponent.values()), axis=0)
    else:
        counts = matches[(NEW, spec.base.name)].pentanomial.copy()
        by_opponent = {spec.base.name: counts}
    return Tally(counts, matches, by_opponent)


@dataclass(frozen=True)
class Verdict:
    """Where the test stands: ``result`` "H1", "H0", "max" (max games reached) or None (running),
    over the first ``batches`` batches (up to the deciding one); their outcome counts, the ratio
    after the last of them, and after each: ``history`` (games, ratio)."""

    result: str | None
    batches: int
    llr: float
    counts: np.ndarray
    history: list[tuple[int, float]]
    games: int  # of those batches

    @property
    def units(self) -> int:
        return int(self.counts.sum())


def judge(spec: TestSpec, tallies: Sequence[Tally]) -> Verdict:
    """The verdict on the complete batches ``tallies`` (batch 0, 1, ... with no gap): the first at
    which the ratio reaches a bound decides; "max" once ``spec.max_batches`` are in without."""
    k = len(spec.support)
    if not tallies:
        return Verdict(None, 0, 0.0, np.zeros(k, dtype=np.int64), [], 0)
    cumulative = np.cumsum(np.stack([t.counts for t in tallies[:spec.max_batches]]), axis=0)
    ratios = np.atleast_1d(spec.settings.llr(cumulative, support=spec.support))
    lower, upper = spec.settings.bounds
    hit = first_crossing(ratios, lower, upper)
    if hit is not None:
        end, result = hit + 1, decide(float(ratios[hit]), spec.settings)
    else:
        end = len(ratios)
        result = "max" if end >= spec.max_batches else None
    history = [((i + 1) * spec.games_per_batch, float(ratios[i])) for i in range(end)]
    return Verdict(result, end, float(ratios[end - 1]), cumulative[end - 1], history, end * spec.games_per_batch)


def read_prefix(handle: TestHandle, since: int = 0, tallies: list[Tally] | None = None
                ) -> tuple[list[Tally], dict[tuple[int, str, int], PairRow]]:
    """The complete batches from batch ``since`` on, added to ``tallies`` (the batches before it),
    up to the first incomplete one or the test's last; and the pairs read beyond them."""
    spec = handle.spec
    tallies = [] if tallies is None else tallies
    pairs = handle.store.pairs(spec.seed + since * spec.batch_pairs)
    batch = since
    while batch < spec.max_batches:
        tally = tally_batch(spec, pairs, batch)
        if tally is None:
            break
        tallies.append(tally)
        batch += 1
    return tallies, pairs


def _sides(spec: TestSpec, role: str) -> tuple[int, str]:
    """(trial, side) of ``role``'s games: the new bot is side "a" of trial NEW; the base bot is
    its opponent, side "b" of trial NEW, head to head, and side "a" of trial BASE in a gauntlet."""
    if role == "new":
        return NEW, "a"
    return (BASE, "a") if spec.gauntlet else (NEW, "b")


def bot_failures(spec: TestSpec, tallies: Sequence[Tally]) -> dict[str, tuple[int, int]]:
    """Per role ("new", "base"): (games it was disqualified in, games it played) in ``tallies``."""
    total: dict[tuple[int, str], MatchTally] = {}
    for t in tallies:
        for key, m in t.matches.items():
            total.setdefault(key, MatchTally()).add(m)
    out = {}
    for role in ROLES:
        trial, side = _sides(spec, role)
        played = [m for (t, _), m in total.items() if t == trial]
        failed = sum(m.errors if side == "a" else m.opponent_errors for m in played)
        out[role] = (failed, sum(m.games for m in played))
    return out


def failures_seen(handle: TestHandle, role: str, batches: int) -> tuple[dict[str, int], str | None]:
    """``role``'s disqualifications on the maps of the first ``batches`` batches, reason ->
    games, and its first stored one ("seed S against OPPONENT: reason")."""
    spec = handle.spec
    trial, side = _sides(spec, role)
    return (handle.store.failure_reasons(trial, side, spec.seed + batches * spec.batch_pairs),
            handle.store.first_error(trial, side))


def bot_breakage(spec: TestSpec, tallies: Sequence[Tally]) -> tuple[str, int, int, int, str] | None:
    """(role, trial, failed games, games, side) of a tested bot, the new one first, that failed in
    more of its games of ``tallies`` than a run accepts (``too_unreliable``: the rule a study's
    opponents are held to), else None."""
    for role, (failed, games) in bot_failures(spec, tallies).items():
        if too_unreliable(games, failed):
            trial, side = _sides(spec, role)
            return role, trial, failed, games, side
    return None


@dataclass
class TestProgress:
    """What a progress display needs, after each look at the database."""

    __test__ = False

    verdict: Verdict
    tallies: list[Tally]  # the complete batches from the first, the verdict's and maybe more
    games_stored: int  # by every driver, complete batches or not
    games_this_run: int


@dataclass
class TestRun:
    """What one run of the driver did."""

    __test__ = False

    verdict: Verdict | None = None
    games: int = 0  # games this run played and stored
    game_seconds: float = 0.0
    wall_seconds: float = 0.0
    workers: int = 0
    interrupted: bool = False
    batches_claimed: int = 0
    batches_lost: int = 0  # leases another driver took over after ours ran out
    db_outages: int = 0


class TestRunner:
    """Plays a test's batches until its verdict (``judge``) is known."""

    __test__ = False

    def __init__(self, handle: TestHandle, *, pool: BatchPool | None = None,
                 progress: Callable[[TestProgress], None] | None = None, lease_ttl: float = LEASE_TTL,
                 heartbeat: float = HEARTBEAT, retry: Retry | None = None, poll: float = _POLL,
                 log: Callable[[str], None] = _stderr) -> None:
        self.h = handle
        self.spec = handle.spec
        self.owner = driver_id()
        self.pool = pool
        self.progress = progress
        self.lease_ttl = lease_ttl
        self.heartbeat = heartbeat
        self.poll = poll
        self.log = log
        self.retry = retry if retry is not None else Retry(handle.storage.url, name=handle.name, log=log,
                                                                 resume=f"tune test {handle.name}")
        self.run_report = TestRun()
        self.tallies: list[Tally] = []
        self.pairs: dict[tuple[int, str, int], PairRow] = {}
        self.verdict = judge(self.spec, [])
        self._open: dict[int, int] = {}  # batch -> its tasks not finished yet (batches we hold)
        self._queue: deque[tuple[int, Batch]] = deque()  # tasks of held batches not submitted yet
        self._in_flight: dict[int, tuple[int, Batch]] = {}  # id(Batch) -> (batch number, Batch)
        self._games_stored = 0
        # a gauntlet's opponents, replayed for both bots alike, stop the test as they stop a study
        self.faults = OpponentFaults(f"tune test {handle.name}")

    def _db(self, fn: Callable[[], T]) -> T:
        return self.retry.call(fn)

    # --- the loop -------------------------------------------------------------------------------

    def run(self) -> TestRun:
        """Play until the verdict; Ctrl-C stops cleanly (``tune test NAME`` carries on)."""
        from tuning.driver.cluster import cluster_cpus

        start = time.perf_counter()
        if self.pool is None:
            self.run_report.workers = cluster_cpus()
            pool = BatchPool(self.run_report.workers + 1, time_control=self.spec.time_control,
                             store=self.h.batch_store())
        else:
            pool, self.run_report.workers = self.pool, self.pool.capacity
        try:
            with CtrlC() as ctrl_c:
                self._refresh()
                next_beat = 0.0
                while self.verdict.result is None:
                    ctrl_c.check()
                    if time.monotonic() >= next_beat:
                        self._beat()
                        next_beat = time.monotonic() + self.heartbeat
                    self._fill(pool)
                    if not len(pool):
                        # Nothing of ours in flight and nothing to claim: other drivers hold the
                        # batches the verdict waits for. Look again shortly (they may finish or die).
                        time.sleep(self.poll)
                    else:
                        ready = pool.wait(timeout=min(self.heartbeat, self.poll))
                        if ready:
                            self._on_results(ready)
                    self._refresh()
                    self._emit()
        except KeyboardInterrupt:
            self.run_report.interrupted = True
        finally:
            self._stop()
            self.run_report.wall_seconds = time.perf_counter() - start
            self.run_report.db_outages = self.retry.outages
            self.run_report.verdict = self.verdict
        return self.run_report

    def _stop(self) -> None:
        """Release our leases, so another driver need not wait for them to expire. What is in
        flight is not cancelled (games beyond the verdict change nothing): Ray ends it with this
        driver, and a cancel racing a task's completion just before the driver exits can crash
        Ray's core worker (ray-project/ray#54846)."""
        if self.run_report.interrupted:  # a Ctrl-C's interrupted write may hold a lock (``Storage.let_go``)
            self.h.store.storage.let_go()
        for batch in list(self._open):
            try:
                self.h.store.games.release(batch, self.owner, wait=STOP_WAIT)
            except StorageError:
                pass  # the database is gone: the lease expires by itself
        self._open.clear()
        self._queue.clear()
        self._in_flight.clear()

    def _beat(self) -> None:
        """Renew our leases; a batch whose lease another driver took over is theirs to finish
        (our tasks of it still store their games, which the unique key makes harmless)."""
        held = self._db(lambda: self.h.store.games.renew(self.owner, list(self._open), self.lease_ttl))
        for batch in [b for b in self._open if b not in held]:
            del self._open[batch]
            self._queue = deque((b, t) for b, t in self._queue if b != batch)
            self.run_report.batches_lost += 1
            self.log(f"batch {batch} was taken over by another driver (our lease ran out); leaving it to them")

    # --- claiming and playing batches -----------------------------------------------------------

    def _complete(self, batch: int) -> bool:
        return batch < len(self.tallies) or tally_batch(self.spec, self.pairs, batch) is not None

    def _claim_next(self, capacity: int) -> int | None:
        """Claim the first batch not complete and not leased by a live driver, within the
        lookahead; None if none."""
        spec = self.spec
        start = len(self.tallies)
        limit = min(spec.max_batches, start + _LOOKAHEAD_POOLS * max(1, capacity))
        while start < limit:
            window = [b for b in range(start, min(start + _CLAIM_WINDOW, limit))
                      if b not in self._open and not self._complete(b)]
            if window:
                leases = self._db(lambda: self.h.store.games.leases(window))
                now = time.time()
                for batch in window:
                    lease = leases.get(batch)
                    if lease is not None and lease[0] != self.owner:
                        if lease[1] >= now and not owner_dead(lease[0]):
                            continue  # a live driver's
                        if lease[1] >= now:  # its driver died on this host: free it now
                            self._db(lambda: self.h.store.games.release(batch, lease[0]))
                    if self._db(lambda: self.h.store.games.claim(batch, self.owner, self.lease_ttl)):
                        self.run_report.batches_claimed += 1
                        return batch
            start += _CLAIM_WINDOW
        return None

    def _plan(self, batch: int) -> list[Batch]:
        """The tasks that play the games of ``batch`` not stored yet (each seed with a game missing
        is played again whole: its stored game is kept, the replay's copy is dropped)."""
        spec = self.spec
        seeds = spec.seeds(batch)
        stored = self._db(lambda: self.h.store.stored_games(seeds[0], seeds[-1]))
        tasks = []
        for trial, bot, opponent in spec.matches():
            missing = tuple(s for s in seeds
                            if (trial, opponent.name, s, 0) not in stored or (trial, opponent.name, s, 1) not in stored)
            if missing:
                # Head to head neither bot is forgiven: a failure is the failing bot's loss, for both
                # alike; a gauntlet's opponents' failures are played again, for both bots alike.
                tasks.append(Batch(trial, TEST_PHASE, opponent, missing, bot=bot, replay_opponent=spec.gauntlet))
        return tasks

    def _fill(self, pool: BatchPool) -> None:
        while not pool.full:
            if not self._queue:
                batch = self._claim_next(pool.capacity)
                if batch is None:
                    return
                tasks = self._plan(batch)
                if not tasks:  # stored meanwhile (another driver, or ours before a kill)
                    self._db(lambda: self.h.store.games.release(batch, self.owner))
                    self._refresh()
                    if self.verdict.result is not None:
                        return
                    continue
                self._open[batch] = len(tasks)
                self._queue.extend((batch, task) for task in tasks)
            batch, task = self._queue.popleft()
            pool.submit(task, task.bot.params)
            self._in_flight[id(task)] = (batch, task)

    def _on_results(self, ready: list[tuple[Batch, object]]) -> None:
        """Store the finished tasks' games (those their workers did not store), in one
        transaction; release each batch whose tasks are all in. A failed task (not a lost
        worker: Ray retries those) stops the test, once the others' games are stored."""
        failed = [(b, r) for b, r in ready if isinstance(r, Exception)]
        ready = [(b, r) for b, r in ready if not isinstance(r, Exception)]
        unstored = [(b, r) for b, r in ready if not r.stored]
        if unstored:
            self._db(lambda: self.h.store.games.add_batches(
                [(b.trial, TEST_PHASE, b.opponent.name, r.rows, r.seconds) for b, r in unstored]))
        if failed:
            batch, error = failed[0]
            raise TuningError(f"a batch of test {self.h.name!r} ({batch.opponent.name}, maps {batch.seeds[0]}.."
                              f"{batch.seeds[-1]}) failed: {last_line(error)}")
        for task, result in ready:
            if task.replay_opponent:
                summary = result.digest(task.opponent.name)
                self.faults.add(task.opponent.name, summary.games, summary.replayed, summary.first_fault)
            batch, _ = self._in_flight.pop(id(task))
            self.run_report.games += task.games
            self.run_report.game_seconds += result.seconds
            if batch in self._open:
                self._open[batch] -= 1
                if self._open[batch] == 0 and not any(b == batch for b, _ in self._queue):
                    del self._open[batch]
                    self._db(lambda: self.h.store.games.release(batch, self.owner))

    # --- the verdict ----------------------------------------------------------------------------

    def _refresh(self) -> None:
        """Read the pairs stored beyond the complete batches (ours and other drivers'), extend the
        complete batches, and judge them."""
        self.tallies, self.pairs = self._db(lambda: read_prefix(self.h, len(self.tallies), self.tallies))
        self.verdict = judge(self.spec, self.tallies)
        counted = max(1, self.verdict.batches)
        broken = bot_breakage(self.spec, self.tallies[:counted])
        if broken is not None:
            from ocean.referee import failure_kinds

            role, _, failed, games, _ = broken
            bot = self.spec.new if role == "new" else self.spec.base
            reasons, first = self._db(lambda: failures_seen(self.h, role, counted))
            kinds = ", ".join(f"{kind} {n}" for kind, n in failure_kinds(reasons).items())
            raise TuningError(f"the {role} bot ({bot.name}) failed in {failed} of its {games} games of test "
                              f"{self.h.name!r} ({failed / games:.0%}: {kinds}; first: {first}), more than the "
                              f"{FAULT_SHARE:.0%} a test accepts: its failures, not its play, would decide the "
                              "verdict; give programs more time on this machine (a new test with --machine-scale), "
                              "free the machine, or fix the program")

    def _emit(self) -> None:
        if self.progress is None:
            return
        self._games_stored = self._db(lambda: self.h.store.games.count_games(phase=TEST_PHASE))
        self.progress(TestProgress(self.verdict, self.tallies, self._games_stored, self.run_report.games))
