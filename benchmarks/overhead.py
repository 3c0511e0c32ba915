"""``tune bench``: what Ray and the database cost around the games.

Three measurements, each after a warm-up so compilation is excluded:
1. the engine alone: the same batches played one after another in this process (one core);
2. the same batches as Ray tasks on a local Ray with 1 worker, then with 2 workers (alternating,
   ``repeats`` times each, best run kept: the machine is shared): games/s,
   speed-up, and scheduling overhead = (wall time x workers - game time) / game time, where
   game time is what the tasks measured inside ``play_pairs``;
3. a small real study through the driver (SQLite by default): database time per trial (game
   rows, Optuna writes, leases), from each trial's ``storage_seconds``.

With ``program`` (a command), also what a program game costs the lab beside the program's own
CPU (``program_costs``): a process started and torn down as a game does (scratch folder, pipes,
session, kill, reap), the referee's own CPU per game and per turn (this process: the referee
and the in-process opponent), the program's CPU (its children's rusage) and the rest of the
wall time (waiting on pipes and the scheduler), each per game, one game at a time.
"""
from __future__ import annotations

import contextlib
import logging
import os
import resource
import statistics
import tempfile
import time
from typing import Callable

import optuna
import ray

from tuning.driver.evaluation import Batch
from tuning.driver.pool import BatchPool
from tuning.driver.worker import play_batch

__all__ = ["run_bench"]

_START_SEED = 7_000_000  # any seeds do; far from the studies' banks for readability


def _batches(opponent, pairs: int, batch_pairs: int) -> list[Batch]:
    seeds = list(range(_START_SEED, _START_SEED + pairs))
    return [Batch(-1, "bench", opponent, tuple(seeds[i:i + batch_pairs])) for i in range(0, pairs, batch_pairs)]


def _direct(params, batches, bot=None) -> tuple[float, float]:
    """(wall seconds, games) playing the batches in this process."""
    play_batch(params, batches[0].opponent, batches[0].seeds[:1], bot=bot)  # compile / load the cache
    start = time.perf_counter()
    games = sum(len(play_batch(params, b.opponent, b.seeds, bot=bot).rows) for b in batches)
    return time.perf_counter() - start, games


def _warm_workers(pool: BatchPool, params, batches, workers: int) -> None:
    """Play rounds of ``workers`` concurrent batches until every worker process has played one
    (a worker still starting up would otherwise compile inside the measurement)."""
    seen: set[str] = set()
    for _ in range(20):
        for b in batches[:workers]:
            pool.submit(b, params)
        while len(pool):
            for _, result in pool.wait(timeout=120):
                if isinstance(result, Exception):
                    raise result
                seen.add(result.worker)
        if len(seen) >= workers:
            return


def _on_ray(params, batches, workers: int, bot=None) -> dict:
    """Play the batches on a fresh local Ray with ``workers`` CPUs."""
    if ray.is_initialized():
        ray.shutdown()
    ray.init(num_cpus=workers, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
    try:
        pool = BatchPool(workers + 1, bot=bot)
        _warm_workers(pool, params, batches, workers)
        start = time.perf_counter()
        pending = list(batches)
        game_seconds = 0.0
        games = turns = disqualified = 0
        while pending or len(pool):
            while pending and not pool.full:
                pool.submit(pending.pop(0), params)
            for _, result in pool.wait(timeout=60):
                if isinstance(result, Exception):
                    raise result
                game_seconds += result.seconds
                games += len(result.rows)
                turns += result.player_turns
                disqualified += sum(1 for r in result.rows if r.get("a_error") or r.get("b_error"))
        wall = time.perf_counter() - start
    finally:
        ray.shutdown()
    return {"wall": wall, "games": games, "game_seconds": game_seconds, "turns": turns, "disqualified": disqualified,
            "overhead": (wall * workers - game_seconds) / game_seconds if game_seconds > 0 else float("nan")}


def _children_cpu() -> float:
    """CPU seconds (user + system) of the ended and reaped child processes of this process."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def program_costs(bot, opponent, pairs: int, time_control=None, starts: int = 20) -> dict:
    """What the lab spends around a program's games, measured in this process (see the module's
    docstring); ``bot``: a program ``BotSpec`` with its parameters."""
    from ocean.match import play_pairs
    from ocean.players import open_player
    from ocean.timecontrol import DEFAULT_TIME

    time_control = time_control or DEFAULT_TIME
    seeds = list(range(_START_SEED, _START_SEED + pairs))
    open_player(bot, seeds[0], time=time_control).close()  # the file cache warm, as in a study
    cpu0, children0, t0 = time.process_time(), _children_cpu(), time.perf_counter()
    for seed in seeds[:starts]:
        open_player(bot, seed, time=time_control).close()
    n = min(starts, len(seeds))
    start_ms = 1000 * (time.perf_counter() - t0) / n
    start_lab_ms = 1000 * (time.process_time() - cpu0) / n
    start_program_ms = 1000 * (_children_cpu() - children0) / n
    cpu0, children0, t0 = time.process_time(), _children_cpu(), time.perf_counter()
    result = play_pairs(bot, opponent, seeds, None, time=time_control)
    wall = time.perf_counter() - t0
    lab, program = time.process_time() - cpu0, _children_cpu() - children0
    games = 2 * len(seeds)
    return {
        "program_games": games,
        "program_turns_per_game": round(result.player_turns / games, 1),
        "wall_ms_per_game": round(1000 * wall / games, 3),
        "program_cpu_ms_per_game": round(1000 * program / games, 3),
        "lab_cpu_ms_per_game": round(1000 * lab / games, 3),  # the referee and the in-process opponent
        "lab_cpu_us_per_turn": round(1e6 * lab / max(1, result.player_turns), 2),
        "waiting_ms_per_game": round(1000 * (wall - lab - program) / games, 3),  # pipes, the scheduler
        "start_teardown_ms": round(start_ms, 3),  # one process: scratch folder, spawn, kill, reap
        "start_teardown_lab_cpu_ms": round(start_lab_ms, 3),
        "start_teardown_program_cpu_ms": round(start_program_ms, 3),
    }


@contextlib.contextmanager
def throwaway_study(spec, url: str, *, real: bool):
    """A study created for a measurement and closed after it; in a ``real`` database (the
    user's ``--storage``) its rows are deleted afterwards whatever happened, a failure or a
    Ctrl-C included: a benchmark leaves nothing behind."""
    from tuning.storage.handle import create_study

    handle = create_study(spec, url)
    try:
        yield handle
    finally:
        try:
            if real:
                handle.games.delete_study_rows()
                optuna.delete_study(study_name=spec.name, storage=handle.storage.optuna)
        finally:
            handle.close()


def storage_figures(per_trial: list[float], storage_seconds: float, wall_seconds: float) -> dict:
    """The storage figures from the trials' database seconds; None where no trial stored any
    (a run stopped before its first trial was told)."""
    mean = round(statistics.mean(per_trial), 4) if per_trial else None
    return {"storage_seconds_per_trial": mean, "storage_games_per_trial": 2 * 50 * 2,
            "storage_seconds_per_game": None if mean is None else round(mean / 200, 6),
            "storage_share_of_wall": round(storage_seconds / wall_seconds, 4) if wall_seconds > 0 else None}


def _storage_per_trial(storage: str | None, trials: int, opponent: str, log) -> dict:
    from tuning.driver.cluster import connect
    from tuning.driver.runner import StudyRunner
    from tuning.storage.database import mask
    from tuning.study.spec import parse_spec

    with tempfile.TemporaryDirectory() as tmp:
        url = storage or f"sqlite:///{tmp}/bench.db"
        name = f"bench-{os.getpid()}-{int(time.time())}"
        spec = parse_spec({"name": name, "n_trials": trials, "trials_in_flight": 2,
                           "search": {"silence_cost": {}, "torpedo_hit_threshold": {}},
                           "panel": ["random", opponent], "seed_bank": {"start": _START_SEED, "count": 50},
                           "batch_pairs": 10, "pruning": {"enabled": False},
                           "validation": {"seeds": {"start": 1, "count": 10}, "games": 20}}, source="bench")
        connect(None)
        try:
            with throwaway_study(spec, url, real=storage is not None) as handle:
                report = StudyRunner(handle).run()
                per_trial = [t.user_attrs["storage_seconds"] for t in handle.trials()
                             if "storage_seconds" in t.user_attrs]
        finally:
            ray.shutdown()
    log(f"storage: {trials} trials of {2 * 50 * 2} games on {mask(url)}")
    return storage_figures(per_trial, report.storage_seconds, report.wall_seconds)


def run_bench(*, pairs: int, batch_pairs: int, opponent: str, trials: int, storage: str | None,
              log: Callable[[str], None], repeats: int = 2, program: str | None = None) -> dict:
    """Run the three measurements; returns the figures by name. With ``program`` (a command),
    the study's bot is that external program: every game is a process game."""
    from ocean.bots import PROGRAM, BotSpec, ProgramSpec, coefficients, resolve_bot

    opp = resolve_bot(opponent)
    bot = None if program is None else BotSpec("program", PROGRAM, {}, ProgramSpec(program))
    params = coefficients.defaults() if bot is None else {}
    batches = _batches(opp, pairs, batch_pairs)
    wall, games = _direct(params, batches, bot)
    direct_rate = games / wall
    log(f"engine alone: {games} games in {wall:.2f} s ({direct_rate:.1f} games/s, "
        f"{1000 * wall / games:.3f} ms per game)")
    # The machine is shared and noisy: alternate 1 and 2 workers, keep each one's best run.
    runs = {1: [], 2: []}
    for _ in range(repeats):
        for workers in (1, 2):
            runs[workers].append(_on_ray(params, batches, workers, bot))
            log(f"Ray, {workers} worker(s): {runs[workers][-1]['games']} games in {runs[workers][-1]['wall']:.2f} s")
    one, two = (min(runs[w], key=lambda r: r["wall"]) for w in (1, 2))
    figures = {
        "games": games, "batch_pairs": batch_pairs, "opponent": opponent, "cpus": os.cpu_count(),
        **({"program": program} if program is not None else {}),
        "ms_per_game": round(1000 * wall / games, 4),
        "direct_games_per_s": round(direct_rate, 1),
        "ray_1_worker_games_per_s": round(one["games"] / one["wall"], 1),
        "ray_2_workers_games_per_s": round(two["games"] / two["wall"], 1),
        "speedup_2_over_1": round(one["wall"] / two["wall"], 3),
        # the same games, so the same turns, unless a program was disqualified (shorter games)
        "player_turns_1_2": [one["turns"], two["turns"]],
        "disqualified_games_1_2": [one["disqualified"], two["disqualified"]],
        "overhead_1_worker": round(one["overhead"], 4),
        "overhead_2_workers": round(two["overhead"], 4),
        "ray_1_worker_vs_direct": round(one["wall"] / wall - 1, 4),
        "runs_wall_seconds": {str(w): [round(r["wall"], 3) for r in runs[w]] for w in runs},
    }
    if program is not None:
        costs = program_costs(bot.with_params(params, name="program"), opp, min(pairs, 20))
        log(f"per program game: {costs['wall_ms_per_game']} ms wall, of which the program's CPU "
            f"{costs['program_cpu_ms_per_game']} ms, the lab's {costs['lab_cpu_ms_per_game']} ms "
            f"({costs['lab_cpu_us_per_turn']} us a turn), waiting {costs['waiting_ms_per_game']} ms; "
            f"a start and tear-down alone {costs['start_teardown_ms']} ms")
        figures.update(costs)
    if trials > 0 and program is None:
        figures.update(_storage_per_trial(storage, trials, opponent, log))
    return figures
