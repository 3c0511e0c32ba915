"""``tune``: launch, resume, watch, validate and export studies; open the dashboard; benchmark.

Every user mistake ends with one line on stderr and exit code 2 (``TuningError``); database
URLs are printed with their password masked.
"""
from __future__ import annotations

import functools
import json
import logging
import math
import os
import sys
from pathlib import Path
from typing import Callable, Optional

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Tune the Ocean of Code bot: Optuna studies played by Ray workers, stored in SQL.")

_STORAGE_HELP = "Study database URL (default: $OCEAN_STORAGE, else sqlite:///studies/NAME.db)."
_RAY_HELP = "Join this Ray cluster (host:port or 'auto'; default: a local Ray on every core, or $RAY_ADDRESS)."


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _user_errors(fn: Callable) -> Callable:
    """Turn the service's user-facing errors into one line on stderr and exit code 2."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from ocean.bots.coefficients import ParamsError
        from tuning.errors import TuningError
        from tuning.storage import hide_passwords_in_argv

        hide_passwords_in_argv()  # before Ray copies our command line into its job table
        _quiet_libraries()
        try:
            return fn(*args, **kwargs)
        except (TuningError, ParamsError) as exc:
            _fail(str(exc))

    return wrapper


def _quiet_libraries() -> None:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    logging.getLogger("alembic").setLevel(logging.WARNING)


def _fmt(x: Optional[float], digits: int = 3) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _interval(score, low, high) -> str:
    return f"{_fmt(score)} [{_fmt(low)}, {_fmt(high)}]"


def _elo(mean, low, high) -> str:
    """An Elo difference with its interval: +123 [+98, +150] (ocean.stats.format_elo)."""
    from ocean.stats import format_elo

    return format_elo(mean, low, high)


# --- progress bars ------------------------------------------------------------------------------

class _RunBars:
    """Two rich bars on stderr (trials, games) fed by the runner's progress callback."""

    def __init__(self, name: str) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, \
            TimeRemainingColumn

        self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), TimeRemainingColumn(), TextColumn("{task.fields[note]}"),
                                 console=Console(stderr=True))
        self.trials = self.progress.add_task(f"{name} trials", total=None, note="")
        self.games = self.progress.add_task("games", total=None, note="")

    def __enter__(self):
        self.progress.start()
        return self

    def __exit__(self, *exc):
        self.progress.stop()

    def __call__(self, p) -> None:
        note = "" if p.best is None else f"best #{p.best[0]} {_interval(p.best[1], p.best[2], p.best[3])}"
        self.progress.update(self.trials, completed=p.trials_done, total=p.target, note=note)
        self.progress.update(self.games, completed=p.games_done, total=max(p.games_planned, p.games_done),
                             note=f"{p.running} running")


def _run_study(handle, ray_address: Optional[str], programs_checked: bool = False) -> None:
    from tuning.cluster import connect
    from tuning.programs import check_programs
    from tuning.runner import StudyRunner

    workers = connect(ray_address)
    if not programs_checked:  # on every node: programs start, frozen ones still play as frozen
        check_programs(handle.programs, handle.spec.timeout_scale)
    typer.echo(f"study {handle.name}: {handle.storage.masked}, {workers} Ray CPUs, "
               f"target {handle.target_trials} trials", err=True)
    with _RunBars(handle.name) as bars:
        report = StudyRunner(handle, progress=bars).run()
    rate = report.games / report.wall_seconds if report.wall_seconds > 0 else 0.0
    typer.echo(f"this run: {report.complete} complete, {report.pruned} pruned, {report.failed} failed"
               f"{f', {report.adopted} adopted' if report.adopted else ''}; {report.games} games in "
               f"{report.wall_seconds:.1f} s ({rate:.1f} games/s), {report.games_saved} saved by pruning")
    _print_best(handle)
    if report.interrupted:
        typer.echo(f"interrupted: carry on with  tune resume {handle.name}", err=True)
        raise typer.Exit(130)
    typer.echo(f"next: tune validate {handle.name}")


def _print_best(handle) -> None:
    from tuning.status import best_trial

    best = best_trial(handle)
    if best is not None:
        label = "validated" if best["validated"] else "training, not validated"
        typer.echo(f"best: trial {best['trial']} {_interval(best['score'], best['low'], best['high'])} ({label})")


# --- commands -----------------------------------------------------------------------------------

@app.command()
@_user_errors
def launch(
    spec_file: Path = typer.Argument(..., metavar="SPEC", help="Study file (TOML), e.g. studies/quick.toml."),
    trials: Optional[int] = typer.Option(None, "--trials", help="Override n_trials."),
    games: Optional[int] = typer.Option(None, "--games", help="Override games_per_opponent (even)."),
    storage: Optional[str] = typer.Option(None, "--storage", help=_STORAGE_HELP),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help=_RAY_HELP),
    or_resume: bool = typer.Option(False, "--or-resume", help="If the study exists already, resume it "
                                                               "(for services that restart)."),
) -> None:
    """Create a study from a study file and run it to the end."""
    from tuning.panel import resolve_panel
    from tuning.spec import load_spec
    from tuning.storage import probe_storage, resolve_url
    from tuning.study import StudyExists, create_study, open_study

    spec = load_spec(spec_file)
    if trials is not None or games is not None:
        spec = spec.with_overrides(n_trials=trials, games=games)
    url = resolve_url(spec.name, option=storage, spec_storage=spec.storage)
    probe_storage(url)  # reachable and a database, before Ray starts; creates nothing
    panel = resolve_panel(spec.panel)  # every input checked before anything starts or is written
    held_out = None if spec.validation.panel is None else resolve_panel(spec.validation.panel)
    from tuning.cluster import connect
    from tuning.programs import check_programs, study_programs

    connect(ray_address or spec.ray_address)
    check_programs(study_programs(spec, panel, held_out), spec.timeout_scale)  # before the study exists
    created = True
    try:
        handle = create_study(spec, url)
    except StudyExists:
        if not or_resume:
            raise
        handle = open_study(spec.name, url)
        created = False
    try:
        _run_study(handle, ray_address or spec.ray_address, programs_checked=created)
    finally:
        handle.close()


@app.command()
@_user_errors
def resume(
    name: str = typer.Argument(..., help="Study name."),
    trials: Optional[int] = typer.Option(None, "--trials", help="Change the study's total number of trials."),
    storage: Optional[str] = typer.Option(None, "--storage", help=_STORAGE_HELP),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help=_RAY_HELP),
) -> None:
    """Carry on a study: finish trials left running, then run the remaining ones."""
    from tuning.storage import resolve_url
    from tuning.study import open_study

    if trials is not None and trials < 1:
        _fail(f"--trials must be at least 1, got {trials}")
    handle = open_study(name, resolve_url(name, option=storage))
    try:
        if trials is not None:
            handle.set_target(trials)
        _run_study(handle, ray_address)
    finally:
        handle.close()


@app.command()
@_user_errors
def status(
    name: Optional[str] = typer.Argument(None, help="Study name (default: every study in the storage, "
                                                   "or in studies/*.db)."),
    storage: Optional[str] = typer.Option(None, "--storage", help=_STORAGE_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object as the last line."),
) -> None:
    """Trials complete/running/pruned/failed, best with its interval, games, games/s, ETA."""
    from tuning.status import study_status

    statuses = [study_status(h) for h in _open_many(name, storage)]
    if as_json:
        typer.echo(json.dumps(statuses[0] if name else {"studies": statuses}))
        return
    if not statuses:
        typer.echo("no studies")
    for s in statuses:
        _print_status(s)


def _open_many(name: Optional[str], storage: Optional[str]):
    """The named study, or every study of the storage (or of each studies/*.db)."""
    import optuna

    from tuning.storage import DEFAULT_DIR, ENV_STORAGE, open_storage, resolve_url
    from tuning.study import open_study

    if name is not None:
        handle = open_study(name, resolve_url(name, option=storage))
        try:
            yield handle
        finally:
            handle.close()
        return
    import os

    urls = [storage or os.environ.get(ENV_STORAGE)]
    if urls[0] is None:
        urls = [f"sqlite:///{p.as_posix()}" for p in sorted(Path(DEFAULT_DIR).glob("*.db"))]
    for url in urls:
        store = open_storage(url, must_exist=True)
        names = [s.study_name for s in optuna.get_all_study_summaries(store.optuna, include_best_trial=False)]
        store.close()
        for study_name in names:
            handle = open_study(study_name, url)
            try:
                yield handle
            finally:
                handle.close()


def _print_status(s: dict) -> None:
    t = s["trials"]
    typer.echo(f"{s['study']}  ({s['storage']}; panel {', '.join(s['panel'])}; seeds {s['seed_bank']})")
    typer.echo(f"  trials: {t['complete']} complete, {t['running']} running, {t['pruned']} pruned, "
               f"{t['failed']} failed of {s['target_trials']}" + ("  [finished]" if s["finished"] else ""))
    g = s["games"]
    rate = "-" if s["games_per_second"] is None else f"{s['games_per_second']:.1f}"
    eta = "-" if s["eta_seconds"] is None else f"{s['eta_seconds'] / 60:.1f} min"
    typer.echo(f"  games: {g['train']} training, {g['validate']} validation, {g['saved_by_pruning']} saved by "
               f"pruning; {rate} games/s; ETA {eta}")
    if s.get("program"):
        typer.echo(f"  tunes the program: {s['program']}")
    b = s["best"]
    if b is not None:
        label = "validated" if b["validated"] else "training, not validated"
        held = "" if b.get("held_out_score") is None else \
            f"; held-out opponents {_interval(b['held_out_score'], b['held_out_low'], b['held_out_high'])}"
        typer.echo(f"  best: trial {b['trial']} {_interval(b['score'], b['low'], b['high'])} ({label}){held}")
        if b.get("elo") is not None:
            each = ", ".join(f"{name} {_elo(*e)}" for name, e in b["elo_per_opponent"].items())
            typer.echo(f"  best in Elo: {_elo(b['elo'], b['elo_low'], b['elo_high'])} against the panel ({each})")
    if s["defaults"] is not None:
        d = s["defaults"]
        typer.echo(f"  defaults (trial 0): {_interval(d['score'], d['low'], d['high'])} (training)")
    for opponent, d in (s.get("disqualifications") or {}).items():
        if d["bot"] or d["opponent"]:
            first = d["first_bot_error"] or d["first_opponent_error"]
            typer.echo(f"  disqualified vs {opponent}: study bot {d['bot']}, {opponent} {d['opponent']} of "
                       f"{d['games']} games; first: {first}")


@app.command()
@_user_errors
def validate(
    name: str = typer.Argument(..., help="Study name."),
    top: Optional[int] = typer.Option(None, "--top", help="How many of the best trials (default: validation.top_k)."),
    games: Optional[int] = typer.Option(None, "--games", help="Games per opponent on held-out seeds "
                                                              "(default: validation.games)."),
    storage: Optional[str] = typer.Option(None, "--storage", help=_STORAGE_HELP),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help=_RAY_HELP),
) -> None:
    """Re-play the top trials and the defaults on held-out seeds; the best validated is 'best'."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from tuning.cluster import connect
    from tuning.storage import resolve_url
    from tuning.study import open_study
    from tuning.validation import validate_study

    from tuning.programs import check_programs
    from tuning.stats import panel_elo

    handle = open_study(name, resolve_url(name, option=storage))
    try:
        connect(ray_address)
        check_programs(handle.programs, handle.spec.timeout_scale)
        bars = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                        console=Console(stderr=True))
        task = bars.add_task(f"{name} validation games", total=None)
        with bars:
            results = validate_study(handle, top_k=top, games=games,
                                     progress=lambda done, total: bars.update(task, completed=done, total=total))
        for r in results:
            diff = "reference (defaults)" if r.diff is None else \
                f"vs defaults {r.diff.mean:+.3f} [{r.diff.low:+.3f}, {r.diff.high:+.3f}]"
            held = "" if r.held_out is None else \
                f"; held-out opponents {_interval(r.held_out.mean, r.held_out.low, r.held_out.high)}"
            trained = {b.name: r.per_opponent[b.name] for b in handle.panel if b.name in r.per_opponent}
            rating = panel_elo(trained)
            typer.echo(f"trial {r.trial:>4}: validated {_interval(r.estimate.mean, r.estimate.low, r.estimate.high)} "
                       f"(Elo {_elo(rating.mean, rating.low, rating.high)}) "
                       f"on {r.estimate.games // max(1, len(handle.panel))} games/opponent{held}; "
                       f"training {_fmt(r.training_score)}; {diff}")
        typer.echo(f"best: trial {results[0].trial}; export it with  tune export {name} --out best.toml")
    finally:
        handle.close()


@app.command()
@_user_errors
def export(
    name: str = typer.Argument(..., help="Study name."),
    fmt: str = typer.Option("toml", "--format", help="toml (ocean bot --params), json or cpp (a C++ header); for a "
                                                     "program's study also args (its command line) or env "
                                                     "(NAME=value lines)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Write here (default: stdout)."),
    trial: Optional[int] = typer.Option(None, "--trial", help="Export this trial (default: the best validated)."),
    storage: Optional[str] = typer.Option(None, "--storage", help=_STORAGE_HELP),
) -> None:
    """Write the best validated coefficients (or a given trial's) with their provenance."""
    from ocean.bots.coefficients import save_params
    from tuning.export import FORMATS, choose_trial, provenance, render
    from tuning.storage import resolve_url
    from tuning.study import open_study

    if fmt not in FORMATS:
        _fail(f"unknown --format {fmt!r}; choose one of: {', '.join(FORMATS)}")
    handle = open_study(name, resolve_url(name, option=storage))
    try:
        number, values, validation = choose_trial(handle, trial)
        prov = provenance(handle, number, validation)
        program = handle.spec.bot is not None
        text = render(values, prov, fmt, handle.bot)
        policy = handle.bot.policy
    finally:
        handle.close()
    if out is None:
        sys.stdout.write(text)
        return
    try:
        if fmt == "toml" and not program:
            save_params(values, out, prov, policy)
        else:
            out.write_text(text)
    except OSError as exc:
        _fail(f"cannot write {out}: {exc.strerror}")
    typer.echo(f"trial {number} of {name} written to {out}", err=True)


@app.command()
@_user_errors
def report(
    name: str = typer.Argument(..., help="Study name."),
    out: Path = typer.Option(Path("report.html"), "--out", help="The HTML page; PNG files go beside it "
                                                                  "(report_history.png, ...)."),
    storage: Optional[str] = typer.Option(None, "--storage", help=_STORAGE_HELP),
) -> None:
    """Write a self-contained HTML report of a study (history, importances, slices, per-opponent
    scores, per-game statistics, pruning, speed) and its figures as PNG files."""
    import os

    from tuning.storage import resolve_url
    from tuning.study import open_study
    from rich.console import Console

    from tuning.study_report import write_report

    if out.suffix.lower() not in (".html", ".htm"):
        _fail(f"--out must name an .html file, got {str(out)!r}")
    if not out.parent.is_dir():
        _fail(f"cannot write {out}: folder {str(out.parent)!r} does not exist")
    # Checked before anything is drawn, so a bad --out leaves no PNG files behind.
    if out.is_dir():
        _fail(f"cannot write {out}: it is a folder")
    if not os.access(out.parent, os.W_OK) or (out.exists() and not os.access(out, os.W_OK)):
        _fail(f"cannot write {out}: permission denied")
    handle = open_study(name, resolve_url(name, option=storage))
    try:
        with Console(stderr=True).status(f"reading {name} and drawing its figures"):
            written = write_report(handle, out)
    except OSError as exc:
        _fail(f"cannot write {out}: {exc.strerror}")
    finally:
        handle.close()
    typer.echo(f"{out} written, with {len(written['pngs'])} figures beside it: "
               + ", ".join(p.name for p in written["pngs"]))


@app.command()
@_user_errors
def dashboard(
    name: Optional[str] = typer.Argument(None, help="Study name (its default storage), or give --storage."),
    storage: Optional[str] = typer.Option(None, "--storage", help=_STORAGE_HELP),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to serve on (0.0.0.0 exposes it to the network)."),
    port: int = typer.Option(8080, "--port", help="Port to serve on."),
) -> None:
    """Serve optuna-dashboard on the study database."""
    import os

    import optuna_dashboard

    from tuning.storage import ENV_STORAGE, open_storage, resolve_url

    if name is None and not (storage or os.environ.get(ENV_STORAGE)):
        _fail("give a study name or --storage URL")
    url = resolve_url(name, option=storage) if name else (storage or os.environ[ENV_STORAGE])
    store = open_storage(url, must_exist=True)
    typer.echo(f"optuna-dashboard for {store.masked} on http://{host}:{port}/", err=True)
    optuna_dashboard.run_server(store.optuna, host=host, port=port)


@app.command()
@_user_errors
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
    from tuning.bench import run_bench

    if min(pairs, batch_pairs, repeats) < 1 or trials < 0:
        _fail("--pairs, --batch-pairs and --repeats must be at least 1, --trials at least 0")
    if big_db:
        if min(big_trials, big_games) < 4:
            _fail(f"--big-trials and --big-games must be at least 4, got {big_trials} and {big_games}")
        from tuning.bigdb import run_big_db_bench

        figures = run_big_db_bench(trials=big_trials, games_per_trial=big_games, batch_pairs=batch_pairs,
                                   storage=storage, log=lambda line: typer.echo(line, err=True))
        _print_figures(figures, as_json)
        return
    if scale:
        if min(nodes, node_cpus, scale_trials, seeds, in_flight, drivers) < 1:
            _fail("--nodes, --node-cpus, --scale-trials, --seeds, --in-flight and --drivers must be at least 1")
        if db_seconds <= 0:
            _fail(f"--db-seconds must be above 0, got {db_seconds}")
        if db_writers is not None and db_writers < 0:
            _fail(f"--db-writers must be 0 (skip the database's ceiling) or more, got {db_writers}")
        if pin_driver and len(os.sched_getaffinity(0)) < 2:
            _fail("--pin-driver needs at least two cores (one for the driver, the others for Ray)")
        if sampler not in ("tpe", "random", "cmaes", "gp"):
            _fail(f"--sampler: unknown sampler {sampler!r}; use tpe, random, cmaes or gp")
        from tuning.scalebench import ensure_auth_env, run_scale_bench

        ensure_auth_env(sys.argv[1:])
        figures = run_scale_bench(nodes=nodes, cpus_per_node=node_cpus, trials=scale_trials, seeds=seeds,
                                  batch_pairs=batch_pairs, in_flight=in_flight, sampler=sampler, storage=storage,
                                  log=lambda line: typer.echo(line, err=True), drivers=drivers,
                                  pin_driver=pin_driver, db_seconds=db_seconds,
                                  db_writers=len(os.sched_getaffinity(0)) if db_writers is None else db_writers)
        _print_figures(figures, as_json)
        return
    try:
        figures = run_bench(pairs=pairs, batch_pairs=batch_pairs, opponent=opponent, trials=trials, storage=storage,
                            log=lambda line: typer.echo(line, err=True), repeats=repeats, program=program)
    except (ValueError, OSError) as exc:
        _fail(str(exc))
    _print_figures(figures, as_json)


def _print_figures(figures: dict, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(figures))
    else:
        for key, value in figures.items():
            typer.echo(f"{key}: {value}")


def main() -> None:  # pragma: no cover - console entry point
    app()
