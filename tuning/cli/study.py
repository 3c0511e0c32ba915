"""The study commands of ``tune``: launch, resume, status, validate, export, report, dashboard.

Every user mistake ends with one line on stderr and exit code 2 (``TuningError``); database
URLs are printed with their password masked.
"""
from __future__ import annotations

import os

import sys
from pathlib import Path
from typing import Callable, Optional

import typer

from tuning.cli.bars import Bars, counting_bar
from tuning.cli.common import (RAY_HELP, STORAGE_HELP, connect_said, elo_text, fail, figures_line, fmt, interval,
                               json_text, user_errors, write_page)
from tuning.results.verdict import best_verdict_text, parts_text, point_name

CODE_CHANGE_HELP = ("Go on although the code (ocean/ and tuning/) differs from the one the study's games were "
                    "played under; status and report then show the study spans two versions.")

__all__ = ["launch", "resume", "status", "validate", "export", "report", "dashboard", "launch_study", "resume_study",
           "COMMANDS"]


# --- progress bars ------------------------------------------------------------------------------

class _RunBars(Bars):
    """Two rich bars on stderr (trials, games) fed by the runner's progress callback."""

    def __init__(self, name: str) -> None:
        super().__init__(remaining=True)
        self.trials = self.progress.add_task(f"{name} trials", total=None, note="")
        self.games = self.progress.add_task("games", total=None, note="")

    def __call__(self, p) -> None:
        note = "" if p.best is None else f"best #{p.best[0]} {interval(p.best[1], p.best[2], p.best[3])}"
        self.progress.update(self.trials, completed=p.trials_done, total=p.target, note=note)
        self.progress.update(self.games, completed=p.games_done, total=max(p.games_planned, p.games_done),
                             note=f"{p.running} running")


def _finished(handle) -> bool:
    """Say so and what comes next, without starting Ray, if study ``handle`` has nothing left to
    run (every trial of its target finished, none running); False otherwise."""
    from optuna.trial import TrialState

    from tuning.results.status import best_trial
    from tuning.results.verdict import GAIN
    from tuning.storage.trialindex import trial_counts

    counts = trial_counts(handle.storage.engine, handle.name)
    done = {key: counts[state] for key, state in (("complete", TrialState.COMPLETE),
                                                   ("pruned", TrialState.PRUNED), ("failed", TrialState.FAIL))}
    if sum(done.values()) < handle.target_trials or counts[TrialState.RUNNING] or counts[TrialState.WAITING]:
        return False
    typer.echo(f"study {handle.name} is finished: {sum(done.values())} of {handle.target_trials} trials "
               f"({', '.join(f'{n} {key}' for key, n in done.items())}); nothing to resume")
    _print_best(handle)
    best = best_trial(handle)
    name = handle.name
    if best is None or not best["validated"]:
        typer.echo(f"next: tune validate {name}  (or more trials: tune resume {name} --trials N)")
    elif best["verdict"] == GAIN:
        typer.echo(f"validated, {best['verdict']}; next: tune export {name} --out best.toml  "
                   f"(or tune report {name} --out report.html)")
    else:
        typer.echo(f"validated, {best['verdict']}; next: tune report {name} --out report.html, or more trials: "
                   f"tune resume {name} --trials N")
    return True


def _run_study(handle, ray_address: Optional[str], programs_checked: bool = False, pool=None,
               created: bool = False) -> None:
    from tuning.driver.ctrlc import CtrlC

    try:
        with CtrlC() as ctrl_c:
            from tuning.driver.programs import check_programs
            from tuning.driver.runner import StudyRunner  # seconds of imports: inside, as Ctrl-C may come

            if _finished(handle):
                return
            workers = connect_said(ray_address)
            ctrl_c.check()
            if not programs_checked:  # on every node: programs start, frozen ones still play as frozen
                check_programs(handle.checked_bots, handle.spec.time_control)
            ctrl_c.check()
    except KeyboardInterrupt:  # the runner takes Ctrl-C over once it runs, and says its own line
        _interrupted_at_start(handle.name, handle.storage.masked, created=created)
    try:
        typer.echo(f"study {handle.name}: {handle.storage.masked}, {workers} Ray CPUs, "
                   f"target {handle.target_trials} trials", err=True)
        with _RunBars(handle.name) as bars:
            report = StudyRunner(handle, pool=None if pool is None else pool(handle, workers), progress=bars).run()
    except KeyboardInterrupt:  # before the runner took Ctrl-C over, or a second press while it stopped
        typer.echo(f"interrupted: carry on with  tune resume {handle.name}", err=True)
        raise typer.Exit(130) from None
    rate = report.games / report.wall_seconds if report.wall_seconds > 0 else 0.0
    typer.echo(f"this run: {report.complete} complete, {report.pruned} pruned, {report.failed} failed"
               f"{f', {report.adopted} adopted' if report.adopted else ''}; {report.games} games in "
               f"{report.wall_seconds:.1f} s ({rate:.1f} games/s), {report.games_saved} saved by pruning")
    _print_best(handle)
    if report.interrupted:
        typer.echo(f"interrupted: carry on with  tune resume {handle.name}", err=True)
        raise typer.Exit(130)
    typer.echo(f"next: tune validate {handle.name}")


def _validated_name(number: int) -> str:
    """A validation line's point, aligned: ``trial   12`` or ``theta after 15 iterations``."""
    return f"trial {number:>4}" if number >= 0 else point_name(number)


def _print_best(handle) -> None:
    from tuning.results.status import best_trial

    best = best_trial(handle)
    if best is not None and best.get("point") and not best["validated"]:
        typer.echo(f"found: {best['point']} (head-to-head SPSA), not validated yet")
    elif best is not None:
        label = "validated" if best["validated"] else "training, not validated"
        typer.echo(f"best: {point_name(best['trial'])} {interval(best['score'], best['low'], best['high'])} ({label})")


# --- commands -----------------------------------------------------------------------------------

@user_errors
def launch(
    spec_file: Path = typer.Argument(..., metavar="SPEC", help="Study file (TOML), e.g. studies/quick.toml."),
    trials: Optional[int] = typer.Option(None, "--trials", help="Override n_trials."),
    games: Optional[int] = typer.Option(None, "--games", help="Override games_per_opponent (even)."),
    storage: Optional[str] = typer.Option(None, "--storage", help=STORAGE_HELP),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help=RAY_HELP),
    or_resume: bool = typer.Option(False, "--or-resume", help="If the study exists already, resume it "
                                                               "(for services that restart)."),
) -> None:
    """Create a study from a study file and run it to the end."""
    launch_study(spec_file, trials=trials, games=games, storage=storage, ray_address=ray_address, or_resume=or_resume)


def launch_study(spec_file: Path, *, trials: Optional[int] = None, games: Optional[int] = None,
                 storage: Optional[str] = None, ray_address: Optional[str] = None, or_resume: bool = False,
                 pool: Optional[Callable] = None) -> None:
    """``tune launch``. ``pool(handle, workers)``: the ``BatchPool`` the driver plays in, built
    once Ray is joined (default: the runner's own, sized to the cluster)."""
    from tuning.driver.ctrlc import CtrlC
    from tuning.storage.database import ENV_STORAGE, mask, probe_storage, remember_storage, resolve_url
    from tuning.storage.handle import StudyExists, create_study, open_study, study_exists
    from tuning.study.opponents import study_opponents
    from tuning.study.spec import load_spec

    name = spec_file.stem  # until the file is read
    handle, created = None, True
    try:
        with CtrlC() as ctrl_c:  # a press a finalizer swallowed still stops the start
            spec = load_spec(spec_file)
            name = spec.name
            if trials is not None or games is not None:
                spec = spec.with_overrides(n_trials=trials, games=games)
            url = resolve_url(spec.name, option=storage, spec_storage=spec.storage)
            probe_storage(url)  # reachable and a database, before Ray starts; creates nothing
            if not or_resume and study_exists(spec.name, url):  # said in a second, not after Ray's start
                raise StudyExists(f"study {spec.name!r} already exists in {mask(url)}; carry on with: "
                                  f"tune resume {spec.name}")
            panel, held_out = study_opponents(spec)  # every input checked before anything starts or is written
            from tuning.driver.programs import check_programs
            from tuning.study.opponents import checked_bots

            connect_said(ray_address or spec.ray_address)
            ctrl_c.check()
            check_programs(checked_bots(spec, panel, held_out), spec.time_control)  # before the study exists
            ctrl_c.check()
            try:
                handle = create_study(spec, url)
                typer.echo(f"study {spec.name} created in {handle.storage.masked}", err=True)
            except StudyExists:
                if not or_resume:
                    raise
                handle = open_study(spec.name, url)
                created = False
            if spec.storage and not storage and not os.environ.get(ENV_STORAGE):
                remember_storage(spec.name, spec.storage)  # `tune status NAME` and the rest find it
            if not created:
                handle.check_code(allow_change=False, command="tune launch --or-resume")
            ctrl_c.check()
    except BaseException as exc:
        where = None if handle is None else handle.storage.masked
        if handle is not None:
            handle.close()
        if isinstance(exc, KeyboardInterrupt):
            _interrupted_at_start(name, where, created=created)
        raise
    try:
        _run_study(handle, ray_address or spec.ray_address, programs_checked=created, pool=pool, created=created)
    finally:
        handle.close()


def _interrupted_at_start(name: str, where: Optional[str], *, created: bool) -> None:
    """Ctrl-C before the runner started: one line saying what is stored (``where``: the study's
    database, None if it was not created) and how to go on; exit 130."""
    if where is None:
        typer.echo(f"interrupted while starting: study {name} was not created; launch it again when ready",
                   err=True)
        raise typer.Exit(130)
    done = f"was created in {where}, no trial started yet" if created else f"is in {where}, as it was"
    typer.echo(f"interrupted while starting: study {name} {done}; carry on with  tune resume {name}", err=True)
    raise typer.Exit(130)


@user_errors
def resume(
    name: str = typer.Argument(..., help="Study name."),
    trials: Optional[int] = typer.Option(None, "--trials", help="Change the study's total number of trials."),
    storage: Optional[str] = typer.Option(None, "--storage", help=STORAGE_HELP),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help=RAY_HELP),
    allow_code_change: bool = typer.Option(False, "--allow-code-change", help=CODE_CHANGE_HELP),
) -> None:
    """Carry on a study: finish trials left running, then run the remaining ones."""
    resume_study(name, trials=trials, storage=storage, ray_address=ray_address, allow_code_change=allow_code_change)


def resume_study(name: str, *, trials: Optional[int] = None, storage: Optional[str] = None,
                 ray_address: Optional[str] = None, pool: Optional[Callable] = None,
                 allow_code_change: bool = False) -> None:
    """``tune resume``; ``pool`` as for ``launch_study``."""
    from tuning.storage.database import resolve_url
    from tuning.storage.handle import open_study

    if trials is not None and trials < 1:
        fail(f"--trials must be at least 1, got {trials}")
    handle = open_study(name, resolve_url(name, option=storage))
    try:
        handle.check_code(allow_change=allow_code_change, command="tune resume")
        if trials is not None:
            handle.set_target(trials)
        _run_study(handle, ray_address, pool=pool)
    finally:
        handle.close()


@user_errors
def status(
    name: Optional[str] = typer.Argument(None, help="Study name (default: every study in the storage, "
                                                   "or in studies/*.db)."),
    storage: Optional[str] = typer.Option(None, "--storage", help=STORAGE_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object as the last line."),
) -> None:
    """Trials complete/running/pruned/failed, best with its interval, games, games/s, ETA (for a
    test: its verdict or where it stands, see tune test)."""
    from tuning.cli.test import show_status
    from tuning.results.status import study_status

    if name is not None and show_status(name, storage, as_json):  # NAME is a test (tune test)
        return

    statuses = [study_status(h) for h in _open_many(name, storage)]
    others = {} if name else _other_kinds(storage)
    if as_json:
        typer.echo(json_text(statuses[0] if name else {"studies": statuses, **others}))
        return
    if not statuses:
        typer.echo("no studies")
    for s in statuses:
        _print_status(s)
    for key, what in (("tests", "bot tests (tune test)"), ("learning_runs", "learning runs (tune learn)")):
        if others.get(key):
            typer.echo(f"{what}: {', '.join(others[key])}  (tune status NAME for one)")


def _storage_urls(storage: Optional[str]) -> list[str]:
    """The databases ``tune status`` without a name reads: --storage, $OCEAN_STORAGE, or each studies/*.db."""
    from tuning.storage.database import DEFAULT_DIR, ENV_STORAGE

    url = storage or os.environ.get(ENV_STORAGE)
    return [url] if url is not None else [f"sqlite:///{p.as_posix()}" for p in sorted(Path(DEFAULT_DIR).glob("*.db"))]


def _other_kinds(storage: Optional[str]) -> dict[str, list[str]]:
    """The bot tests and learning runs of those databases, by name (read only)."""
    import sqlalchemy as sa

    from tuning.storage.database import parse_url
    from tuning.storage.kinds import LEARN, TEST, names_of

    found = {"tests": [], "learning_runs": []}
    for url in _storage_urls(storage):
        parsed = parse_url(url)
        if parsed.get_backend_name() == "sqlite" and not Path(parsed.database).exists():
            continue
        engine = sa.create_engine(url)
        try:
            found["tests"] += names_of(engine, TEST)
            found["learning_runs"] += names_of(engine, LEARN)
        except sa.exc.SQLAlchemyError:
            continue  # not reachable: the studies' part said so already
        finally:
            engine.dispose()
    return found


def _open_many(name: Optional[str], storage: Optional[str]):
    """The named study, or every study of the storage (or of each studies/*.db)."""
    import optuna

    from tuning.storage.database import open_storage, resolve_url
    from tuning.storage.handle import open_study

    if name is not None:
        handle = open_study(name, resolve_url(name, option=storage))
        try:
            yield handle
        finally:
            handle.close()
        return
    from tuning.errors import StudyNotFound

    for url in _storage_urls(storage):
        try:
            store = open_storage(url, must_exist=True)
        except StudyNotFound:
            if url == storage:
                raise
            continue  # a studies/*.db holding only tests or learning runs
        names = [s.study_name for s in optuna.get_all_study_summaries(store.optuna, include_best_trial=False)]
        store.close()
        for study_name in names:
            handle = open_study(study_name, url)
            try:
                yield handle
            finally:
                handle.close()


def _time_text(time: dict) -> str:
    from ocean.timecontrol import TimeControl

    return TimeControl.from_json(time).describe()


def _print_status(s: dict) -> None:
    t = s["trials"]
    typer.echo(f"{s['study']}  ({s['storage']}; panel {', '.join(s['panel'])}; seeds {s['seed_bank']})")
    typer.echo(f"  trials: {t['complete']} complete, {t['running']} running, {t['pruned']} pruned, "
               f"{t['failed']} failed of {s['target_trials']}" + ("  [finished]" if s["finished"] else ""))
    g = s["games"]
    rate = "-" if s["games_per_second"] is None else f"{s['games_per_second']:.1f}"
    eta = "-" if s["eta_seconds"] is None else f"{s['eta_seconds'] / 60:.1f} min"
    typer.echo(f"  games: {g['train']} training, {g['validate']} validation, {g['saved_by_pruning']} saved by "
               f"pruning; {rate} games/s over the last 5 min of play, every phase (launch's figure: over its whole "
               f"run); ETA {eta}")
    if s.get("program"):
        typer.echo(f"  tunes the program: {s['program']}")
    typer.echo(f"  tuned at: {_time_text(s['time_control'])}")
    if s.get("code"):
        typer.echo(f"  code: {s['code']}")
    b = s["best"]
    if s.get("games_replayed"):
        typer.echo(f"  games an opponent lost to its clock or a crash: {s['games_replayed']} played again, "
                   f"{s['games_set_aside']} of them set aside (they count for nothing)")
    if b is not None and b.get("point"):
        typer.echo(f"  head-to-head SPSA: {b['point']}, not validated yet")
    elif b is not None:
        label = f"validated at {_time_text(b['time_control'])}" if b["validated"] else "training, not validated"
        held = "" if b.get("held_out_score") is None else \
            f"; held-out opponents {interval(b['held_out_score'], b['held_out_low'], b['held_out_high'])}"
        typer.echo(f"  best: {point_name(b['trial'])} {interval(b['score'], b['low'], b['high'])} ({label}){held}")
        if b["validated"]:
            typer.echo(f"  verdict: {best_verdict_text(b)}")
        elif b.get("point"):
            typer.echo(f"  found: {b['point']} (validate it: tune validate {s['study']})")
        if b.get("elo") is not None:
            each = ", ".join(f"{name} {elo_text(*e)}" for name, e in b["elo_per_opponent"].items())
            typer.echo(f"  best in Elo: {elo_text(b['elo'], b['elo_low'], b['elo_high'])} against the panel ({each})")
    if s["defaults"] is not None:
        d = s["defaults"]
        typer.echo(f"  defaults (trial 0): {interval(d['score'], d['low'], d['high'])} "
                   f"({'validated' if d['validated'] else 'training'})")
    for opponent, d in (s.get("disqualifications") or {}).items():
        if d["bot"] or d["opponent"]:
            first = d["first_bot_error"] or d["first_opponent_error"]
            replayed = f"; {d['replayed']} replayed for its clock or a crash, {d['set_aside']} set aside" \
                if d.get("replayed") else ""
            typer.echo(f"  disqualified vs {opponent}: study bot {d['bot']} ({d['bot'] / max(1, d['games']):.0%}), "
                       f"{opponent} {d['opponent']} of {d['games']} games{replayed}; first: {first}")


@user_errors
def validate(
    name: str = typer.Argument(..., help="Study name."),
    top: Optional[int] = typer.Option(None, "--top", help="How many of the best trials (default: validation.top_k)."),
    games: Optional[int] = typer.Option(None, "--games", help="Games per opponent on held-out seeds "
                                                              "(default: validation.games)."),
    head_to_head_games: Optional[int] = typer.Option(None, "--head-to-head-games", help="At most this many "
                                                     "head-to-head games: the SPRT says 'no decision' there "
                                                     "(default: validation.head_to_head_games)."),
    storage: Optional[str] = typer.Option(None, "--storage", help=STORAGE_HELP),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help=RAY_HELP),
    turn_ms: Optional[int] = typer.Option(None, "--turn-ms", help="Validate at this time per turn, ms, told to "
                                                                 "programs (default: the study's [time])."),
    first_turn_ms: Optional[int] = typer.Option(None, "--first-turn-ms", help="And this time for the first "
                                                                             "turn, ms (default: the study's)."),
    time_scale: Optional[float] = typer.Option(None, "--time-scale", help="Limits enforced = times x this "
                                                                         "(default: the study's timeout_scale)."),
    machine_scale: Optional[float] = typer.Option(None, "--machine-scale", help="A slow or busy machine: every "
                                                  "program's limits, frozen ones too, x this; what programs are "
                                                  "told does not change (default: the study's [time] machine_scale)."),
    allow_code_change: bool = typer.Option(False, "--allow-code-change", help=CODE_CHANGE_HELP),
) -> None:
    """Re-play the top trials and the defaults on held-out seeds (at the study's time control, or
    the one given: results at each are kept): a race on one half of the maps chooses the best, an
    SPRT decides its head to head against the defaults, and the other half judges it not worse
    against the training panel and the held-out opponents: 'gain' needs all three, else 'no gain
    shown'. Resumable: games already stored are reused."""
    from tuning.results.validation import validate_study
    from tuning.storage.database import resolve_url
    from tuning.storage.handle import open_study

    from tuning.driver.programs import check_programs
    from tuning.results.verdict import GAIN, reference_name
    from tuning.stats.estimates import panel_elo

    handle = open_study(name, resolve_url(name, option=storage))
    try:
        handle.check_code(allow_change=allow_code_change, command="tune validate")
        time = _time_control(handle.spec.time_control, turn_ms, first_turn_ms, time_scale, machine_scale)
        connect_said(ray_address)
        check_programs(handle.checked_bots, time)
        bars, progress = counting_bar(f"{name} validation games")
        with bars:
            results = validate_study(handle, top_k=top, games=games, time=time, progress=progress,
                                     head_to_head_games=head_to_head_games)
        # trial 0 plays the defaults, or the [search] start file a warm study started from
        reference = reference_name(handle.spec.start)
        for r in results:
            diff = f"reference ({reference})" if r.diff is None else \
                f"vs {reference} {r.diff.mean:+.3f} [{r.diff.low:+.3f}, {r.diff.high:+.3f}]"
            held = "" if r.held_out is None else \
                f"; held-out opponents {interval(r.held_out.mean, r.held_out.low, r.held_out.high)}"
            chosen_on = "" if r.selection is None else f"; chosen on {fmt(r.selection.mean)}"
            trained = {b.name: r.per_opponent[b.name] for b in handle.panel if b.name in r.per_opponent}
            rating = panel_elo(trained)
            typer.echo(f"{_validated_name(r.trial)}{' *' if r.chosen else '  '}: judged "
                       f"{interval(r.estimate.mean, r.estimate.low, r.estimate.high)} "
                       f"(Elo {elo_text(rating.mean, rating.low, rating.high)}) "
                       f"on {r.estimate.games // max(1, len(handle.panel))} games/opponent{held}{chosen_on}; "
                       f"training {fmt(r.training_score)}; {diff}")
        best = results[0]
        typer.echo(f"at {time.describe()}: best {point_name(best.trial)} (*: chosen by a race on one half of the held-out "
                   f"maps, judged on the other); {parts_text(best.parts, reference)}")
        if best.verdict == GAIN:
            typer.echo(f"export it with  tune export {name} --out best.toml")
        else:
            typer.echo(f"nothing to export: tune export {name} refuses unless --allow-no-gain")
    finally:
        handle.close()


def _time_control(study, turn_ms: Optional[int], first_turn_ms: Optional[int], time_scale: Optional[float],
                  machine_scale: Optional[float] = None):
    """The study's time control with the options given in its place; one line if one is wrong."""
    from ocean.timecontrol import TimeControl

    try:
        return TimeControl(study.turn_ms if turn_ms is None else turn_ms,
                           study.first_turn_ms if first_turn_ms is None else first_turn_ms,
                           study.scale if time_scale is None else time_scale,
                           study.machine if machine_scale is None else machine_scale).run_as(study.sandbox)
    except ValueError as exc:
        fail(f"{exc} (--turn-ms, --first-turn-ms, --time-scale, --machine-scale)")


@user_errors
def export(
    name: str = typer.Argument(..., help="Study name."),
    fmt: str = typer.Option("toml", "--format", help="toml (ocean bot --params), json or cpp (a C++ header); for a "
                                                     "program's study also args (its command line) or env "
                                                     "(NAME=value lines)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Write here (default: stdout)."),
    trial: Optional[int] = typer.Option(None, "--trial", help="Export this trial (default: the best validated)."),
    storage: Optional[str] = typer.Option(None, "--storage", help=STORAGE_HELP),
    allow_no_gain: bool = typer.Option(False, "--allow-no-gain", help="Export a validated trial whose interval "
                                                                     "against the defaults reaches 0 (its "
                                                                     "provenance says so)."),
) -> None:
    """Write the best validated coefficients (or a given trial's) with their provenance; a
    validated trial with no gain over the defaults shown only with --allow-no-gain."""
    from ocean.bots.coefficients import save_params
    from tuning.results.export import FORMATS, check_gain, choose_trial, provenance, render
    from tuning.storage.database import resolve_url
    from tuning.storage.handle import open_study

    if fmt not in FORMATS:
        fail(f"unknown --format {fmt!r}; choose one of: {', '.join(FORMATS)}")
    handle = open_study(name, resolve_url(name, option=storage))
    try:
        number, values, validation = choose_trial(handle, trial)
        check_gain(handle, number, validation, allow_no_gain=allow_no_gain, asked=trial is not None)
        prov = provenance(handle, number, validation, allowed_no_gain=allow_no_gain)
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
        fail(f"cannot write {out}: {exc.strerror}")
    typer.echo(f"{point_name(number)} of {name} written to {out}", err=True)
    typer.echo(f"next: {_export_next(out, fmt, program, policy)}", err=True)


def _export_next(out: Path, fmt: str, program: bool, policy: str) -> str:
    """What to do with an exported file: play it, or put it into the program it came from."""
    if fmt == "toml" and not program:
        return (f"play it as a CodinGame program: ocean bot --params {out}; or against its defaults: "
                f"ocean arena --bots params:{out},{policy} --games 100")
    if fmt == "cpp":
        return f"#include \"{out.name}\" in your bot's source and rebuild it"
    if program and fmt in ("args", "env"):
        return f"start your program with the {'arguments' if fmt == 'args' else 'environment'} in {out}"
    return f"read the values from {out} into your bot"


@user_errors
def report(
    name: str = typer.Argument(..., help="Study name (or a test's, or a learning run's)."),
    out: Path = typer.Option(Path("report.html"), "--out", help="The HTML page (figures inside it); "
                                                                  "their PNG files go in a folder beside it "
                                                                  "(report_figures/history.png, ...)."),
    storage: Optional[str] = typer.Option(None, "--storage", help=STORAGE_HELP),
) -> None:
    """Write a self-contained HTML report of a study (history, importances, slices, per-opponent
    scores, per-game statistics, pruning, speed) and its figures as PNG files; of a test (tune
    test) or a learning run (tune learn, its learning curve) under that name likewise."""
    import os

    from tuning.storage.database import resolve_url
    from tuning.storage.handle import open_study
    from rich.console import Console

    from tuning.results.report import write_report

    if out.suffix.lower() not in (".html", ".htm"):
        fail(f"--out must name an .html file, got {str(out)!r}")
    if not out.parent.is_dir():
        fail(f"cannot write {out}: folder {str(out.parent)!r} does not exist")
    # Checked before anything is drawn, so a bad --out leaves no PNG files behind.
    if out.is_dir():
        fail(f"cannot write {out}: it is a folder")
    if not os.access(out.parent, os.W_OK) or (out.exists() and not os.access(out, os.W_OK)):
        fail(f"cannot write {out}: permission denied")
    from tuning.cli.test import write_report as write_test_report

    if write_test_report(name, storage, out):  # NAME is a test (tune test)
        return
    from tuning.cli.learn import write_report as write_learn_report

    if write_learn_report(name, storage, out):  # NAME is a learning run (tune learn)
        return
    handle = open_study(name, resolve_url(name, option=storage))
    with Console(stderr=True).status(f"reading {name} and drawing its figures"):
        written = write_page(out, lambda: write_report(handle, out), handle.close)
    typer.echo(figures_line(out, written["pngs"]))


@user_errors
def dashboard(
    name: Optional[str] = typer.Argument(None, help="Study name (its default storage), or give --storage."),
    storage: Optional[str] = typer.Option(None, "--storage", help=STORAGE_HELP),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to serve on (0.0.0.0 exposes it to the network)."),
    port: int = typer.Option(8080, "--port", help="Port to serve on."),
) -> None:
    """Serve optuna-dashboard on the study database."""
    import os

    import optuna_dashboard

    from tuning.storage.database import ENV_STORAGE, open_storage, resolve_url

    if name is None and not (storage or os.environ.get(ENV_STORAGE)):
        fail("give a study name or --storage URL")
    url = resolve_url(name, option=storage) if name else (storage or os.environ[ENV_STORAGE])
    store = open_storage(url, must_exist=True)
    typer.echo(f"optuna-dashboard for {store.masked} on http://{host}:{port}/", err=True)
    optuna_dashboard.run_server(store.optuna, host=host, port=port)


COMMANDS = (launch, resume, status, validate, export, report, dashboard)
