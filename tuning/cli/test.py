"""``tune test``: is the new bot better than the base bot? A sequential test on Ray, stored, resumable.

``COMMANDS`` holds the command (``tuning.cli.main`` adds it to the app); ``show_status`` and ``write_report`` answer
``tune status NAME`` and ``tune report NAME`` when NAME is a test rather than a study.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Callable, Optional

import typer

from tuning.cli.bars import Bars
from tuning.cli.common import figures_line, json_text, open_named, user_errors, write_page

__all__ = ["COMMANDS", "run_test", "show_status", "write_report", "find_test"]

_STORAGE_HELP = "Study database URL (default: $OCEAN_STORAGE, else sqlite:///studies/NAME.db)."
_RAY_HELP = "Join this Ray cluster (host:port or 'auto'; default: a local Ray on every core, or $RAY_ADDRESS)."


class _Bar(Bars):
    """One rich progress line on stderr: games counted of the maximum, W/D/L, outcomes, LLR
    against its bounds, Elo, and each bot's failures once there are any."""

    def __init__(self, handle) -> None:
        super().__init__(bar_width=24)
        self.spec = handle.spec
        self.task = self.progress.add_task("games", total=self.spec.max_batches
                                           * self.spec.games_per_batch, note="")

    def __call__(self, p) -> None:
        from tuning.driver.bottest import bot_failures
        from tuning.stats.sprt import estimate

        v = p.verdict
        wins = draws = losses = 0
        for t in p.tallies[:v.batches]:
            for (trial, _), m in t.matches.items():
                if trial == 0:
                    wins, draws, losses = wins + m.wins, draws + m.draws, losses + m.losses
        e = estimate(v.counts, self.spec.support)
        lower, upper = self.spec.settings.bounds
        elo = "-" if not math.isfinite(e.elo) else f"{e.elo + 0.0:+.1f} [{e.elo_low:+.1f}, {e.elo_high:+.1f}]"
        outcomes = "/".join(str(int(c)) for c in v.counts)
        failed = bot_failures(self.spec, p.tallies[:v.batches])
        failures = "" if not any(n for n, _ in failed.values()) else \
            f"  failed: new {failed['new'][0]}, base {failed['base'][0]}"
        note = (f"W/D/L {wins}/{draws}/{losses}  {'units' if self.spec.gauntlet else 'pairs'} {outcomes}  "
                f"LLR {v.llr:+.2f} [{lower:.2f}, {upper:.2f}]  Elo {elo}{failures}  ({p.games_stored:,} stored)")
        self.progress.update(self.task, completed=v.games, note=note)


def find_test(name: str, storage: Optional[str]):
    """The open test ``name`` if its database holds one (else None: it may be a study)."""
    from tuning.storage.teststore import open_test

    return open_named(name, storage, open_test)


def show_status(name: str, storage: Optional[str], as_json: bool) -> bool:
    """``tune status NAME`` for a test; False if NAME is no test there."""
    from tuning.results.testreport import test_status

    handle = find_test(name, storage)
    if handle is None:
        return False
    try:
        s = test_status(handle)
    finally:
        handle.close()
    if as_json:
        typer.echo(json_text(s))
        return True
    _print_status(s)
    return True


def _print_status(s: dict) -> None:
    from tuning.results.testreport import failures_line, verdict_line

    unit = "normalized Elo" if s["normalized"] else "Elo"
    opponents = "head to head" if not s["opponents"] else f"gauntlet against {', '.join(s['opponents'])}"
    typer.echo(f"{s['test']}  ({s['storage']}; {s['new']} against {s['base']}, {opponents}; maps {s['seeds']})")
    typer.echo(f"  hypotheses: H0 {s['elo0']:g} {unit}, H1 {s['elo1']:g} {unit}; alpha {s['alpha']:g}, "
               f"beta {s['beta']:g}; LLR bounds [{s['bounds'][0]:.2f}, {s['bounds'][1]:.2f}]")
    typer.echo(f"  {verdict_line(s)}")
    rate = "-" if s["games_per_second"] is None else f"{s['games_per_second']:.1f}"
    typer.echo(f"  games: {s['games']:,} counted of {s['max_games']:,} at most, {s['games_stored']:,} stored; "
               f"{rate} games/s; batches of {s['batch_pairs']} maps")
    typer.echo("  outcomes: " + ", ".join(f"{k} {v}" for k, v in s["outcomes"].items())
               + f"; new bot W/D/L {'/'.join(str(x) for x in s['wdl'])}")
    for r in s.get("per_opponent") or []:
        n, b = r["new"], r["base"]
        typer.echo(f"  vs {r['opponent']}: new {n['wins']}/{n['draws']}/{n['losses']}, base "
                   f"{b['wins']}/{b['draws']}/{b['losses']}; Elo of the difference "
                   f"{_elo(r['elo'], r['elo_ci'])}")
    failures = failures_line(s)
    if failures is not None:
        typer.echo(f"  {failures}")
    typer.echo(f"  code: {s['code']}")


def _elo(value, ci) -> str:
    def one(x):
        return "-" if x is None else f"{x:+.1f}"
    return f"{one(value)} [{one(ci[0])}, {one(ci[1])}]"


def write_report(name: str, storage: Optional[str], out: Path) -> bool:
    """``tune report NAME`` for a test (``out`` already checked); False if NAME is no test there."""
    from tuning.results.testreport import write_test_report

    handle = find_test(name, storage)
    if handle is None:
        return False
    written = write_page(out, lambda: write_test_report(handle, out), handle.close)
    typer.echo(figures_line(out, written["pngs"]))
    return True


def _folder(cwd: Path) -> str:
    """``--cwd`` as an absolute folder (one line if it is none)."""
    from tuning.errors import TuningError

    if not cwd.is_dir():
        raise TuningError(f"--cwd {str(cwd)!r} is not a folder")
    return str(cwd.resolve())


@user_errors
def test(
    name: str = typer.Argument(..., help="Test name (its games go to the study database under it)."),
    new: Optional[str] = typer.Option(None, "--new", help="The bot to test: a panel bot, a policy, params:FILE, "
                                                          "a frozen program (as a panel takes) or any command "
                                                          "line as cmd:\"CMD\" ({game_seed}, {turn_ms} filled in)."),
    base: Optional[str] = typer.Option(None, "--base", help="The bot it must beat (same forms as --new)."),
    panel: Optional[str] = typer.Option(None, "--panel", help="A gauntlet: both bots against each opponent of this "
                                                              "panel (or bot names, comma-separated) on the same "
                                                              "maps and sides, instead of head to head."),
    elo0: Optional[float] = typer.Option(None, "--elo0", help="H0: the new bot is this many Elo better (default 0)."),
    elo1: Optional[float] = typer.Option(None, "--elo1", help="H1: this many Elo better (default 5)."),
    alpha: Optional[float] = typer.Option(None, "--alpha", help="Chance of accepting H1 when H0 holds (default 0.05)."),
    beta: Optional[float] = typer.Option(None, "--beta", help="Chance of accepting H0 when H1 holds (default 0.05)."),
    normalized: Optional[bool] = typer.Option(None, "--normalized/--logistic", help="Bounds in normalized Elo "
                                                                                    "(default: logistic Elo)."),
    max_games: Optional[int] = typer.Option(None, "--max-games", help="Stop with 'max games reached' after this "
                                                                      "many games (default 100,000)."),
    seed: Optional[int] = typer.Option(None, "--seed", help="First map seed (default 5,000,000,000: no study's "
                                                            "seed bank reaches it)."),
    batch_pairs: Optional[int] = typer.Option(None, "--batch-pairs", help="Maps per batch: the test looks after "
                                                                          "each (default 50; 4 with a program)."),
    turn_ms: Optional[int] = typer.Option(None, "--turn-ms", help="A program's time per turn, ms (default 50)."),
    first_turn_ms: Optional[int] = typer.Option(None, "--first-turn-ms", help="Its time for the first turn, ms "
                                                                              "(default 1000)."),
    time_scale: Optional[float] = typer.Option(None, "--time-scale", help="Programs' time limits x this (default 1; "
                                                                         "at most 100, a study's timeout_scale)."),
    machine_scale: Optional[float] = typer.Option(None, "--machine-scale", help="A slow or busy machine: every "
                                                  "program's limits, frozen ones too, x this as well; what programs "
                                                  "are told does not change (a study's [time] machine_scale; "
                                                  "default 1, at most 100)."),
    memory_mb: Optional[int] = typer.Option(None, "--memory-mb", help="Each program's memory limit, MB (default "
                                                                      "768, CodinGame's)."),
    require_sandbox: Optional[bool] = typer.Option(None, "--require-sandbox/--sandbox-optional", help="Refuse to run "
                                                   "programs where the sandbox cannot start (default: optional)."),
    cwd: Optional[Path] = typer.Option(None, "--cwd", help="Working directory of the cmd: bots (default: the current "
                                                           "one); a test carried on keeps its bots' folders."),
    storage: Optional[str] = typer.Option(None, "--storage", help=_STORAGE_HELP),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help=_RAY_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object as the last line."),
    allow_code_change: bool = typer.Option(False, "--allow-code-change", help="Carry the test on although the code "
                                           "(ocean/ and tuning/) differs from the one its games were played under."),
) -> None:
    """Is the new bot better? A sequential test (pentanomial GSPRT) of --new against --base on pairs
    of games, stopped as soon as H1 or H0 is accepted; run it again to carry it on."""
    from tuning.study.testspec import TestOptions

    options = TestOptions(new=new, base=base, panel=panel, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta,
                          normalized=normalized, max_games=max_games, seed=seed, batch_pairs=batch_pairs,
                          turn_ms=turn_ms, first_turn_ms=first_turn_ms, time_scale=time_scale,
                          machine_scale=machine_scale, memory_mb=memory_mb, require_sandbox=require_sandbox,
                          cwd=None if cwd is None else _folder(cwd))
    run_test(name, options, storage=storage, ray_address=ray_address, as_json=as_json,
             allow_code_change=allow_code_change)


def run_test(name: str, options, *, storage: Optional[str], ray_address: Optional[str], as_json: bool,
             pool: Optional[Callable] = None, allow_code_change: bool = False) -> None:
    """``tune test``'s work once its options are read: open (or carry on) the test, play it to its
    verdict, print the verdict line (and the JSON object). ``pool(handle, workers)``, if given,
    makes the batch pool the runner plays in (the drills' audited pool); else the runner's own."""
    from tuning.driver.bottest import TestRunner
    from tuning.driver.cluster import connect
    from tuning.driver.programs import check_programs
    from tuning.storage.database import probe_storage, resolve_url
    from tuning.results.testreport import failures_line, test_status, verdict_line
    from tuning.storage.teststore import open_test
    from tuning.study.names import plain_name

    url = resolve_url(plain_name(name, "test name"), option=storage)
    probe_storage(url)
    handle = open_test(name, url, options)
    try:
        spec = handle.spec
        status = test_status(handle)
        if not status["finished"]:
            handle.store.check_code(allow_change=allow_code_change)
            workers = connect(ray_address)
            check_programs(spec.programs, spec.time_control)
            verb = "new test" if handle.created else "carrying on"
            # the limits programs are held to, as a study's (tune plan and the study's status say them)
            programs = any(b.is_program for b in spec.programs)
            limits = f"; programs at {spec.time_control.describe()}" if programs else ""
            typer.echo(f"test {name} ({verb}): {spec.new.name} against {spec.base.name}"
                       f"{'' if not spec.gauntlet else ' through ' + ', '.join(o.name for o in spec.opponents)}; "
                       f"{handle.storage.masked}, {workers} Ray CPUs; {status['games_stored']:,} games stored"
                       f"{limits}", err=True)
            with _Bar(handle) as bar:
                runner_pool = pool(handle, workers) if pool is not None else None
                run = TestRunner(handle, pool=runner_pool, progress=bar).run()
            if run.interrupted:
                typer.echo(f"interrupted after {run.games:,} games this run: carry on with  tune test {name}", err=True)
                raise typer.Exit(130)
            status = test_status(handle)
    finally:
        handle.close()
    failures = failures_line(status)
    if failures is not None:
        typer.echo(failures)
    typer.echo(verdict_line(status))
    if as_json:
        typer.echo(json_text(status))


COMMANDS = (test,)
