"""``ocean``: the engine's command line (maps, referee, in-process games, benchmark)."""
from __future__ import annotations

import json
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Optional

import typer

from ocean.bots import registry

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Ocean of Code: the exact engine, a referee for programs, in-process games, benchmarks.")

_SEED_HELP = "Map seed: a signed 64-bit integer, as the referee's java.util.Random takes it."


def _fail(message: str) -> None:
    """One clear line on stderr and exit code 2: a user mistake, never a traceback."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _check_seed(seed: int) -> int:
    from ocean.maps import validate_seed

    try:
        return validate_seed(seed)
    except ValueError as exc:
        _fail(str(exc))


@app.command("map")
def map_command(
    seed: int = typer.Option(..., "--seed", help=_SEED_HELP),
    count: Optional[int] = typer.Option(None, "--count", help="Print N lines '<seed> <225 chars>' for seeds S..S+N-1."),
) -> None:
    """Print the referee's map for a seed ('x' island, '.' water)."""
    from ocean.maps import generate_map, map_rows

    seed = _check_seed(seed)
    if count is None:
        typer.echo("\n".join(map_rows(generate_map(seed))))
        return
    if count < 1:
        _fail(f"--count must be at least 1, got {count}")
    _check_seed(seed + count - 1)
    out = sys.stdout
    for s in range(seed, seed + count):
        out.write(f"{s} {''.join(map_rows(generate_map(s)))}\n")


def _write_replay(path: Optional[Path], data: dict) -> None:
    if path is None:
        return
    try:
        path.write_text(json.dumps(data, separators=(",", ":")))
    except OSError as exc:
        _fail(f"cannot write the replay to {path}: {exc.strerror}")


def _print_verdict(verdict: dict, as_json: bool) -> None:
    if as_json:
        return typer.echo(json.dumps(verdict))
    winner = verdict["winner"]
    outcome = "draw" if winner == -1 else f"player {winner} wins"
    typer.echo(f"{outcome}: scores {verdict['scores'][0]}-{verdict['scores'][1]}, "
               f"{verdict['reason']} after {verdict['turns']} turns")
    for p, why in enumerate(verdict["disqualified"]):
        if why:
            lost = (verdict.get("failed") or (None, None))[p]  # which answer, after how long
            typer.echo(f"player {p} disqualified: {why}" + (f" (answer {lost['answer']}, after {lost['after_ms']} ms)" if lost else ""))
    for p, times in enumerate(verdict.get("answer_ms") or ()):
        if times:
            rest = "" if times["max"] is None else f", then longest {times['max']} ms, mean {times['mean']} ms"
            typer.echo(f"player {p} answered in {times['first']} ms first{rest}")


def _old_timeouts(ctx, timeout, first_timeout, turn_ms, first_turn_ms) -> tuple[int, int, float]:
    """``ocean referee``'s hidden, deprecated ``--timeout``/``--first-timeout`` (limits) as the new
    options (``ocean.timecontrol.from_old_limits``), with a line of warning each; not mixed with them."""
    from ocean.timecontrol import from_old_limits

    mixed = [f"--{p.replace('_', '-')}" for p in ("turn_ms", "first_turn_ms", "time_scale")
             if ctx.get_parameter_source(p).name == "COMMANDLINE"]
    if mixed:
        _fail(f"--timeout and --first-timeout (old, deprecated) cannot be mixed with {', '.join(mixed)}: give "
              "--turn-ms, --first-turn-ms and --time-scale only")
    try:
        turn_ms, first_turn_ms, time_scale, warnings = from_old_limits(timeout, first_timeout, turn_ms, first_turn_ms)
    except ValueError as exc:
        _fail(str(exc))
    for line in warnings:
        typer.echo(f"warning: {line}", err=True)
    return turn_ms, first_turn_ms, time_scale


def _time_control(turn_ms: int, first_turn_ms: int, time_scale: float):
    """The time control of --turn-ms, --first-turn-ms and --time-scale, or one line saying why not."""
    import math

    from ocean.constants import MAX_TIME_SCALE
    from ocean.timecontrol import TimeControl

    for flag, value in (("--turn-ms", turn_ms), ("--first-turn-ms", first_turn_ms)):
        if value < 1:
            _fail(f"{flag} is a whole number of milliseconds, at least 1, got {value}")
    if not (math.isfinite(time_scale) and 0 < time_scale <= MAX_TIME_SCALE):
        _fail(f"--time-scale must be above 0 and at most {MAX_TIME_SCALE:g}, got {time_scale:g}")
    return TimeControl(turn_ms, first_turn_ms, time_scale)


_TURN_MS_HELP = "Milliseconds a program is told it has per answer ({turn_ms}); CodinGame's: 50."
_FIRST_TURN_MS_HELP = "Milliseconds a program is told it has for its first answer ({first_turn_ms}); CodinGame's: 1000."
_TIME_SCALE_HELP = ("The limits enforced are the times told x this (a slower or loaded machine than "
                    "CodinGame's); at most 100.")


@app.command()
def referee(
    ctx: typer.Context,
    seed: int = typer.Option(..., "--seed", help=_SEED_HELP),
    p0: str = typer.Option(..., "--p0", help="Command of player 0 (split like a shell would, run without one; {game_seed}, {turn_ms} and {first_turn_ms} are filled in)."),
    p1: str = typer.Option(..., "--p1", help="Command of player 1."),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as one JSON object on the last line."),
    replay: Optional[Path] = typer.Option(None, "--replay", help="Write the whole game as JSON to this file."),
    turn_ms: int = typer.Option(50, "--turn-ms", help=_TURN_MS_HELP),
    first_turn_ms: int = typer.Option(1000, "--first-turn-ms", help=_FIRST_TURN_MS_HELP),
    time_scale: float = typer.Option(1.0, "--time-scale", help=_TIME_SCALE_HELP),
    old_first_timeout: Optional[int] = typer.Option(None, "--first-timeout", hidden=True),
    old_timeout: Optional[int] = typer.Option(None, "--timeout", hidden=True),
) -> None:
    """Play two CodinGame programs against each other with the exact rules."""
    from ocean.bots.external import RESERVED, ProgramSpec
    from ocean.referee import referee_game

    seed = _check_seed(seed)
    if old_first_timeout is not None or old_timeout is not None:
        turn_ms, first_turn_ms, time_scale = _old_timeouts(ctx, old_timeout, old_first_timeout, turn_ms,
                                                           first_turn_ms)
    time_control = _time_control(turn_ms, first_turn_ms, time_scale)
    for name, command in (("--p0", p0), ("--p1", p1)):
        try:
            if not shlex.split(command):
                _fail(f"{name} is empty; give the command that runs the program")
        except ValueError as exc:
            _fail(f"{name} cannot be split into words ({exc}); check its quotes")
        try:
            unknown = ProgramSpec(command).placeholders() - set(RESERVED)
        except ValueError as exc:
            _fail(f"{name}: {exc}")
        if unknown:
            _fail(f"{name}: no value for {', '.join('{' + n + '}' for n in sorted(unknown))}; the referee fills in "
                  "{game_seed}, {turn_ms} and {first_turn_ms} (write {{ and }} for literal braces)")
        if _runs_ocean_bot(command) and time_control.first_limit_ms < 10000:  # longer: the user allows a compile
            from ocean.warmup import program_is_compiled

            kind = _ocean_bot_kind(command)
            if not program_is_compiled(kind):
                # It would compile inside its first answer's time and lose on a timeout the
                # user did not cause: refuse the game instead of scoring it.
                _fail(f"{name} runs `ocean bot`, which is not compiled for this version yet and would time out "
                      f"on its first answer: run `{_warmup_command(kind)}` once (about a minute), then play")
    try:
        verdict, data = referee_game(seed, (p0, p1), time=time_control)
    except (FileNotFoundError, PermissionError, ValueError) as exc:
        _fail(str(exc))
    _write_replay(replay, data)
    _print_verdict({**verdict, "answer_ms": data["answer_ms"], "failed": data["failed"]}, as_json)


@app.command()
def play(
    seed: int = typer.Option(..., "--seed", help=_SEED_HELP),
    p0: str = typer.Option("random", "--p0", help="In-process bot of player 0: random, chaser, tunable, a panel bot (hunter-v1, ...) or params:FILE."),
    p1: str = typer.Option("chaser", "--p1", help="In-process bot of player 1 (same choices)."),
    game_seed: Optional[int] = typer.Option(None, "--game-seed", help="Seed of the bots' randomness (default: the map seed)."),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as one JSON object on the last line."),
    replay: Optional[Path] = typer.Option(None, "--replay", help="Write the whole game as JSON to this file."),
) -> None:
    """Play a game between two in-process bots."""
    from ocean.bots import bot_kind
    from ocean.play import play_with_replay

    seed = _check_seed(seed)
    if game_seed is not None:
        _check_seed(game_seed)
    for name in (p0, p1):
        try:
            bot_kind(name)
        except ValueError as exc:
            _fail(str(exc))
    verdict, data = play_with_replay(seed, (p0, p1), game_seed)
    _write_replay(replay, data)
    _print_verdict(verdict, as_json)


def _runs_ocean_bot(command: str) -> bool:
    """Whether a player command starts this package's ``ocean bot`` (``ocean bot``, a path to
    the ``ocean`` script, or ``python -m ocean bot``)."""
    words = shlex.split(command)
    for i, word in enumerate(words[:-1]):
        if (os.path.basename(word) == "ocean" or (word == "-m" and words[i + 1] == "ocean")) and "bot" in words[i + 1:i + 3]:
            return True
    return False


def _ocean_bot_kind(command: str) -> int | None:
    """The compiled policy an ``ocean bot`` command plays (from its --name or --params), or
    None if that cannot be told (the command's own error will say why)."""
    words = shlex.split(command)
    chosen = {}
    for i, word in enumerate(words[:-1]):
        if word in ("--name", "--params"):
            chosen[word] = words[i + 1]
    for word in words:
        for option in ("--name", "--params"):
            if word.startswith(option + "="):
                chosen[option] = word[len(option) + 1:]
    try:
        from ocean.bots import resolve_bot

        name = f"params:{chosen['--params']}" if "--params" in chosen else chosen.get("--name", "tunable")
        spec = resolve_bot(name)
        return None if spec.is_program else spec.kind
    except ValueError:
        return None


def _warmup_command(kind: int | None) -> str:
    """The warmup that compiles bot ``kind``: a policy compiled on first use needs ``--all``."""
    return "ocean warmup --all" if kind is not None and not registry.policy_of_kind(kind).warmup else "ocean warmup"


def _bot_spec(params: Optional[Path], name: Optional[str]):
    from ocean.bots import resolve_bot

    if params is not None and name is not None:
        _fail("give --params or --name, not both")
    try:
        return resolve_bot(f"params:{params}" if params is not None else (name or "tunable"))
    except ValueError as exc:
        _fail(str(exc))


@app.command()
def bot(
    params: Optional[Path] = typer.Option(None, "--params", help="Coefficient file (TOML with a [coefficients] table, e.g. from `tune export`)."),
    name: Optional[str] = typer.Option(None, "--name", help=f"A panel bot (hunter-v1, ...) or policy ({', '.join(registry.POLICIES)})."),
    seed: int = typer.Option(0, "--seed", help="Seed of the bot's randomness (start cell, ties)."),
    no_aot: bool = typer.Option(False, "--no-aot", hidden=True, help="Load the kernels through Numba even if `ocean warmup` compiled the bot ahead of time (the path of before: for `ocean bench --first-answer` and the tests)."),
    turn_ms: Optional[int] = typer.Option(None, "--turn-ms", help="Milliseconds per answer: a searching bot (tunable-v4) stops its search at half of it, whatever its iteration budget; pass {turn_ms} under `ocean referee` or a study. Default: the budget alone."),
) -> None:
    """Run a bot as a CodinGame program: map and turns on stdin, answers on stdout (for `ocean referee`,
    cg-brutaltester or CodinGame itself). Default: the tunable bot with its default coefficients. After
    `ocean warmup` its first answer takes about a tenth of a second (compiled ahead of time, no Numba)."""
    if "numba" not in sys.modules:  # Numba probes SciPy's BLAS on import: 0.25 s of a first answer, for nothing
        sys.modules["scipy"] = None
    from ocean.program import run_program
    from ocean.warmup import program_is_compiled

    spec = _bot_spec(params, name)
    if spec.is_program:
        _fail(f"{spec.name} is an external program ({spec.program.command}); run it directly")
    if turn_ms is not None and turn_ms <= 0:  # before the notice below: a mistake is one line
        _fail(f"--turn-ms must be positive, got {turn_ms}")
    if not program_is_compiled(spec.kind):
        typer.echo("ocean bot: compiling the bot first (about a minute, once per installed version); "
                   f"run `{_warmup_command(spec.kind)}` after installing so the first answer is inside 1000 ms",
                   err=True)
    try:
        run_program(spec, seed, aot=False if no_aot else None, turn_ms=turn_ms)
    except (ValueError, IndexError) as exc:
        _fail(f"unexpected input from the referee: {exc}")
    except BrokenPipeError:
        pass


@app.command()
def arena(
    bots: str = typer.Option(..., "--bots", help="Comma-separated bots: panel names (hunter-v1, your programs, ...), random, chaser, tunable, params:FILE, or any command line as cmd:\"CMD\" ({game_seed}, {turn_ms} and {first_turn_ms} are filled in)."),
    games: int = typer.Option(200, "--games", help="Games per matchup (maps x 2: each map is played with sides swapped)."),
    workers: int = typer.Option(1, "--workers", help="Processes playing at once, each on a CPU of its own."),
    seed: int = typer.Option(1, "--seed", help="First map seed; matchups all play seeds seed .. seed + games/2 - 1."),
    as_json: bool = typer.Option(False, "--json", help="Print the matrix and statistics as one JSON object on the last line."),
    turn_ms: int = typer.Option(50, "--turn-ms", help=_TURN_MS_HELP + " Frozen programs keep their own."),
    first_turn_ms: int = typer.Option(1000, "--first-turn-ms", help=_FIRST_TURN_MS_HELP),
    time_scale: float = typer.Option(1.0, "--time-scale", help=_TIME_SCALE_HELP),
    cwd: Optional[Path] = typer.Option(None, "--cwd", help="Working directory of the cmd: bots (default: the current one)."),
    affinity: str = typer.Option("pin", "--affinity", help="pin: each worker holds a CPU of its own and its games run on it; slot: holds one, its games run anywhere (never more games than CPUs); none: neither."),
) -> None:
    """Round robin of paired games: win/draw/loss matrix with 95% intervals and Elo, and per-bot
    statistics (game length, surfaces, torpedo shots and hit rate, mine damage taken,
    silences, ..., disqualifications, a program's answer times, and the duel: first damage,
    direct hits, damage per shot, mine damage dealt and taken, surfaces under fire), overall and
    per matchup. Programs (frozen panel
    programs, cmd: bots) are refereed as in studies."""
    from ocean.arena import run_arena
    from ocean.bots import resolve_bot, split_bot_names

    try:
        names = split_bot_names(bots)
    except ValueError as exc:
        _fail(f"--bots: {exc}")
    if len(names) < 2:
        _fail(f"--bots needs at least two bots separated by commas, got {bots!r}")
    if games < 2:
        _fail(f"--games must be at least 2 (one map, both sides), got {games}")
    if workers < 1:
        _fail(f"--workers must be at least 1, got {workers}")
    if cwd is not None and not cwd.is_dir():
        _fail(f"--cwd {str(cwd)!r} is not a folder")
    if affinity not in ("pin", "slot", "none"):
        _fail(f"--affinity {affinity!r}: choose one of pin, slot, none")
    time_control = _time_control(turn_ms, first_turn_ms, time_scale)
    _check_seed(seed)
    _check_seed(seed + (games + 1) // 2 - 1)
    try:
        specs = [resolve_bot(n, cwd=None if cwd is None else str(cwd)) for n in names]
        report = run_arena(specs, (games + 1) // 2, seed=seed, workers=workers, progress=not as_json,
                           time=time_control, affinity=affinity)
    except (ValueError, OSError) as exc:
        _fail(str(exc))
    if as_json:
        typer.echo(json.dumps(report))
        return
    from ocean.arena import arena_lines

    for line in arena_lines(report):
        typer.echo(line)


panel_app = typer.Typer(no_args_is_help=True, help="The frozen opponent bots and panels, and your own.")
app.add_typer(panel_app, name="panel")


@panel_app.command("list")
def panel_list(
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object as the last line."),
) -> None:
    """Every frozen bot (built-in and yours) and every named panel."""
    from ocean.bots.panel import panel_bots, panel_members, panel_names, user_panel_path

    try:
        bots, names = panel_bots(), panel_names()
    except ValueError as exc:
        _fail(str(exc))
    panels = {name: panel_members(name) for name in names}
    if as_json:
        out = {}
        for n, b in bots.items():
            out[n] = {k: b[k] for k in ("policy", "style", "fingerprint", "source")}
            program = b["program"]
            if program is not None:
                out[n].update(command=program.command, cwd=program.cwd, deterministic=program.deterministic,
                              files=list(program.files),
                              time=None if program.time is None else program.time.as_json())
        typer.echo(json.dumps({"user_file": str(user_panel_path()), "panels": panels, "bots": out}))
        return
    for name, b in bots.items():
        mine = "" if b["source"] == "built-in" else "  (yours)"
        program = b["program"]
        what = b["style"] or (f"{program.command}  (in {program.cwd})" if program else "")
        if program is not None:
            what += f"  [{program.time.describe() if program.time else 'the game time control'}" + \
                    ("" if program.deterministic else "; not reproducible: fingerprinted by its files") + "]"
        typer.echo(f"{name:<14} {b['policy']:<8} {what}{mine}")
    typer.echo("")
    for name, members in panels.items():
        typer.echo(f"panel {name}: {', '.join(members)}")
    typer.echo(f"your panel file: {user_panel_path()}")


@panel_app.command("add")
def panel_add(
    name: str = typer.Argument(..., help="A new name of the form family-vN, e.g. mybest-v1."),
    params: Optional[Path] = typer.Option(None, "--params", help="Coefficient file of a frozen tunable policy, e.g. from `tune export`."),
    command: Optional[str] = typer.Option(None, "--command", help="Or an external program: its command (split like a shell would; {game_seed}, {turn_ms} and {first_turn_ms} are filled in)."),
    cwd: Optional[Path] = typer.Option(None, "--cwd", help="The program's working directory (default: the current one)."),
    style: str = typer.Option("", "--style", help="One line saying what the bot is."),
    to_panel: Optional[str] = typer.Option(None, "--panel", help="Also append it to this panel of yours (created if new)."),
    turn_ms: int = typer.Option(50, "--turn-ms", help=_TURN_MS_HELP + " Stored: the program always plays with it."),
    first_turn_ms: int = typer.Option(1000, "--first-turn-ms", help=_FIRST_TURN_MS_HELP),
    time_scale: float = typer.Option(1.0, "--time-scale", help=_TIME_SCALE_HELP),
    nondeterministic: bool = typer.Option(False, "--nondeterministic", help="The program's lines vary between runs (its own timer, threads, unseeded randomness): fingerprint it by the files it runs instead."),
    files: Optional[list[str]] = typer.Option(None, "--files", help="With --nondeterministic: another file or folder the program runs (repeat the option), relative to --cwd."),
) -> None:
    """Freeze a coefficient set or an external program as a named bot in your panel file
    ($OCEAN_PANELS, else ~/.config/ocean-lab/panels.toml), usable wherever a bot name is
    (arena, study panels). A program is frozen with its time control and fingerprinted by its
    lines on fixed games against random-v1, played twice (or, with --nondeterministic, by the
    content of the files it runs); every frozen bot is checked again before an arena or a
    study plays it."""
    from ocean.bots.coefficients import read_params_file
    from ocean.freeze import add_program_bot, add_user_bot

    if (params is None) == (command is None):
        _fail("give --params FILE (a coefficient set) or --command CMD (a program), one of the two")
    program_only = {"--cwd": cwd is not None, "--nondeterministic": nondeterministic, "--files": bool(files),
                    "--turn-ms": turn_ms != 50, "--first-turn-ms": first_turn_ms != 1000, "--time-scale": time_scale != 1.0}
    if command is None and any(program_only.values()):
        _fail(f"{next(k for k, v in program_only.items() if v)} goes with --command")
    time_control = _time_control(turn_ms, first_turn_ms, time_scale)
    try:
        if command is not None:
            path, frozen = add_program_bot(name, command, None if cwd is None else str(cwd), style=style,
                                           panel=to_panel, time=time_control, nondeterministic=nondeterministic,
                                           files=tuple(files or ()))
            if frozen.deterministic:
                typer.echo(f"fingerprint {frozen.fingerprint} (its lines on 8 fixed games against random-v1, "
                           f"played twice); time control: {frozen.time.describe()}")
            else:
                typer.echo(f"fingerprint {frozen.fingerprint} (the content of {', '.join(frozen.files)}); "
                           f"time control: {frozen.time.describe()}")
        else:
            policy, values = read_params_file(params)
            path = add_user_bot(name, values, style=style, panel=to_panel, policy=policy)
    except ValueError as exc:
        _fail(str(exc))
    typer.echo(f"{name} frozen in {path}" + (f" and added to panel {to_panel}" if to_panel else ""))


@app.command()
def track(
    replay: Path = typer.Option(..., "--replay", help="Replay written by `ocean referee --replay` or `ocean play --replay`."),
    as_json: bool = typer.Option(False, "--json", help="Print per-turn rows, then the summary as one JSON object on the last line."),
    cap: int = typer.Option(0, "--cap", help="Candidate states kept before they collapse to one per cell (default: the bots' cap)."),
) -> None:
    """Run both players' trackers over a recorded game: candidate cells and states, whether
    the truth is inside, the probability of the true cell, and the update time per turn."""
    from ocean.replay import load_replay
    from ocean.tracking import DEFAULT_CAP, track_replay

    cap = cap or DEFAULT_CAP
    if cap < 225:
        _fail(f"--cap must be at least 225 (one state per cell), got {cap}")
    try:
        report = track_replay(load_replay(replay), cap=cap)
    except ValueError as exc:
        _fail(str(exc))
    if as_json:
        for row in report["turns"]:
            typer.echo(json.dumps(row))
        typer.echo(json.dumps(report["summary"]))
        return
    typer.echo(" turn obs | safe: cells states truth p(true) | assumption: cells states truth p(true) |   µs")
    for r in report["turns"]:
        s, a = r["safe"], r["assumption"]
        typer.echo(f"{r['turn']:5d} {r['observer']:3d} | {s['cells']:11d} {s['states']:6d} {'in' if s['truth_inside'] else 'LOST':>5} {s['p_true_cell']:7.3f} "
                   f"| {a['cells']:17d} {a['states']:6d} {'in' if a['truth_inside'] else 'LOST':>5} {a['p_true_cell']:7.3f} | {r['update_us']:6.1f}")
    for key, value in report["summary"].items():
        typer.echo(f"{key:>34}: {value}")


def _replay_beliefs(data: dict) -> list | None:
    """Both players' beliefs per turn for the page's heat map; None if the replay cannot
    be re-played by this engine (the page is still worth having without the heat map)."""
    from ocean.tracking import replay_beliefs

    try:
        return replay_beliefs(data)
    except ValueError as exc:
        typer.echo(f"warning: no belief heat map: {exc}", err=True)
        return None


@app.command("replay")
def replay_command(
    file: Path = typer.Argument(..., metavar="FILE", help="Replay written by `ocean referee --replay` or `ocean play --replay`."),
    out: Optional[Path] = typer.Option(None, "--out", help="HTML file to write (default: FILE with the .html suffix)."),
) -> None:
    """Write a self-contained HTML page replaying the game step by step (board, paths, mines,
    blasts, lives, charges, orders, the trackers' beliefs); print its path and its address."""
    from ocean.replay import load_replay
    from ocean.replay_html import render_replay_html
    try:
        data = load_replay(file)
    except ValueError as exc:
        _fail(str(exc))
    out = out or file.with_suffix(".html")
    if out.resolve() == file.resolve():
        _fail(f"{out} is the replay itself; give another --out")
    page = render_replay_html(data, _replay_beliefs(data))
    try:
        out.write_text(page, encoding="utf-8")
    except OSError as exc:
        _fail(f"cannot write the page to {out}: {exc.strerror}")
    typer.echo(str(out))
    typer.echo(f"open it in a browser: {out.resolve().as_uri()}", err=True)


@app.command()
def warmup(
    all_bots: bool = typer.Option(False, "--all", help=f"Also the bots compiled on first use ({', '.join(registry.FIRST_USE_POLICIES)})."),
) -> None:
    """Compile every kernel once (or load it from the cache): run it after installing, so the
    first `ocean bot` answers inside CodinGame's 1000 ms first-turn limit. The bots compiled
    on first use (--all names them) compile when a game first names them, or here with --all."""
    from ocean.warmup import warm_up

    start = time.perf_counter()
    warm_up(log=lambda line: typer.echo(line, err=True), all_bots=all_bots)
    typer.echo(f"compiled kernels ready in {time.perf_counter() - start:.1f} s")


@app.command()
def bench(
    as_json: bool = typer.Option(False, "--json", help="Print the figures as one JSON object on the last line."),
    games: Optional[int] = typer.Option(None, "--games", help="Games to play (default: 20000; 400 per matchup with --tracking; 200 with --bots; 40 with --program)."),
    skip_startup: bool = typer.Option(False, "--skip-startup", help="Do not measure cold compile and warm start."),
    tracking: bool = typer.Option(False, "--tracking", help="Measure the opponent trackers instead of the engine."),
    bots: bool = typer.Option(False, "--bots", help="Measure the bots: decision time per panel bot, tunable-vs-panel games per second, `ocean bot` start-up."),
    program: Optional[str] = typer.Option(None, "--program", help="Measure games with this external program (command; {game_seed} allowed): the referee's own cost per turn, games per second in-process vs program and program vs program."),
    first_answer: bool = typer.Option(False, "--first-answer", help="Measure `ocean bot`'s first and second answers over --games fresh starts (default 20), each paired with a start of the path of before (Numba loaded at start): median, p99, and the ratio of the medians."),
) -> None:
    """Measure the engine: player-turns and games per second on one core with random
    legal bots, map generation rate, cold compile time (what `ocean warmup` compiles, in a
    fresh process on an empty cache) and warm start time (a fresh process playing one game
    on that cache). With
    --tracking: candidate cells after 10/20/40 turns and tracker update cost. With --bots:
    decision time per bot and games per second of the v1 and v2 tunable bots against the panel."""
    if sum((tracking, bots, program is not None, first_answer)) > 1:
        _fail("choose one of --tracking, --bots, --program and --first-answer")
    games = games if games is not None else 400 if tracking else 200 if bots else 40 if program else 20 if first_answer else 20000
    if games < (2 if first_answer else 10):
        _fail(f"--games must be at least {2 if first_answer else 10}, got {games}")
    if first_answer:
        from benchmarks.firstanswer import run_first_answer_bench

        try:
            figures = run_first_answer_bench(starts=games, progress=not as_json)
        except (ValueError, OSError) as exc:
            _fail(str(exc))
    elif program is not None:
        from benchmarks.engine import run_programs_bench

        try:
            figures = run_programs_bench(program, games=games, progress=not as_json)
        except (ValueError, OSError) as exc:
            _fail(str(exc))
    elif bots:
        from benchmarks.engine import run_bots_bench

        figures = run_bots_bench(games=games, progress=not as_json)
    elif tracking:
        from benchmarks.tracking import run_tracking_bench

        figures = run_tracking_bench(games=games, progress=not as_json)
    else:
        from benchmarks.engine import run_bench

        figures = run_bench(games=games, startup=not skip_startup, progress=not as_json)
    if as_json:
        typer.echo(json.dumps(figures))
        return
    for key, value in figures.items():
        typer.echo(f"{key:>28}: {value}")


def main() -> None:  # pragma: no cover - console entry point
    app()
