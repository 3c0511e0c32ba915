"""``tune plan``: the statistical power of a study's budget, from a pilot or its stored games, and
what the pilot saw of the programs it played."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tuning.cli.bars import counting_bar
from tuning.cli.common import RAY_HELP, STORAGE_HELP, fail, json_text, user_errors

NEAR_LIMIT = 0.8  # a longest answer past this share of its limit is warned about

__all__ = ["plan", "COMMANDS"]


@user_errors
def plan(
    study: str = typer.Argument(..., metavar="STUDY", help="A study file (TOML: a pilot is played) or a stored "
                                                          "study's name (its games are read)."),
    hours: Optional[float] = typer.Option(None, "--hours", help="Recommend trials and games per trial for this "
                                                               "wall time."),
    gain: float = typer.Option(0.05, "--gain", help="With --hours: the gain (score) each trial should detect."),
    pilot_pairs: int = typer.Option(8, "--pilot-pairs", help="Maps per opponent the pilot plays (both sides "
                                                            "each; its extra games half as many); a study file, "
                                                            "or a stored study with --validate-turn-ms."),
    validate_turn_ms: Optional[int] = typer.Option(None, "--validate-turn-ms", help="The time per turn, ms, "
                                                   "validation will tell programs (tune validate --turn-ms; "
                                                   "default: the study's time control); a few pilot games are "
                                                   "played at it."),
    validate_first_turn_ms: Optional[int] = typer.Option(None, "--validate-first-turn-ms", help="And its time for "
                                                         "the first turn, ms (default: the study's)."),
    validate_time_scale: Optional[float] = typer.Option(None, "--validate-time-scale", help="And its limits' scale "
                                                        "(default: the study's timeout_scale)."),
    storage: Optional[str] = typer.Option(None, "--storage", help=STORAGE_HELP),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help=RAY_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object as the last line."),
) -> None:
    """Before spending the budget: games/s, the per-pair SD of the score, the smallest gain the
    study can detect (95%, power 80%) per trial and in validation, games and time to detect
    +0.02/+0.05/+0.10; each program's answer times, start-up and disqualifications, and what a
    game costs; with --hours, how many trials of how many games."""
    from tuning.results.plan import from_stored, plan as make_plan

    if hours is not None and not hours > 0:
        fail(f"--hours must be above 0, got {hours}")
    if not 0 < gain < 1:
        fail(f"--gain is a score difference between 0 and 1 (e.g. 0.05), got {gain}")
    if pilot_pairs < 2:
        fail(f"--pilot-pairs must be at least 2 (a spread needs two maps), got {pilot_pairs}")
    validation = (validate_turn_ms, validate_first_turn_ms, validate_time_scale)
    path = Path(study)
    if path.suffix.lower() == ".toml" or path.is_file():
        from tuning.study.opponents import study_opponents
        from tuning.study.spec import load_spec

        spec = load_spec(path)
        val_time = _validation_time(spec.time_control, *validation)
        panel, held_out = study_opponents(spec)
        names = {b.name for b in panel}
        extra = [b for b in held_out or [] if b.name not in names]
        measured, more = _pilots(spec, panel, extra, held_out, pilot_pairs, ray_address, val_time)
        opponents, checked = len(panel), len(panel) + len(extra)
        with_programs = spec.bot is not None or any(b.is_program for b in [*panel, *extra])
    else:
        from tuning.storage.database import resolve_url
        from tuning.storage.handle import open_study

        handle = open_study(study, resolve_url(study, option=storage))
        try:
            spec, opponents = handle.spec, len(handle.panel)
            val_time = _validation_time(spec.time_control, *validation)
            everyone, programs = handle.validation_panel(), handle.checked_bots
            checked = len(everyone)
            measured = from_stored(handle)
            with_programs = spec.bot is not None or bool(programs)
        finally:
            handle.close()
        more = [] if val_time == spec.time_control else \
            _validation_pilots(spec, everyone, programs, pilot_pairs, ray_address, val_time)
    result = make_plan(spec, measured, opponents, checked, hours=hours, gain=gain, more=more,
                       validation_time=val_time)
    if with_programs:  # what its programs can reach on this machine (ocean.sandbox)
        from ocean.sandbox import status_line, unavailable_reason

        result["sandbox"] = {"available": unavailable_reason() is None, "line": status_line(),
                             **spec.sandbox.model_dump(mode="json")}
    _print(result)
    if as_json:
        typer.echo(json_text(result))
    if result["refusal"]:
        fail(result["refusal"])


def _percent(p) -> str:
    return "?" if p is None else f"{100 * p:.0f}% of the time"


def _validation_time(study, turn_ms: Optional[int], first_turn_ms: Optional[int], scale: Optional[float]):
    """The study's time control with the --validate-* options in its place; one line if one is wrong."""
    from ocean.timecontrol import TimeControl

    try:
        return TimeControl(study.turn_ms if turn_ms is None else turn_ms,
                           study.first_turn_ms if first_turn_ms is None else first_turn_ms,
                           study.scale if scale is None else scale, study.machine).run_as(study.sandbox)
    except ValueError as exc:
        fail(f"{exc} (--validate-turn-ms, --validate-first-turn-ms, --validate-time-scale)")


def _few(pairs: int) -> int:
    """Maps per opponent of the pilot's extra games (held-out opponents, the validation's time
    control, the bot against itself): their cost and their programs' figures, not a spread."""
    return max(2, pairs // 2)


def _pilots(spec, panel, extra, held_out, pairs: int, ray_address: Optional[str], val_time):
    """(the defaults against the panel, the other pilots): at the study's time control and the
    validation's, against the held-out opponents and against itself, as the study and its
    validation will play."""
    from tuning.driver.cluster import connect
    from tuning.driver.programs import check_programs
    from tuning.study.opponents import checked_bots

    workers = connect(ray_address or spec.ray_address)
    programs = checked_bots(spec, panel, held_out)
    study_time = spec.time_control
    check_programs(programs, study_time)  # as launch: frozen bots too
    if val_time != study_time:
        check_programs(programs, val_time)  # as validate at its time control
    few = _few(pairs)
    if spec.sampler.head_to_head:  # a trial: the bot against itself; the panel is validation's
        runs = [("itself", study_time, None, pairs), ("panel", val_time, panel, pairs),
                ("panel", val_time, extra, few)]
        if val_time != study_time:
            runs.append(("itself", val_time, None, few))
    else:
        runs = [("panel", study_time, panel, pairs),
                ("panel", val_time, (panel if val_time != study_time else []) + extra, few),
                ("itself", val_time, None, few)]
    measures = [_run(spec, kind, time, against, n, workers) for kind, time, against, n in runs
                if against is None or against]
    first = 1 if spec.sampler.head_to_head else 0  # ``measured``: the defaults against the panel
    return measures[first], measures[:first] + measures[first + 1:]


def _validation_pilots(spec, everyone, programs, pairs: int, ray_address: Optional[str], val_time) -> list:
    """A stored study validated at another time control: a few games against each validation
    opponent and against itself at it."""
    from tuning.driver.cluster import connect
    from tuning.driver.programs import check_programs

    workers = connect(ray_address or spec.ray_address)
    check_programs(programs, val_time)
    few = _few(pairs)
    return [_run(spec, "panel", val_time, everyone, few, workers), _run(spec, "itself", val_time, None, few, workers)]


def _run(spec, kind: str, time, against, pairs: int, workers: int):
    from tuning.driver.cluster import cluster_cpus
    from tuning.driver.pool import BatchPool
    from tuning.results.plan import pilot, pilot_itself
    from tuning.study.opponents import study_bot

    pool = BatchPool(cluster_cpus() + 1, bot=study_bot(spec), time_control=time)
    what = "the bot against itself" if kind == "itself" else "the defaults"
    bars, progress = counting_bar(f"{spec.name} pilot games ({what}, {time.turn_ms} ms a turn)")
    with bars:
        if kind == "itself":
            return pilot_itself(spec, pairs, workers, pool, progress=progress, time=time)
        return pilot(spec, against, pairs, workers, pool, progress=progress, time=time)


def _seconds(s) -> str:
    if s is None:
        return "-"
    return f"{s:.0f} s" if s < 120 else (f"{s / 60:.1f} min" if s < 7200 else f"{s / 3600:.1f} h")


def _between(span) -> str:
    """' (between a and b at this load)' of a predicted time's range; '' when unknown."""
    if not span:
        return ""
    high = "more (the rate could be near 0)" if span[1] is None else _seconds(span[1])
    return f" (between {_seconds(span[0])} and {high} at this load)"


def _ms(x) -> str:
    return "-" if x is None else (f"{x:.1f} ms" if x < 100 else f"{x:.0f} ms")


def _program_line(p: dict) -> str:
    limits = p.get("limits_ms")
    held = "" if limits is None else f"; held to {limits['turn_ms']} and {limits['first_turn_ms']} ms"
    told = "" if p["told"] is None else \
        f" (told {p['told']['turn_ms']} ms a turn, {p['told']['first_turn_ms']} ms the first{held})"
    name = {"tuned": "the tuned bot", "itself": "its copy, the opponent"}.get(p["role"]) or \
        "opponent " + (p["name"] if len(p["name"]) <= 48 else p["name"][:45] + "...")
    parts = []
    a, f = p["answer_ms"], p["first_answer_ms"]
    if a is not None:
        parts.append(f"answers in {_ms(a['mean'])} on average (a game's longest: {_ms(a['p90'])} in 90% of games, "
                     f"{_ms(a['max'])} at most)")
    if f is not None:
        parts.append(f"first answer {_ms(f['mean'])} on average, {_ms(f['max'])} at most")
    near = _near_limits(a, f, limits)
    if near:
        parts.append(near)
    if p["games"]:
        rate = p["disqualified"] / p["games"]
        why = "" if not p["disqualified"] else ": " + (
            ", ".join(f"{r} ({n})" for r, n in p["reasons"].items()) if p["reasons"] else f"first: {p['first_reason']}")
        parts.append(f"disqualified in {p['disqualified']} of {p['games']} games ({rate:.0%}){why}")
    return f"    {name}{told}: " + "; ".join(parts)


def _near_limits(later: dict | None, first: dict | None, limits: dict | None) -> str:
    """A warning when a program's longest answer came within ``NEAR_LIMIT`` of the limit it is
    held to: on a busier moment (or CodinGame's machine) the same answer is a loss."""
    if limits is None:
        return ""
    close = [f"{what} {_ms(figures['max'])} of its {limit} ms" for what, figures, limit in
             (("its longest answer", later, limits["turn_ms"]), ("its longest first answer", first, limits["first_turn_ms"]))
             if figures is not None and figures["max"] is not None and figures["max"] >= NEAR_LIMIT * limit]
    return "" if not close else "NEAR ITS LIMIT: " + ", ".join(close) + \
        " (give it more time: [time] machine_scale, docs/programs.md)"


def _print_pilot(m: dict, first: bool) -> None:
    tc = m["time_control"]
    what = "the bot against itself" if m["kind"] == "itself" else "the defaults against " + \
        ("the panel" if first else "the validation's opponents")
    at = "" if tc is None else f" at {tc['turn_ms']} ms a turn"
    head = f"  {m['source']}{at} ({what}, {m['games']} games)"
    if m["seconds_per_game"] is not None:
        head += f": a game costs {m['seconds_per_game']:.2f} s of a CPU"
        if m["start_up_seconds"] is not None:
            head += f", start-up (first answers) {m['start_up_seconds']:.2f} s"
        if m["tuned_answers_seconds"] is not None:
            head += f", the tuned bot's later answers {m['tuned_answers_seconds']:.2f} s"
    typer.echo(head)
    for p in m["programs"]:
        typer.echo(_program_line(p))


def _print(p: dict) -> None:
    rate = "-" if p["games_per_s"] is None else f"{p['games_per_s']:.2f}"
    if p["games_per_s"] is not None and p.get("games_per_s_half_width") is not None:
        rate += f" (+-{p['games_per_s_half_width']:.0%} from its batches' spread, at this load)"
    tc = p["time_control"]
    if p["scoring"] == "head-to-head":
        how = "measured" if p["diff_sd_measured"] else "assumed: no spread seen, two independent games a pair"
        typer.echo(f"{p['study']}: {p['source']}, {p['games_measured']} games of the bot against itself at "
                   f"{tc['turn_ms']} ms a turn: {rate} games/s; head-to-head pair SD {p['diff_sd']} ({how})")
    else:
        how = "measured on the trials' paired maps" if p["diff_sd_measured"] else \
            "assumed: sqrt(2) x the pair SD (common maps usually make it smaller)"
        typer.echo(f"{p['study']}: {p['source']}, {p['games_measured']} games at {tc['turn_ms']} ms a turn: "
                   f"{rate} games/s; pair SD {p['pair_sd']}; paired difference SD {p['diff_sd']} ({how})")
    if p["defaults_score"] is not None and not 0.1 <= p["defaults_score"] <= 0.9:
        typer.echo(f"  the defaults score {p['defaults_score']:.3f} against this panel: little room for a gain "
                   "either way; a stronger (or weaker) panel measures more")
    if p.get("sandbox"):
        typer.echo(f"  {p['sandbox']['line']}; memory limit {p['sandbox']['memory_mb']} MB")
    for i, m in enumerate(p["pilots"]):
        if m["programs"] or m["seconds_per_game"] is not None:
            _print_pilot(m, i == 0)
    for words in p["warnings"]:
        typer.echo(f"  warning: {words}")
    t, v = p["per_trial"], p["validation"]
    what = "head-to-head score against 1/2, " if p["scoring"] == "head-to-head" else ""
    typer.echo(f"  per trial ({t['games']} games, {_seconds(t['seconds'])}): {what}interval "
               f"+-{t['interval_half_width']:.3f}, detects a gain of {t['detectable_gain']:.3f} (95%, power 80%)")
    h, vt = v["head_to_head"], v["time_control"]
    held = f" and {v['held_out_opponents']} held out" if v["held_out_opponents"] else ""
    cost = {"pilot": "game costs from the pilot", "training rate": "at the training games' rate"}.get(v["cost_from"],
                                                                                                 "no rate measured")
    typer.echo(f"  validation at {vt['turn_ms']} ms a turn ({v['games_per_candidate']} games a candidate against "
               f"{v['opponents'] - v['held_out_opponents']} training opponents{held}, {v['panel_games']} in all, "
               f"and {h['games']} head to head; {_seconds(v['seconds'])}, {cost}): training panel interval "
               f"+-{v['interval_half_width']:.3f}, detects {v['detectable_gain']:.3f}; head to head "
               f"+-{h['interval_half_width']:.3f}, detects {h['detectable_gain']:.3f}")
    sprt, nw = h["sprt"], v["not_worse"]
    typer.echo(f"  head to head by SPRT [{sprt['elo0']:g}, {sprt['elo1']:g}] Elo: about {sprt['expected_games_h0']} "
               f"games under H0 ({_seconds(v['seconds'])} for the whole validation), {sprt['expected_games_h1']} "
               f"under H1 ({_seconds(v['seconds_h1'])}), at most {sprt['max_games']}; not worse by "
               f"{nw['margin_elo']:g} Elo: an equal set passes the training panel's test "
               f"{_percent(nw['training_panel_power'])}" + ("" if nw["held_out_power"] is None else
                                                            f", the held-out one {_percent(nw['held_out_power'])}"))
    b = p["study_budget"]
    typer.echo(f"  the whole study ({b['trials']} trials and validation): {b['games']} games, {_seconds(b['seconds'])}"
               f"{_between(b.get('seconds_range'))}")
    for key, games in p["games_for_gain"].items():
        typer.echo(f"  to detect +{float(key):.2f}: {games} games a candidate ({_seconds(p['seconds_for_gain'][key])})")
    r = p["recommendation"]
    if r is not None:
        typer.echo(f"  in {r['hours']:g} h ({r['games']} games): n_trials = {r['n_trials']}, games_per_opponent = "
                   f"{r['games_per_opponent']} (each trial detects {r['detectable_gain_per_trial']:.3f}; "
                   f"aimed at {r['gain']:g})" + ("; the seed bank caps the games: widen it" if r["seed_bank_limits"]
                                                 and r["limited_by"] != "seed bank" else "")
                   + f"; {_seconds(r['seconds'])}{_between(r['seconds_range'])}")
        if r["limit_reason"]:
            typer.echo(f"  {r['limit_reason']}")


COMMANDS = (plan,)
