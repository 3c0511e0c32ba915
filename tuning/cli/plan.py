"""``tune plan``: the statistical power of a study's budget, from a pilot or its stored games."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tuning.cli.bars import counting_bar
from tuning.cli.common import RAY_HELP, STORAGE_HELP, fail, json_text, user_errors

__all__ = ["plan", "COMMANDS"]


@user_errors
def plan(
    study: str = typer.Argument(..., metavar="STUDY", help="A study file (TOML: a pilot is played) or a stored "
                                                          "study's name (its games are read)."),
    hours: Optional[float] = typer.Option(None, "--hours", help="Recommend trials and games per trial for this "
                                                               "wall time."),
    gain: float = typer.Option(0.05, "--gain", help="With --hours: the gain (score) each trial should detect."),
    pilot_pairs: int = typer.Option(8, "--pilot-pairs", help="Maps per opponent the pilot plays (both sides "
                                                            "each); a study file only."),
    storage: Optional[str] = typer.Option(None, "--storage", help=STORAGE_HELP),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help=RAY_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object as the last line."),
) -> None:
    """Before spending the budget: games/s, the per-pair SD of the score, the smallest gain the
    study can detect (95%, power 80%) per trial and in validation, games and time to detect
    +0.02/+0.05/+0.10; with --hours, how many trials of how many games."""
    from tuning.results.plan import from_stored, plan as make_plan

    if hours is not None and not hours > 0:
        fail(f"--hours must be above 0, got {hours}")
    if not 0 < gain < 1:
        fail(f"--gain is a score difference between 0 and 1 (e.g. 0.05), got {gain}")
    if pilot_pairs < 2:
        fail(f"--pilot-pairs must be at least 2 (a spread needs two maps), got {pilot_pairs}")
    path = Path(study)
    if path.suffix.lower() == ".toml" or path.is_file():
        spec, measured, opponents, checked = _pilot(path, pilot_pairs, ray_address)
    else:
        from tuning.storage.database import resolve_url
        from tuning.storage.handle import open_study

        handle = open_study(study, resolve_url(study, option=storage))
        try:
            spec, opponents = handle.spec, len(handle.panel)
            checked = len(handle.validation_panel())
            measured = from_stored(handle)
        finally:
            handle.close()
    result = make_plan(spec, measured, opponents, checked, hours=hours, gain=gain)
    _print(result)
    if as_json:
        typer.echo(json_text(result))


def _pilot(path: Path, pairs: int, ray_address: Optional[str]):
    from tuning.driver.cluster import cluster_cpus, connect
    from tuning.driver.pool import BatchPool
    from tuning.driver.programs import check_programs
    from tuning.results.plan import pilot
    from tuning.study.opponents import checked_bots, study_opponents, study_bot
    from tuning.study.spec import load_spec

    spec = load_spec(path)
    panel, held_out = study_opponents(spec)
    checked = len(panel) + len([b for b in held_out or [] if b.name not in {p.name for p in panel}])
    workers = connect(ray_address or spec.ray_address)
    check_programs(checked_bots(spec, panel, held_out), spec.time_control)  # as launch: frozen bots too
    pool = BatchPool(cluster_cpus() + 1, bot=study_bot(spec), time_control=spec.time_control)
    bars, progress = counting_bar(f"{spec.name} pilot games (the defaults)")
    with bars:
        measured = pilot(spec, panel, pairs, workers, pool, progress=progress)
    return spec, measured, len(panel), checked


def _seconds(s) -> str:
    if s is None:
        return "-"
    return f"{s:.0f} s" if s < 120 else (f"{s / 60:.1f} min" if s < 7200 else f"{s / 3600:.1f} h")


def _print(p: dict) -> None:
    rate = "-" if p["games_per_s"] is None else f"{p['games_per_s']:.2f}"
    how = "measured on the trials' paired maps" if p["diff_sd_measured"] else \
        "assumed: sqrt(2) x the pair SD (common maps usually make it smaller)"
    tc = p["time_control"]
    typer.echo(f"{p['study']}: {p['source']}, {p['games_measured']} games at {tc['turn_ms']} ms a turn: "
               f"{rate} games/s; pair SD {p['pair_sd']}; paired difference SD {p['diff_sd']} ({how})")
    if p["defaults_score"] is not None and not 0.1 <= p["defaults_score"] <= 0.9:
        typer.echo(f"  the defaults score {p['defaults_score']:.3f} against this panel: little room for a gain "
                   "either way; a stronger (or weaker) panel measures more")
    t, v = p["per_trial"], p["validation"]
    typer.echo(f"  per trial ({t['games']} games, {_seconds(t['seconds'])}): interval +-{t['interval_half_width']:.3f}, "
               f"detects a gain of {t['detectable_gain']:.3f} (95%, power 80%)")
    typer.echo(f"  validation ({v['games_per_candidate']} games a candidate, {v['games']} in all, "
               f"{_seconds(v['seconds'])}): interval +-{v['interval_half_width']:.3f}, detects {v['detectable_gain']:.3f}")
    b = p["study_budget"]
    typer.echo(f"  the whole study ({b['trials']} trials and validation): {b['games']} games, {_seconds(b['seconds'])}")
    for key, games in p["games_for_gain"].items():
        typer.echo(f"  to detect +{float(key):.2f}: {games} games a candidate ({_seconds(p['seconds_for_gain'][key])})")
    r = p["recommendation"]
    if r is not None:
        typer.echo(f"  in {r['hours']:g} h ({r['games']} games): n_trials = {r['n_trials']}, games_per_opponent = "
                   f"{r['games_per_opponent']} (each trial detects {r['detectable_gain_per_trial']:.3f}; "
                   f"aimed at {r['gain']:g})" + ("; the seed bank caps the games: widen it" if r["seed_bank_limits"]
                                                 else ""))


COMMANDS = (plan,)
