"""What a Ray worker runs: one batch of paired games between the study's bot and an opponent.

A batch is a pure function of (coefficients, opponent, seeds), so a task Ray retries after a
worker died returns the identical games. The engine is imported inside the task (the driver
need not compile anything) and each worker process keeps its compiled kernels and the maps of
the seeds it has seen, so only a worker's first batch pays for compilation.
"""
from __future__ import annotations

import os
import signal
import socket
import threading
import time
from dataclasses import dataclass
from typing import Mapping, Sequence

import ray

from tuning.driver.evaluation import pair_scores_of_rows
from tuning.errors import FrozenBotChanged
from tuning.storage.batchstore import store_batch

__all__ = ["BatchResult", "BatchSummary", "summarize_batch", "play_batch", "play_batch_on_worker",
           "play_batch_task", "TASK_OPTIONS", "STUDY_BOT", "frozen_bot_problem"]

STUDY_BOT = "tunable"  # the policy a study tunes
_BOARD_CACHE_SEEDS = 50_000  # maps kept per worker (~16 KB each): a whole seed bank fits
# One CPU per task: games are single-threaded compiled loops. A task lost with its worker is
# retried (deterministic, so the retry gives the same games).
TASK_OPTIONS = {"num_cpus": 1, "max_retries": 3}


@dataclass(frozen=True)
class BatchSummary:
    """What the driver needs of a batch's games: its count, the pair scores (the running
    estimate and the pruning test) and the study bot's disqualifications (a broken program)."""

    games: int
    pair_scores: dict  # (opponent, seed) -> pair score
    bot_errors: int  # games the study's bot (a program) was disqualified in
    first_error: str | None  # "seed S against OPPONENT: reason" of the first of them
    replayed: int = 0  # games played again because the opponent lost them to its clock or a crash
    set_aside: int = 0  # of which the opponent failed every replay too (their pairs count for nothing)
    first_fault: str | None = None  # "seed S: reason" of the first opponent failure


def summarize_batch(opponent: str, rows: Sequence[Mapping]) -> BatchSummary:
    """The summary of a batch's rows (``PairResults.rows()`` dicts) against ``opponent``."""
    errors = [r for r in rows if r.get("a_error")]
    first = None if not errors else f"seed {errors[0]['seed']} against {opponent}: {errors[0]['a_error']}"
    replayed = [r for r in rows if r.get("replays")]
    aside = [r for r in replayed if r.get("set_aside")]
    fault = next((f"seed {r['seed']}: {r['b_error']}" for r in aside), None) or (
        f"seed {replayed[0]['seed']}" if replayed else None)
    return BatchSummary(len(rows), pair_scores_of_rows(opponent, rows), len(errors), first, len(replayed),
                        len(aside), fault)


@dataclass(frozen=True)
class BatchResult:
    """The games of a batch (``PairResults.rows()``) and what they cost.

    A worker that stored the games itself (``stored``, see ``tuning.storage.batchstore``) sends no rows,
    only their ``summary``: at tens of thousands of games per second, rows crossing Ray and
    the driver were the driver's main per-batch cost."""

    rows: list[dict]  # empty if ``stored``
    seconds: float  # time spent playing, excluding scheduling and transfer
    player_turns: int
    worker: str  # host:pid, for reports
    summary: BatchSummary | None = None  # None: computed from ``rows`` when asked
    stored: bool = False  # the games are in the study database already
    store_seconds: float = 0.0  # time the worker spent storing them

    def digest(self, opponent: str) -> BatchSummary:
        """The batch's summary (``opponent``: its opponent's name)."""
        return self.summary if self.summary is not None else summarize_batch(opponent, self.rows)


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


def play_batch(params: Mapping[str, float], opponent, seeds: Sequence[int], trial: int = -1,
               phase: str = "train", bot=None, time_control=None, store_url: str | None = None,
               study: str | None = None, replay_opponent: bool = True, shipments=None) -> BatchResult:
    """Play each seed twice (sides swapped) between the study bot with ``params`` and
    ``opponent`` (an ``ocean.bots.BotSpec``). ``bot``: the study's bot (default: the in-process
    tunable bot), which plays with ``params``; ``time_control`` (an ``ocean.timecontrol.TimeControl``,
    default CodinGame's) is what programs are told and what the referee enforces. ``store_url``/``study``: store the games in that study's database from here
    and return only their summary (if the database cannot be reached from this worker, the rows
    go back to the driver, which stores them). ``shipments``: the programs' files shipped to
    the cluster's nodes (``tuning.driver.shipping``): those programs play from their copy on
    this node, checked once per node before its first game there."""
    from ocean.bots import BotSpec
    from ocean.constants import OPPONENT_REPLAYS
    from ocean.match import play_pairs
    from ocean.timecontrol import DEFAULT_TIME

    global _warm
    if bot is None:
        bot = BotSpec(f"trial-{trial}", STUDY_BOT, dict(params))
    else:
        bot = bot.with_params(dict(params), name=f"trial-{trial}")
    bot, opponent = _on_this_node(bot, opponent, shipments, time_control)
    programs = bot.is_program or opponent.is_program
    boards = None if programs else _boards_for(seeds)
    if not _warm and not programs:  # compile outside the timed part: ``seconds`` is game time only
        play_pairs(bot, opponent, seeds[:1], boards[:1])
        _warm = True
    start = time.perf_counter()
    result = play_pairs(bot, opponent, seeds, boards, time=time_control or DEFAULT_TIME,
                        replays=OPPONENT_REPLAYS if replay_opponent else 0)
    seconds = time.perf_counter() - start
    rows = result.rows()
    worker = f"{socket.gethostname()}:{os.getpid()}"
    summary = summarize_batch(opponent.name, rows)
    if store_url is not None and study is not None:
        t0 = time.perf_counter()
        if store_batch(store_url, study, trial=trial, phase=phase, opponent=opponent.name, rows=rows,
                       seconds=seconds):
            return BatchResult([], seconds, result.player_turns, worker, summary, stored=True,
                               store_seconds=time.perf_counter() - t0)
    return BatchResult(rows, seconds, result.player_turns, worker, summary)


def _on_this_node(bot, opponent, shipments, time_control):
    """(bot, opponent) as this node plays them: shipped programs from their copy here, each
    checked once per node (``tuning.driver.programs.check_shipped``), other frozen bots once per
    process (``_check_frozen``). A node that cannot run them raises ``FrozenBotChanged`` (one
    line naming the node): the driver stops the study instead of scoring games here."""
    if not shipments:
        _check_frozen(bot, opponent)
        return bot, opponent
    from tuning.driver.programs import check_shipped, node_name
    from tuning.driver.shipping import land
    from tuning.errors import TuningError

    try:
        here = [land(spec, shipments) for spec in (bot, opponent)]
    except (TuningError, OSError) as exc:
        raise FrozenBotChanged(f"node {node_name()}: a shipped program could not be unpacked here: {exc}") from None
    _check_frozen(*[h for h, spec in zip(here, (bot, opponent)) if h is spec])
    problems = check_shipped([h for h, spec in zip(here, (bot, opponent)) if h is not spec], time_control)
    if problems:
        raise FrozenBotChanged(problems[0])
    return here[0], here[1]


def _check_frozen(*specs) -> None:
    """Refuse to play a frozen bot that is not the bot it was frozen as: checked before this
    process's first game with it (``ocean.fingerprint.check_frozen`` remembers it), so every node
    checks, including one that joined after the study started."""
    from ocean.fingerprint import FingerprintError, check_frozen

    for spec in specs:
        try:
            check_frozen(spec)
        except FingerprintError as exc:
            raise FrozenBotChanged(f"node {socket.gethostname()}: {exc}") from None


def frozen_bot_problem(error: BaseException) -> str | None:
    """The one line of a batch that failed because a frozen bot changed (Ray wraps the
    worker's ``FrozenBotChanged``: its ``cause``; the wrapper's own text is a traceback); None
    for any other failure."""
    cause = getattr(error, "cause", None)
    if isinstance(cause, FrozenBotChanged):
        return str(cause)
    if cause is None and isinstance(error, FrozenBotChanged):
        return str(error)
    return None


def _interruptible() -> None:
    """Let ``ray.cancel`` stop this worker's running batch. Ray cancels a running task by raising
    KeyboardInterrupt through the SIGINT handler; a driver started as a background job of a
    script starts with SIGINT ignored, and the Ray processes it starts inherit that. Then a pruned
    trial's batch plays on to its end, and a cancel landing while Ray stores the result calls the
    ignored handler (``TypeError: 'Handlers' object is not callable``, logged by the driver as an
    unhandled error)."""
    if (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL)):
        signal.signal(signal.SIGINT, signal.default_int_handler)


def play_batch_on_worker(*args, **kwargs) -> BatchResult:
    """``play_batch`` in a Ray task: cancellable whatever the driver's signal dispositions."""
    _interruptible()
    return play_batch(*args, **kwargs)


play_batch_task = ray.remote(**TASK_OPTIONS)(play_batch_on_worker)
