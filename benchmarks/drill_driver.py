"""``python -m benchmarks.drill_driver launch SPEC | resume NAME | test NAME``: ``tune launch``,
``tune resume`` and ``tune test`` as the crash drills run them, with every batch logged.

The driver is the product's own (``tuning.cli.study.launch_study``/``resume_study`` and
``tuning.cli.test.run_test``: the real ``StudyRunner``/``TestRunner`` playing the real games), in a
``BatchPool`` whose Ray task wraps the product's
(``tuning.driver.worker.play_batch_on_worker``): with a log path in ``$OCEAN_BATCH_LOG``, each batch
appends a JSON line when it starts and one when its games are played (and, on PostgreSQL,
stored by the worker), naming the worker process and the driver (host:pid) that submitted it.
The drills (``benchmarks.chaos``) count games played against games stored with it, and find a
worker to kill in the middle of a batch. The path is on the workers' machine.
"""
from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path
from typing import Optional

import ray
import typer

from tuning.cli.common import user_errors
from tuning.cli.study import launch_study, resume_study
from tuning.cli.test import run_test
from tuning.driver.pool import BatchPool
from tuning.driver.worker import TASK_OPTIONS, BatchResult, play_batch_on_worker

__all__ = ["BATCH_LOG_ENV", "audit", "AuditedPool", "app"]

BATCH_LOG_ENV = "OCEAN_BATCH_LOG"


def audit(path: str | None, event: str, **fields) -> None:
    """Append one JSON line to the log ``path`` (nothing if None). A single ``write`` on an
    ``O_APPEND`` descriptor: lines of concurrent workers never interleave."""
    if not path:
        return
    line = json.dumps({"event": event, "pid": os.getpid(), "host": socket.gethostname(), "time": time.time(),
                       **fields}, separators=(",", ":")) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


def _audited_batch(log: str, driver: str, params, opponent, seeds, trial: int, phase: str,
                   *rest, **named) -> BatchResult:
    """The product's batch (``play_batch_on_worker``, the rest of its arguments in ``rest``)
    between a "start" and a "done" line."""
    key = {"trial": trial, "phase": phase, "opponent": opponent.name, "seeds": list(seeds), "driver": driver}
    audit(log, "start", **key)
    result = play_batch_on_worker(params, opponent, seeds, trial, phase, *rest, **named)
    audit(log, "done", games=result.digest(opponent.name).games, **key)
    return result


_audited_task = ray.remote(**TASK_OPTIONS)(_audited_batch)  # the product's resources and retries


class AuditedPool(BatchPool):
    """A ``BatchPool`` whose batches log their start and end to ``log`` (None: a plain pool)."""

    def __init__(self, *args, log: str | None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.log = log
        self.driver = f"{socket.gethostname()}:{os.getpid()}"  # tells a Ray retry from another driver's replay

    def _start(self, batch, params: dict, url, study: str | None) -> ray.ObjectRef:
        if not self.log:
            return super()._start(batch, params, url, study)
        return _audited_task.remote(self.log, self.driver, params, batch.opponent, list(batch.seeds), batch.trial,
                                    batch.phase, self.bot_for(batch), self.time_control, url, study,
                                    shipments=self.shipments_for(batch))


def _audited_pool(study: bool = True):
    """The pool a driver plays in: the runner's own, sized the same, logging to ``$OCEAN_BATCH_LOG``.
    A study's batches are played by its bot; a test's batches carry their own (``study=False``)."""
    log = os.environ.get(BATCH_LOG_ENV) or None

    def pool(handle, workers: int) -> AuditedPool:
        return AuditedPool(workers + 1, bot=handle.bot if study else None, time_control=handle.spec.time_control,
                           store=handle.batch_store(), log=log)

    return pool


app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="tune launch / tune resume / tune test for the crash drills: every batch logged to $OCEAN_BATCH_LOG.")


@app.command()
@user_errors
def launch(
    spec_file: Path = typer.Argument(..., metavar="SPEC", help="Study file (TOML)."),
    trials: Optional[int] = typer.Option(None, "--trials", help="Override n_trials."),
    games: Optional[int] = typer.Option(None, "--games", help="Override games_per_opponent (even)."),
    storage: Optional[str] = typer.Option(None, "--storage", help="Study database URL."),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help="Join this Ray cluster."),
    or_resume: bool = typer.Option(False, "--or-resume", help="If the study exists already, resume it."),
) -> None:
    """``tune launch``, every batch logged."""
    launch_study(spec_file, trials=trials, games=games, storage=storage, ray_address=ray_address,
                 or_resume=or_resume, pool=_audited_pool())


@app.command()
@user_errors
def resume(
    name: str = typer.Argument(..., help="Study name."),
    trials: Optional[int] = typer.Option(None, "--trials", help="Change the study's total number of trials."),
    storage: Optional[str] = typer.Option(None, "--storage", help="Study database URL."),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help="Join this Ray cluster."),
) -> None:
    """``tune resume``, every batch logged."""
    resume_study(name, trials=trials, storage=storage, ray_address=ray_address, pool=_audited_pool())


@app.command()
@user_errors
def test(
    name: str = typer.Argument(..., help="Test name."),
    new: Optional[str] = typer.Option(None, "--new", help="The bot to test."),
    base: Optional[str] = typer.Option(None, "--base", help="The bot it must beat."),
    batch_pairs: Optional[int] = typer.Option(None, "--batch-pairs", help="Maps per batch."),
    storage: Optional[str] = typer.Option(None, "--storage", help="Study database URL."),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help="Join this Ray cluster."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object as the last line."),
) -> None:
    """``tune test`` (the options the drills use), every batch logged."""
    from tuning.study.testspec import TestOptions

    run_test(name, TestOptions(new=new, base=base, batch_pairs=batch_pairs), storage=storage,
             ray_address=ray_address, as_json=as_json, pool=_audited_pool(study=False))


if __name__ == "__main__":
    app(prog_name="python -m benchmarks.drill_driver")
