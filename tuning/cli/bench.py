"""``tune bench``: what Ray and the database cost around the games (``--scale``: what one driver
and one database sustain; ``--big-db``: a study's commands on a big database). The benchmarks
themselves live in the ``benchmarks`` package, imported when the command runs."""
from __future__ import annotations

import os
import sys
from typing import Optional

import typer

from tuning.cli.common import fail, print_figures, user_errors

__all__ = ["bench", "COMMANDS"]


@user_errors
def bench(
    pairs: int = typer.Option(1000, "--pairs", help="Maps per measurement (each played twice) against one opponent."),
    batch_pairs: int = typer.Option(50, "--batch-pairs", help="Maps per Ray task."),
    opponent: str = typer.Option("stealth-v1", "--opponent", help="Opponent bot."),
    repeats: int = typer.Option(2, "--repeats", help="Runs of each Ray measurement (the best is kept)."),
    trials: int = typer.Option(4, "--trials", help="Trials of the storage measurement."),
    storage: Optional[str] = typer.Option(None, "--storage", help="Database for the storage measurement "
                                                                 "(default: a temporary SQLite file)."),
    program: Optional[str] = typer.Option(None, "--program", help="Play an external program (command; {game_seed} "
                                                                   "allowed) as the study's bot: process games."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object as the last line."),
    scale: bool = typer.Option(False, "--scale", help="Instead: the driver's sustained batches/s and rows/s on a "
                                                      "local multi-node Ray with near-free games, into PostgreSQL."),
    nodes: int = typer.Option(4, "--nodes", help="With --scale: Ray worker nodes started on this machine."),
    node_cpus: int = typer.Option(8, "--node-cpus", help="With --scale: logical CPUs of each node."),
    scale_trials: int = typer.Option(300, "--scale-trials", help="With --scale: trials of the measured study."),
    seeds: int = typer.Option(200, "--seeds", help="With --scale: maps per trial and opponent (random, chaser)."),
    in_flight: int = typer.Option(16, "--in-flight", help="With --scale: trials in flight."),
    sampler: str = typer.Option("tpe", "--sampler", help="With --scale: tpe, random, cmaes or gp."),
    drivers: int = typer.Option(1, "--drivers", help="With --scale: drivers on the one study (the first is "
                                                     "profiled; all wait for the ask lock)."),
    pin_driver: bool = typer.Option(False, "--pin-driver", help="With --scale: the driver on the first core, the "
                                                                "Ray nodes on the others (a driver machine of its "
                                                                "own)."),
    db_writers: Optional[int] = typer.Option(None, "--db-writers", help="With --scale: processes storing batches "
                                                                        "at once for the database's ceiling "
                                                                        "(default: the cores; 0 skips it)."),
    db_seconds: float = typer.Option(15.0, "--db-seconds", help="With --scale: seconds of the database's ceiling."),
    big_db: bool = typer.Option(False, "--big-db", help="Instead: build a big study (the real driver, synthetic "
                                                        "games) on PostgreSQL and SQLite, or at --storage, and time "
                                                        "status, report and resume start-up on it."),
    big_trials: int = typer.Option(5000, "--big-trials", help="With --big-db: trials of the big study."),
    big_games: int = typer.Option(1000, "--big-games", help="With --big-db: game rows per trial."),
) -> None:
    """Games/s on 1 and 2 Ray workers vs the engine alone, scheduling overhead, storage time per trial
    (with --program: games of that program, without the storage measurement). With --scale: what one
    driver and one database sustain; with --big-db: a study's commands on a big database (see
    docs/benchmarks.md)."""
    from benchmarks.overhead import run_bench

    if min(pairs, batch_pairs, repeats) < 1 or trials < 0:
        fail("--pairs, --batch-pairs and --repeats must be at least 1, --trials at least 0")
    if big_db:
        if min(big_trials, big_games) < 4:
            fail(f"--big-trials and --big-games must be at least 4, got {big_trials} and {big_games}")
        from benchmarks.bigdb import run_big_db_bench

        figures = run_big_db_bench(trials=big_trials, games_per_trial=big_games, batch_pairs=batch_pairs,
                                   storage=storage, log=lambda line: typer.echo(line, err=True))
        print_figures(figures, as_json)
        return
    if scale:
        if min(nodes, node_cpus, scale_trials, seeds, in_flight, drivers) < 1:
            fail("--nodes, --node-cpus, --scale-trials, --seeds, --in-flight and --drivers must be at least 1")
        if db_seconds <= 0:
            fail(f"--db-seconds must be above 0, got {db_seconds}")
        if db_writers is not None and db_writers < 0:
            fail(f"--db-writers must be 0 (skip the database's ceiling) or more, got {db_writers}")
        if pin_driver and len(os.sched_getaffinity(0)) < 2:
            fail("--pin-driver needs at least two cores (one for the driver, the others for Ray)")
        if sampler not in ("tpe", "random", "cmaes", "gp"):
            fail(f"--sampler: unknown sampler {sampler!r}; use tpe, random, cmaes or gp")
        from benchmarks.scalebench import BenchFailed, ensure_auth_env, run_scale_bench

        ensure_auth_env(sys.argv[1:])
        try:
            figures = run_scale_bench(nodes=nodes, cpus_per_node=node_cpus, trials=scale_trials, seeds=seeds,
                                      batch_pairs=batch_pairs, in_flight=in_flight, sampler=sampler,
                                      storage=storage, log=lambda line: typer.echo(line, err=True),
                                      drivers=drivers, pin_driver=pin_driver, db_seconds=db_seconds,
                                      db_writers=len(os.sched_getaffinity(0)) if db_writers is None else db_writers)
        except BenchFailed as exc:  # said already, before its cluster stopped
            raise typer.Exit(exc.code) from None
        print_figures(figures, as_json)
        return
    try:
        figures = run_bench(pairs=pairs, batch_pairs=batch_pairs, opponent=opponent, trials=trials, storage=storage,
                            log=lambda line: typer.echo(line, err=True), repeats=repeats, program=program)
    except (ValueError, OSError) as exc:
        fail(str(exc))
    print_figures(figures, as_json)


COMMANDS = (bench,)
